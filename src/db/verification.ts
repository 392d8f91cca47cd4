// Queries of verification: what the sweep reads of a connection, and the one statement that lands a
// batch of results (src/domain/connect.ts decides each row's next state, src/jobs/verify-sweep.ts runs
// the batches).
import { pack, packJson } from './columns.ts'
import type { ConnectionRow, ConnectionStatus } from './connections.ts'
import type { Sql } from './sql.ts'

/** What verification and its events read of a connection; the sweep selects no more than this. */
export const VERIFY_COLUMNS =
  'id, tenant_id, application_id, domain, apex_domain, end_user_ref, www_redirect, status, rail, provider_id, desired_records, ' +
  'created_at, propagating_since, error_code, error_message, metadata, validation_stage, xmin::text as version, ctid::text as tid'

// A row read with its version is found at its place (a TID scan, no index descent); the id check
// keeps a place reused by another row from matching.
const PINNED_ROW = 'c.ctid = v.tid and c.id = v.id and c.xmin::text = v.version'
const KEYED_ROW = 'c.id = v.id and (v.version is null or c.xmin::text = v.version)'

/**
 * One result to land: the row as verified (`expect`, and its version and place when read with them), its
 * next state and event, and what its transition sets in motion (decided by src/domain/transitions.ts).
 */
export interface Landing {
  id: string
  expect: string
  version: string | null
  tid: string | null
  status: string
  next_check_at: string | undefined
  error_code: string | null
  error_message: string | null
  last_result: unknown
  event: string | null
  event_id: string | undefined
  payload: unknown
  /** `live_at` = now. */
  stamp_live: boolean
  /** `failed_at` = now. */
  stamp_failed: boolean
  /** The monitor starts over against the records as they are now. */
  rebaseline: boolean
  /** Certificate orders are woken (one notification, on commit). */
  wake: boolean
}

/**
 * Lands a batch of results in one statement: only on rows still in the state they were verified in, or
 * with `pinned` (every row read with its version and place), on rows nobody wrote since; their events
 * are written in the same statement. Returns how many landed.
 */
export async function landVerifications(sql: Sql, items: Landing[], pinned: boolean, now: Date): Promise<number> {
  const col = <T>(f: (l: Landing) => T) => items.map(f)
  // One statement: the update lands only on rows still in the state they were verified in (a
  // concurrent disconnect or revival wins), and only those rows get their event.
  const updated = (await sql`
    with v as (
      select * from unnest(
        unpack_column(${pack(col((l) => l.id))}),
        unpack_column(${pack(col((l) => l.expect))}),
        unpack_column(${pack(col((l) => l.version))}),
        unpack_column(${pack(col((l) => l.tid))})::tid[],
        unpack_column(${pack(col((l) => l.status))}),
        unpack_column(${pack(col((l) => l.next_check_at))})::timestamptz[],
        unpack_column(${pack(col((l) => l.error_code))}),
        unpack_column(${pack(col((l) => l.error_message))}),
        unpack_column(${packJson(col((l) => l.last_result))})::json[],
        unpack_column(${pack(col((l) => l.event))}),
        unpack_column(${pack(col((l) => l.event_id))}),
        unpack_column(${packJson(col((l) => l.payload))}),
        unpack_column(${pack(col((l) => l.stamp_live))})::boolean[],
        unpack_column(${pack(col((l) => l.stamp_failed))})::boolean[],
        unpack_column(${pack(col((l) => l.rebaseline))})::boolean[],
        unpack_column(${pack(col((l) => l.wake))})::boolean[]
      ) as v(id, expect, version, tid, status, next_check_at, error_code, error_message, last_result, event, event_id, payload, stamp_live, stamp_failed, rebaseline, wake)
    ), u as (
      update connections c set
        status = v.status, next_check_at = v.next_check_at, error_code = v.error_code, error_message = v.error_message,
        last_result = v.last_result, last_checked_at = ${now}, check_count = c.check_count + 1,
        live_at = case when v.stamp_live then ${now}::timestamptz else c.live_at end,
        failed_at = case when v.stamp_failed then ${now}::timestamptz else c.failed_at end,
        updated_at = ${now},
        -- An event takes the connection's next sequence number (the row is locked by this update).
        event_seq = c.event_seq + (v.event is not null)::int
      from v
      where ${sql.unsafe(pinned ? PINNED_ROW : KEYED_ROW)} and c.status = v.expect and c.disconnected_at is null
      returning c.id, c.next_check_at, c.tenant_id, c.application_id, c.event_seq, v.event, v.event_id, v.payload, v.rebaseline, v.wake
    ), q as (
      -- Checks are over for these: their entries leave the verification queue.
      delete from verify_queue q using u where q.connection_id = u.id and u.next_check_at is null
    ), m as (
      -- Its transition says the monitor starts over (one that was live before, its records changed
      -- since, against its new baseline); one new to the monitor is enrolled by the next monitor sweep,
      -- from its event (enrolAnnounced).
      update monitor_state s set
        result = null, drift = '[]', drift_since = null, attention = null, action = null, repair_detail = null, error = null,
        last_checked_at = null, enrolled_at = ${now}, updated_at = ${now},
        rank_log = monitor_rank_log(s.rank_log, s.rank, 3::smallint),
        rank = 3
      from u where s.connection_id = u.id and u.rebaseline
    ), e as (
      insert into events (id, tenant_id, application_id, connection_id, type, payload, created_at, sequence)
      -- The payload arrives as JSON text and is parsed once, here, with its sequence spliced in front
      -- (event_payload's splice, on text: cast to json first, each payload was parsed twice). Its
      -- opening brace is cut with right(…, -1), which steps over one character: substr(…, 2) counted
      -- every character of the payload, twice (1.5 µs of PostgreSQL CPU a 440-character payload).
      select u.event_id, u.tenant_id, u.application_id, u.id, u.event, ('{"sequence":' || u.event_seq || ',' || right(u.payload, -1))::json, ${now}, u.event_seq
      from u where u.event is not null
    )
    -- A transition that says so wakes certificate orders (one notification, on commit). The sweep
    -- (portico.sweep) notifies once when it is done instead: a notifying commit takes a global lock,
    -- and a notification per batch cost its lanes about a fifth of their rate.
    select count(*)::int as landed,
      (select count(pg_notify('portico_work', 'certificate-issue')) from (
        select from u where u.wake and current_setting('portico.sweep', true) is distinct from 'on' limit 1) l) as woke
    from u`) as { landed: number }[]
  return updated[0]!.landed
}

