// Cached counts of open connections and of certificates (migration 0090): signed deltas per
// workspace, application and status, written by triggers and folded together by a job.
import type { Sql } from './sql.ts'

export type CountKind = 'connection' | 'certificate'

/** A workspace's counts per application and status (only those above zero), optionally filtered. */
export async function countsOfTenant(sql: Sql, kind: CountKind, tenantId: string, f: { app_id?: string; status?: string } = {}) {
  return (await sql`
      select application_id, status, sum(n)::int as n from status_counts
      where kind = ${kind} and tenant_id = ${tenantId}
        ${f.app_id ? sql`and application_id = ${f.app_id}` : sql``}
        ${f.status ? sql`and status = ${f.status}` : sql``}
      group by application_id, status having sum(n) <> 0
      order by application_id, status`) as { application_id: string; status: string; n: number }[]
}

/** Every workspace's counts by status (for /metrics). */
export async function countsByStatus(sql: Sql, kind: CountKind): Promise<Record<string, number>> {
  const rows = (await sql`
      select status, sum(n)::float8 as n from status_counts where kind = ${kind}
      group by status having sum(n) <> 0`) as { status: string; n: number }[]
  return Object.fromEntries(rows.map((r) => [r.status, r.n]))
}

/**
 * Folds the deltas into one row per workspace, application and status; returns how many rows it
 * removed. Rows written by transactions still open are not seen, so they stay for the next fold.
 */
export async function foldStatusCounts(sql: Sql): Promise<number> {
  const [r] = (await sql`
      with gone as (delete from status_counts returning kind, tenant_id, application_id, status, n),
      kept as (
        insert into status_counts (kind, tenant_id, application_id, status, n)
        select kind, tenant_id, application_id, status, sum(n) from gone group by 1, 2, 3, 4 having sum(n) <> 0
        returning 1
      )
      select (select count(*) from gone)::int - (select count(*) from kept)::int as folded`) as { folded: number }[]
  return r?.folded ?? 0
}
