// Queries of the monitor's read side: the per-tenant summary, the attention-first page and one
// connection's entry and history (the operations are in src/ops/monitor/); the sweep's queries are in
// monitor-sweep.ts.
import type { ConnectionRow } from './connections.ts'
import type { Sql } from './sql.ts'

// The stored shape of a connection's monitor state (table monitor_state); src/domain/monitor.ts decides it.

export type Verdict = 'record_missing' | 'record_changed' | 'extra_value'
export interface DriftItem {
  subdomain: string
  type: string
  verdict: Verdict
  expected: string[]
  observed: string[]
}

export interface MonitorAction {
  kind: 'auto_fixed'
  at: string
  description: string
}

export interface MonitorState {
  result: 'ok' | 'drift' | 'inconclusive' | null
  drift: DriftItem[]
  drift_since: Date | null
  attention: 'action_required' | null
  action: MonitorAction | null
  repair_detail: string | null
  error: string | null
}


export type MonitorRow = Pick<ConnectionRow, 'id' | 'application_id' | 'domain' | 'apex_domain' | 'status' | 'managed' | 'desired_records'> &
  Partial<MonitorState> & { checked: number | null; last_checked_at: Date | null; enrolled_at: Date | null; slot_ms: number | null; swept_to: Date | null; retry_at?: Date | null }

const ROW_COLUMNS =
  'c.id, c.application_id, c.domain, c.apex_domain, c.status, c.managed, c.desired_records, m.result, m.drift, m.drift_since, ' +
  // A connection gone live is due at once, from the moment it went live: the next sweep enrols it.
  "m.attention, m.action, m.repair_detail, m.error, m.checked, m.last_checked_at, m.retry_at, coalesce(m.enrolled_at, case when c.status = 'live' then c.live_at end) as enrolled_at, m.slot_ms, " +
  '(select swept_to from monitor_sweep) as swept_to'

/** Where the previous page ended: the first page's snapshot, the last rank and id. */
export interface PageAfter {
  s: string
  r: number
  i: string
}

export async function monitorSummary(sql: Sql, tenantId: string, appId: string | null) {
  const [s] = await sql`
    select count(*)::int as domains,
      count(*) filter (where c.status = 'live')::int as watched,
      count(*) filter (where c.status = 'live' and m.result = 'ok')::int as ok,
      count(*) filter (where c.status = 'live' and m.result = 'drift')::int as drift,
      count(*) filter (where c.status = 'live' and m.attention is not null)::int as needs_action,
      count(*) filter (where c.status = 'live' and m.result = 'inconclusive')::int as inconclusive,
      count(*) filter (where c.status = 'live' and m.result is null)::int as not_checked
    from connections c left join monitor_state m on m.connection_id = c.id
    where c.tenant_id = ${tenantId} and c.disconnected_at is null and (${appId}::text is null or c.application_id = ${appId})`
  return s as Record<'domains' | 'watched' | 'ok' | 'drift' | 'needs_action' | 'inconclusive' | 'not_checked', number>
}

/** One page in (rank as of the snapshot, id) order; the first page takes the statement's own snapshot. */
export async function monitorPage(sql: Sql, tenantId: string, appId: string | null, after: PageAfter | null, limit: number) {
  return (await sql`
    with s as (select coalesce(${after?.s ?? null}::text::pg_snapshot, pg_current_snapshot()) as snap),
    ranked as (
      select ${sql.unsafe(ROW_COLUMNS)}, s.snap::text as snap,
        case
          when m.connection_id is null then 3
          when pg_visible_in_snapshot(((m.rank_log -> -1) ->> 'x')::xid8, s.snap) then m.rank
          else coalesce((
            select (l.e ->> 'r')::int from jsonb_array_elements(m.rank_log) with ordinality as l(e, n)
            where pg_visible_in_snapshot((l.e ->> 'x')::xid8, s.snap) order by l.n desc limit 1), 3)
        end as rank_at
      from connections c left join monitor_state m on m.connection_id = c.id cross join s
      where c.tenant_id = ${tenantId} and c.disconnected_at is null and (${appId}::text is null or c.application_id = ${appId})
    )
    select * from ranked where (rank_at, id) > (${after?.r ?? -1}::int, ${after?.i ?? ''}::text)
    order by rank_at, id limit ${limit + 1}`) as (MonitorRow & { snap: string; rank_at: number })[]
}

/** One connection's monitor entry (the connection found in its tenant already). */
export async function monitorRowOf(sql: Sql, c: { id: string }): Promise<MonitorRow> {
  const [row] = await sql`select ${sql.unsafe(ROW_COLUMNS)} from connections c left join monitor_state m on m.connection_id = c.id where c.id = ${c.id}`
  return row as MonitorRow
}

/** Drift, restorations and repairs of one connection, newest first. */
export async function monitorHistory(sql: Sql, c: { id: string; tenant_id: string }, limit: number) {
  return sql`
        select id, application_id, connection_id, domain, kind, detail, created_at from monitor_history
        where connection_id = ${c.id} and tenant_id = ${c.tenant_id} order by seq desc limit ${limit}`
}

/** A closed connection is no longer watched. */
export async function forgetMonitorState(sql: Sql, c: { id: string }): Promise<void> {
  await sql`delete from monitor_state where connection_id = ${c.id}`
}
