// The monitor sweep (CONTRACT.md sections 6 and 8: hourly, drift events only with
// MONITOR_ALERTS_ENABLED=1). Every live connection is watched; each is checked once an hour at its own
// offset within the hour (src/domain/monitor.ts `nextCheckAt`), so the load is spread evenly and the
// cron only wakes every minute to take what is due. Due rows are locked with SKIP LOCKED, so sweepers
// side by side take disjoint batches; each batch writes its states, history and events in one
// transaction. A drifted managed connection is handed to the repair rail when one is wired.
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import type { ConnectionRow } from '../domain/connections.ts'
import type { Dns } from '../domain/dns.ts'
import { connectionEnvelope, emitMany, type Envelope } from '../domain/events.ts'
import { afterCheck, baselineOf, compareBaseline, nextCheckAt, rankOf, type MonitorState, type RepairOutcome, type RepairRail, type Transition } from '../domain/monitor.ts'
import { errorFields, log } from '../logger.ts'
import { newId } from '../ids.ts'
import type { Sweep } from './index.ts'
import { drainInRounds, mapLimit } from './lanes.ts'

export const MONITOR_QUEUE = 'monitor-sweep'

export interface MonitorDeps {
  db: Sql
  dns: Dns
  clock: Clock
  /** MONITOR_ALERTS_ENABLED: write drift events to the outbox. */
  alerts: boolean
  repair?: RepairRail
}

type DueRow = ConnectionRow & MonitorState

const CONNECTION_COLUMNS =
  'id, tenant_id, application_id, domain, apex_domain, end_user_ref, www_redirect, status, rail, managed, provider_id, ' +
  'desired_records, error_code, error_message'

/**
 * Starts watching connections that went live (first check at once: the baseline is confirmed right
 * after going live) and stops watching disconnected ones. Returns how many were enrolled.
 */
export async function enrolLive(deps: Pick<MonitorDeps, 'db' | 'clock'>): Promise<number> {
  const now = deps.clock.now()
  await deps.db`
    delete from monitor_state m using connections c
    where c.id = m.connection_id and (c.disconnected_at is not null or c.status <> 'live')`
  // Two statements: an insert that probed the table it fills would walk its own new rows for each
  // candidate (quadratic in the size of the enrolment).
  const todo = ((await deps.db`
    select c.id from connections c
    where c.status = 'live' and c.disconnected_at is null
      and not exists (select 1 from monitor_state m where m.connection_id = c.id)`) as { id: string }[]).map((r) => r.id)
  if (todo.length === 0) return 0
  const rows = await deps.db`
    insert into monitor_state (connection_id, tenant_id, application_id, next_check_at, enrolled_at, updated_at)
    select c.id, c.tenant_id, c.application_id, ${now}, ${now}, ${now} from connections c
    where c.id = any(${todo}::text[]) and c.status = 'live' and c.disconnected_at is null
    on conflict do nothing
    returning connection_id`
  return rows.length
}

async function tryRepair(rail: RepairRail, row: DueRow, cmp: Awaited<ReturnType<typeof compareBaseline>>): Promise<RepairOutcome> {
  try {
    return await rail.repair(row, cmp.drift)
  } catch (err) {
    log.warn('monitor repair failed', { connection_id: row.id, ...errorFields(err) })
    return { fixed: false, detail: 'The repair rail failed; put the records back at the DNS provider.' }
  }
}

/** Checks one connection; with drift on a managed one, repairs through the rail and checks again. */
async function checkConnection(deps: MonitorDeps, row: DueRow, now: Date): Promise<Transition> {
  let cmp = await compareBaseline(deps.dns, row.apex_domain, baselineOf(row))
  let repair: RepairOutcome | null = null
  if (cmp.result === 'drift' && row.managed && deps.repair) {
    repair = await tryRepair(deps.repair, row, cmp)
    if (repair.fixed) {
      cmp = await compareBaseline(deps.dns, row.apex_domain, baselineOf(row))
      if (cmp.result !== 'ok') repair = { fixed: false, detail: `The repair ran but the records are still not in place (${repair.detail}).` }
    }
  }
  const prev: MonitorState = {
    result: row.result,
    drift: row.drift,
    drift_since: row.drift_since,
    attention: row.attention,
    action: row.action,
    repair_detail: row.repair_detail,
    error: row.error,
  }
  return afterCheck(prev, cmp, now, row.managed, deps.repair !== undefined, repair)
}

