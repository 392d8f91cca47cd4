// Queries of the audit log. Statements moved from src/ops verbatim.
import type { Sql } from './sql.ts'

/** One page of the log, newest first, ids below `before`; one row more than `limit` tells a next page. */
export async function auditPage(
  sql: Sql,
  tenant: string | null,
  before: string,
  input: { action?: string; actor_id?: string; since?: string },
  limit: number,
): Promise<Record<string, unknown>[]> {
  return (await sql`
      select * from audit_log
      where (${tenant}::text is null or tenant_id = ${tenant}) and id < ${before}
        and (${input.action ?? null}::text is null or action = ${input.action ?? null})
        and (${input.actor_id ?? null}::text is null or actor_id = ${input.actor_id ?? null})
        and (${input.since ?? null}::timestamptz is null or created_at >= ${input.since ?? null}::timestamptz)
      order by id desc limit ${limit + 1}`) as Record<string, unknown>[]
}
