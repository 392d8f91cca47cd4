// Queries of the audit log. Statements moved from src/ops verbatim.
import { addressOf, type AddressSource } from '../client-address.ts'
import { newId } from '../ids.ts'
import type { Sql } from './sql.ts'

/**
 * One page of the log, newest first, ids below `before`; one row more than `limit` tells a next page.
 * Only the filters given are in the statement (see connectionVersionsPage in src/db/connections.ts).
 */
export async function auditPage(
  sql: Sql,
  tenant: string | null,
  before: string,
  input: { action?: string; actor_id?: string; since?: string },
  limit: number,
): Promise<Record<string, unknown>[]> {
  return (await sql`
      select * from audit_log
      where id < ${before}
        ${tenant !== null ? sql`and tenant_id = ${tenant}` : sql``}
        ${input.action !== undefined ? sql`and action = ${input.action}` : sql``}
        ${input.actor_id !== undefined ? sql`and actor_id = ${input.actor_id}` : sql``}
        ${input.since !== undefined ? sql`and created_at >= ${input.since}::timestamptz` : sql``}
      order by id desc limit ${limit + 1}`) as Record<string, unknown>[]
}

/** The audit row of a successful mutation, in the mutation's own transaction (src/ops/run.ts). */
export async function insertAuditRow(
  sql: Sql,
  v: {
    now: Date
    tenantId: string | null
    p: { kind: string }
    actorId: string | null
    op: { id: string; method: string; path: string }
    targetId: string | null | undefined
    ctx: { ip: AddressSource; requestId: string }
    details: Record<string, unknown>
  },
): Promise<void> {
  const { now, tenantId, p, op, targetId, ctx, details } = v
  await sql`
    insert into audit_log (id, tenant_id, actor_kind, actor_id, action, target_id, method, path, ip, request_id, details, created_at)
    values (${newId('aud', now.getTime())}, ${tenantId}, ${p.kind}, ${v.actorId}, ${op.id}, ${targetId ?? null},
            ${op.method}, ${op.path}, ${addressOf(ctx.ip)}, ${ctx.requestId}, ${details}::jsonb, ${now})`
}