async function record(tx: Sql, deps: MonitorDeps, rows: DueRow[], transitions: Transition[], now: Date): Promise<void> {
  const plans = rows.map((row, i) => {
    const s = transitions[i]!.state
    return { ...s, connection_id: row.id, next_check_at: nextCheckAt(row.id, now).toISOString(), rank: rankOf(s) }
  })
  // The rank log keeps the last 24 changes, each tagged with this transaction's id, so a listing
  // can read ranks as of the snapshot of its first page (src/ops/monitor.ts).
  await tx`
    with v as (
      select * from jsonb_to_recordset(${plans}::jsonb) as v(connection_id text, result text, drift jsonb, drift_since timestamptz,
        attention text, action jsonb, repair_detail text, error text, next_check_at timestamptz, rank smallint)
    )
    update monitor_state m set
      result = v.result, drift = v.drift, drift_since = v.drift_since, attention = v.attention, action = v.action,
      repair_detail = v.repair_detail, error = v.error, checked = m.checked + 1, last_checked_at = ${now},
      next_check_at = v.next_check_at, updated_at = ${now},
      rank_log = case when v.rank = m.rank then m.rank_log
        else (case when jsonb_array_length(m.rank_log) >= 24 then m.rank_log - 0 else m.rank_log end)
          || jsonb_build_array(jsonb_build_object('r', v.rank, 'x', pg_current_xact_id()::text)) end,
      rank = v.rank
    from v where m.connection_id = v.connection_id`
  const history = rows.flatMap((row, i) =>
    transitions[i]!.history.map((h) => ({
      id: newId('mon', now.getTime()),
      tenant_id: row.tenant_id,
      application_id: row.application_id,
      connection_id: row.id,
      domain: row.domain,
      kind: h.kind,
      detail: h.detail,
      created_at: now.toISOString(),
    })),
  )
  if (history.length) {
    await tx`
      insert into monitor_history (id, tenant_id, application_id, connection_id, domain, kind, detail, created_at)
      select h.id, h.tenant_id, h.application_id, h.connection_id, h.domain, h.kind, h.detail, h.created_at
      from jsonb_array_elements(${history}::jsonb) with ordinality as e(item, n),
        jsonb_to_record(e.item) as h(id text, tenant_id text, application_id text, connection_id text, domain text, kind text, detail jsonb, created_at timestamptz)
      order by e.n`
  }
  if (!deps.alerts) return
  const events: Envelope[] = rows.flatMap((row, i) => {
    const t = transitions[i]!
    const out: Envelope[] = []
    if (t.missing.length) out.push(connectionEnvelope(row, 'domain.record_missing', now, { records: t.missing, drift: t.state.drift }))
    if (t.restored.length) out.push(connectionEnvelope(row, 'domain.record_restored', now, { records: t.restored }))
    return out
  })
  await emitMany(tx, rows, events)
}

/**
 * Checks the connections among `ids` that are still due (another sweeper may have taken some); returns
 * how many it checked. Locking by id rather than by scanning the due index keeps a burst linear: each
 * checked row leaves a dead entry in that index, which a scan from the front would walk again per batch.
 */
export async function checkBatch(deps: MonitorDeps, ids: string[], concurrency = 64): Promise<number> {
  return deps.db.begin(async (tx) => {
    // A commit lost in a crash loses a state and its events together; the domain is checked again.
    await tx`set local synchronous_commit = off`
    const now = deps.clock.now()
    // Two single-table reads by primary key: a join here is at the mercy of stale statistics (a
    // planner that believes the state table is empty scans every connection per row).
    const locked = (await tx`
      select connection_id, result, drift, drift_since, attention, action, repair_detail, error from monitor_state
      where connection_id = any(${ids}::text[]) and next_check_at <= ${now}
      for update skip locked`) as (MonitorState & { connection_id: string })[]
    if (locked.length === 0) return 0
    const conns = (await tx`
      select ${tx.unsafe(CONNECTION_COLUMNS)} from connections
      where id = any(${locked.map((l) => l.connection_id)}::text[]) and status = 'live' and disconnected_at is null`) as ConnectionRow[]
    const stateOf = new Map(locked.map((l) => [l.connection_id, l]))
    const due: DueRow[] = conns.map((c) => ({ ...c, ...stateOf.get(c.id)! }))
    if (due.length === 0) return 0
    const transitions = await mapLimit(due, concurrency, (row) => checkConnection(deps, row, now))
    await record(tx, deps, due, transitions, now)
    return due.length
  })
}

const dueIds = (deps: MonitorDeps) => async (limit: number) =>
  ((await deps.db`
    select connection_id from monitor_state where next_check_at <= ${deps.clock.now()}
    order by next_check_at limit ${limit}`) as { connection_id: string }[]).map((r) => r.connection_id)

/** Enrols, then checks everything due: rounds of up to 20,000, four lanes of 500. */
export async function sweepMonitor(deps: MonitorDeps, budgetMs = 55_000): Promise<number> {
  await enrolLive(deps)
  return drainInRounds(dueIds(deps), (ids) => checkBatch(deps, ids), { lanes: 4, batch: 500, budgetMs })
}

/** The pg-boss registration: wakes every minute; each domain comes due once an hour. */
export function monitorSweep(deps: MonitorDeps): Sweep {
  return { queue: MONITOR_QUEUE, cron: '* * * * *', drain: () => sweepMonitor(deps) }
}