/**
 * The connections among `ids`, read by primary key only, with whether each is still due judged in the
 * select list: with `disconnected_at is null` in the where clause, a planner with stale statistics
 * scans a partial index of every open connection per batch. `verifying` is the statuses verification
 * may still move (the transition table's, src/domain/transitions.ts `statusesFrom`).
 */
export async function toVerify(db: Sql, ids: string[], now: Date, verifying: readonly ConnectionStatus[]) {
  return (await db`
    select ${db.unsafe(VERIFY_COLUMNS)},
      disconnected_at is null and status = any(${verifying as string[]}::text[]) and next_check_at <= ${now} as due
    from connections where id = any(unpack_column(${pack(ids)}))`) as (ConnectionRow & { version: string; tid: string; due: boolean })[]
}

/**
 * The sweep's transaction: a commit lost in a crash loses the state change and its event together (the
 * connection is simply verified again), so it does not wait for the WAL flush; one generic plan serves
 * every batch; and `portico.sweep` tells the landing statement the sweep notifies once at its end.
 */
export async function sweepTransaction(tx: Sql): Promise<void> {
  await tx`select set_config('synchronous_commit', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true), set_config('portico.sweep', 'on', true)`
}

/** Queue entries whose connection went live, failed or was disconnected by another path (left `verifying`, as `toVerify`). */
export async function dropFinished(db: Sql, ids: string[], verifying: readonly ConnectionStatus[]): Promise<void> {
  await db`
    delete from verify_queue q where q.connection_id = any(unpack_column(${pack(ids)})) and not exists (
      select 1 from connections c
      where c.id = q.connection_id and c.disconnected_at is null and c.status = any(${verifying as string[]}::text[]) and c.next_check_at is not null)`
}

/** When the earliest scheduled check comes due (the workers' due timer sleeps until then). */
export async function nextVerifyDue(db: Sql): Promise<Date | null> {
  const [row] = (await db`select min(next_check_at) as at from verify_queue`) as { at: Date | null }[]
  return row?.at ?? null
}

/** Up to `limit` queued connections due by `now`, earliest first. */
export async function dueVerifyIds(db: Sql, now: Date, limit: number): Promise<string[]> {
  return ((await db`
    select connection_id from verify_queue where next_check_at <= ${now}
    order by next_check_at limit ${limit}`) as { connection_id: string }[]).map((r) => r.connection_id)
}
