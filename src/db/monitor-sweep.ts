// Queries of the monitor sweep (src/jobs/monitor-sweep.ts): who is watched, the state rows it reads
// slot by slot, the batch writes of checked states and their history, and its watermark.
import { pack } from './columns.ts'
import type { ConnectionRow } from './connections.ts'
import type { MonitorState } from './monitor.ts'
import type { Sql } from './sql.ts'

/** A domain's monitor row as the sweep reads it. */
export type SweepStateRow = MonitorState & { connection_id: string; slot_ms: number; checked: number; last_checked_at: Date | null; retry_at: Date | null }

const STATE_COLUMNS = 'connection_id, slot_ms, result, drift, drift_since, attention, action, repair_detail, error, checked, last_checked_at, retry_at'

const CONNECTION_COLUMNS =
  'id, tenant_id, application_id, domain, apex_domain, end_user_ref, www_redirect, status, rail, managed, provider_id, ' +
  'desired_records, error_code, error_message, metadata'

// Set differences (hashed whatever the statistics say: a planner that believes a freshly filled
// table is empty would otherwise probe it once per row of the other).

/** Watched connections that are no longer live and open. */
export async function watchedNotLive(db: Sql): Promise<string[]> {
  return ((await db`
    select connection_id as id from monitor_state
    except select id from connections where status = 'live' and disconnected_at is null`) as { id: string }[]).map((r) => r.id)
}

/** Live open connections not watched yet. */
export async function liveNotWatched(db: Sql): Promise<string[]> {
  return ((await db`
    select id from connections where status = 'live' and disconnected_at is null
    except select connection_id from monitor_state`) as { id: string }[]).map((r) => r.id)
}

export async function unwatch(db: Sql, ids: string[]): Promise<void> {
  await db`delete from monitor_state where connection_id = any(unpack_column(${pack(ids)}))`
}

/** Connections the outbox announced with one of `types` (events from `floorId` on) that are not watched yet. */
export async function announcedNotWatched(db: Sql, floorId: string, types: string[]): Promise<string[]> {
  return ((await db`
    select distinct e.connection_id as id from events e
    where e.id >= ${floorId} and e.type = any(${types}::text[]) and not e.test
      and not exists (select 1 from monitor_state m where m.connection_id = e.connection_id)`) as { id: string }[]).map((r) => r.id)
}

/** Watches those of `ids` that are live and not watched yet, each at its slot; returns how many. */
export async function watch(db: Sql, ids: string[], slots: number[], now: Date): Promise<number> {
  const rows = await db`
    insert into monitor_state (connection_id, tenant_id, application_id, slot_ms, enrolled_at, updated_at)
    select c.id, c.tenant_id, c.application_id, t.slot_ms, ${now}, ${now}
    from unnest(unpack_column(${pack(ids)}), unpack_column(${pack(slots)})::int[]) as t(id, slot_ms) join connections c on c.id = t.id
    where c.status = 'live' and c.disconnected_at is null
    on conflict do nothing
    returning connection_id`
  return rows.length
}

/** The checked states of a batch, in one statement (with each domain's rank for the attention-first page). */
export async function writeStates(tx: Sql, plans: (MonitorState & { connection_id: string; checked: number; rank: number; retry_at: Date | null })[], now: Date): Promise<void> {
  await tx`
    with v as (
      select * from json_to_recordset(${plans}::json) as v(connection_id text, result text, drift jsonb, drift_since timestamptz,
        attention text, action jsonb, repair_detail text, error text, checked integer, rank smallint, retry_at timestamptz)
    )
    update monitor_state m set
      result = v.result, drift = v.drift, drift_since = v.drift_since, attention = v.attention, action = v.action,
      repair_detail = v.repair_detail, error = v.error, checked = v.checked, last_checked_at = ${now}, updated_at = ${now}, retry_at = v.retry_at,
      rank_log = monitor_rank_log(m.rank_log, m.rank, v.rank),
      rank = v.rank
    from v where m.connection_id = v.connection_id`
}

export interface HistoryRow {
  id: string
  tenant_id: string
  application_id: string
  connection_id: string
  domain: string
  kind: string
  detail: unknown
  created_at: string
}

/** Drift, restorations and repairs, in the order given. */
export async function insertHistory(tx: Sql, history: HistoryRow[]): Promise<void> {
  await tx`
      insert into monitor_history (id, tenant_id, application_id, connection_id, domain, kind, detail, created_at)
      select h.id, h.tenant_id, h.application_id, h.connection_id, h.domain, h.kind, h.detail, h.created_at
      from jsonb_array_elements(${history}::jsonb) with ordinality as e(item, n),
        jsonb_to_record(e.item) as h(id text, tenant_id text, application_id text, connection_id text, domain text, kind text, detail jsonb, created_at timestamptz)
      order by e.n`
}

/**
 * The connections among `ids`, read by primary key only, with whether each is still watched judged in
 * the select list (as the verification sweep reads them: verification.ts `toVerify`).
 */
export async function toCheck(db: Sql, ids: string[]) {
  return (await db`
    select ${db.unsafe(CONNECTION_COLUMNS)}, status = 'live' and disconnected_at is null as watched
    from connections where id = any(unpack_column(${pack(ids)}))`) as (ConnectionRow & { watched: boolean })[]
}

/** How far the last sweep got; null before the first. */
export async function sweepWatermark(db: Sql): Promise<Date | null> {
  const [mark] = (await db`select swept_to from monitor_sweep`) as { swept_to: Date }[]
  return mark?.swept_to ?? null
}

export async function setSweptTo(db: Sql, at: Date): Promise<void> {
  await db`
    insert into monitor_sweep (id, swept_to) values (true, ${at})
    on conflict (id) do update set swept_to = excluded.swept_to`
}

/** Domains never checked, oldest enrolment first (each leaves the partial index it was found through). */
export function neverChecked(db: Sql, limit: number): Promise<SweepStateRow[]> {
  return db`select ${db.unsafe(STATE_COLUMNS)} from monitor_state where last_checked_at is null order by enrolled_at limit ${limit}` as Promise<SweepStateRow[]>
}

/** Domains whose slot is in (lo, hi], after `after` in (slot, id) order. */
export function statesInSlots(db: Sql, lo: number, hi: number, after: SweepStateRow | null | undefined, limit: number): Promise<SweepStateRow[]> {
  return db`
          select ${db.unsafe(STATE_COLUMNS)} from monitor_state
          where slot_ms > ${lo} and slot_ms <= ${hi}
            and (slot_ms, connection_id) > (${after?.slot_ms ?? -1}, ${after?.connection_id ?? ''})
          order by slot_ms, connection_id limit ${limit}` as Promise<SweepStateRow[]>
}

/** Domains whose repair the host asked to be tried again by now (`retry_at`, a Retry-After), earliest first. */
export function retriesDue(db: Sql, now: Date, limit: number): Promise<SweepStateRow[]> {
  return db`select ${db.unsafe(STATE_COLUMNS)} from monitor_state where retry_at <= ${now} order by retry_at limit ${limit}` as Promise<SweepStateRow[]>
}
