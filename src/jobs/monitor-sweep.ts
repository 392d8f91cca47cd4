// The monitor sweep (the API contract, sections 6 and 8: hourly, drift events only with
// MONITOR_ALERTS_ENABLED=1). Every live connection is watched; each is checked once an hour at its own
// offset within the hour (slot_ms, src/domain/monitor.ts `slotOffsetMs`), so the load is spread
// evenly and the cron only wakes every minute to take the slots that came round since the last sweep.
//
// A check that changes nothing writes nothing: the sweep records how far it got as one watermark
// (monitor_sweep.swept_to), and each domain's count, last and next check follow from its last written
// check and that watermark (`scheduleOf`). A domain is written on its first check, when its state
// changes, and on a catch-up pass (more than an hour since the last sweep, when slots were missed).
// One sweeper runs at a time per database (a session advisory lock; a crashed one releases it).
import { isTestDomain, testZoneDns } from '../domain/test-mode.ts'
import type { Clock } from '../clock.ts'
import { asyncCommit, type Sql } from '../db/sql.ts'
import type { ConnectionRow } from '../db/connections.ts'
import type { DriftItem, MonitorState } from '../db/monitor.ts'
import {
  announcedNotWatched,
  insertHistory,
  liveNotWatched,
  neverChecked,
  retriesDue,
  setSweptTo,
  statesInSlots,
  sweepWatermark,
  toCheck,
  unwatch,
  watch,
  watchedNotLive,
  writeStates,
  type SweepStateRow,
} from '../db/monitor-sweep.ts'
import type { Dns } from '../adapters/dns.ts'
import { connectionEnvelope, emitMany, type Envelope } from '../domain/events.ts'
import { afterCheck, baselineOf, compareBaseline, EVERY_MS, MIN_GAP_MS, rankOf, slotAtOrBefore, slotOffsetMs, slotsBetween, type RepairOutcome, type RepairRail, type Transition } from '../domain/monitor.ts'
import { canonicalJson } from '../json.ts'
import { errorFields, log } from '../logger.ts'
import { idFloor, newId } from '../ids.ts'
import type { Sweep } from './index.ts'
import { drainRounds, mapLimit } from './lanes.ts'
import { alone } from '../db/locks.ts'
import { observeDnsChecks } from '../metrics.ts'
import { eventsWith } from '../domain/transitions.ts'

export const MONITOR_QUEUE = 'monitor-sweep'

export interface MonitorDeps {
  db: Sql
  dns: Dns
  clock: Clock
  /** MONITOR_ALERTS_ENABLED: write drift events to the outbox. */
  alerts: boolean
  repair?: RepairRail
}

/** A domain's monitor row as the sweep reads it. */
type StateRow = SweepStateRow
/** A due domain: its connection and its monitor row, as read. */
type DueRow = { c: ConnectionRow; s: StateRow }

const SWEEP_LOCK = 0x6d6f6e69 // "moni"
const BATCH = 500
const LANES = 4

/**
 * Reconciles the watched set with the live connections: enrols live ones not watched yet (first
 * check at once) and drops the rest. Returns how many were enrolled.
 */
export async function enrolLive(deps: Pick<MonitorDeps, 'db' | 'clock'>): Promise<number> {
  const gone = await watchedNotLive(deps.db)
  if (gone.length) await unwatch(deps.db, gone)
  return enrol(deps, await liveNotWatched(deps.db))
}

/**
 * How far back each sweep reads the outbox for `connection.live` beyond its last sweep: an event's id
 * carries the time it was minted, and its transaction commits moments later.
 */
const ANNOUNCED_MARGIN_MS = 5 * 60_000

/**
 * Enrols the connections that went live since the last sweep, as their `connection.live` events in
 * the outbox announce (the events of the transitions with `enrol_monitor`, src/domain/transitions.ts) (read by id range, so it costs the events since then, not the watched set).
 * Taking a connection live writes nothing for the monitor: this pass, a minute later at most, does.
 */
export async function enrolAnnounced(deps: Pick<MonitorDeps, 'db' | 'clock'>, since: Date): Promise<number> {
  const types = eventsWith('enrol_monitor')
  return enrol(deps, await announcedNotWatched(deps.db, idFloor('evt', since.getTime() - ANNOUNCED_MARGIN_MS), types))
}

/** Enrols those of `ids` that are live and not watched yet, first check at once; returns how many. */
async function enrol(deps: Pick<MonitorDeps, 'db' | 'clock'>, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const now = deps.clock.now()
  return watch(deps.db, ids, ids.map(slotOffsetMs), now)
}

async function tryRepair(rail: RepairRail, row: ConnectionRow, cmp: Awaited<ReturnType<typeof compareBaseline>>): Promise<RepairOutcome> {
  try {
    return await rail.repair(row, cmp.drift)
  } catch (err) {
    log.warn('monitor repair failed', { connection_id: row.id, ...errorFields(err) })
    return { fixed: false, detail: 'The repair rail failed; put the records back at the DNS provider.' }
  }
}

const stateOf = (r: StateRow): MonitorState => ({
  result: r.result,
  drift: r.drift,
  drift_since: r.drift_since,
  attention: r.attention,
  action: r.action,
  repair_detail: r.repair_detail,
  error: r.error,
})

/** Checks one connection; with drift on a managed one, repairs through the rail and checks again. */
async function checkConnection(deps: MonitorDeps, { c: row, s: state }: DueRow, now: Date): Promise<Transition> {
  // A test domain's zone is played: it holds what it was asked to (src/domain/test-mode.ts).
  const dns = isTestDomain(row.domain) ? testZoneDns(row.apex_domain, baselineOf(row)) : deps.dns
  let cmp = await compareBaseline(dns, row.apex_domain, baselineOf(row))
  let repair: RepairOutcome | null = null
  if (cmp.result === 'drift' && row.managed && deps.repair) {
    repair = await tryRepair(deps.repair, row, cmp)
    if (repair.fixed) {
      cmp = await compareBaseline(dns, row.apex_domain, baselineOf(row))
      if (cmp.result !== 'ok') repair = { fixed: false, detail: `The repair ran but the records are still not in place (${repair.detail}).` }
    }
  }
  return afterCheck(stateOf(state), cmp, now, row.managed, deps.repair !== undefined, repair)
}

/** One sweep pass: the watermark it started from, its time, and whether it catches up missed slots. */
interface Pass {
  from: Date | null
  now: Date
  catchUp: boolean
}

/** Checks before this pass that left no write: the slots the watermark passed since the last written check. */
const unwrittenChecks = (row: StateRow, pass: Pass) =>
  row.last_checked_at && pass.from ? slotsBetween(row.slot_ms, row.last_checked_at.getTime() + MIN_GAP_MS, pass.from.getTime()) : 0

async function record(tx: Sql, deps: MonitorDeps, due: DueRow[], transitions: Transition[], pass: Pass): Promise<void> {
  const now = pass.now
  const rows = due.map((d) => d.c)
  const plans = due.map(({ c, s: row }, i) => {
    const s = transitions[i]!.state
    return { ...s, connection_id: c.id, checked: row.checked + unwrittenChecks(row, pass) + 1, rank: rankOf(s), retry_at: transitions[i]!.retryAt }
  })
  await writeStates(tx, plans, now)
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
  if (history.length) await insertHistory(tx, history)
  if (!deps.alerts) return
  const events: Envelope[] = rows.flatMap((row, i) => {
    const t = transitions[i]!
    const out: Envelope[] = []
    if (t.missing.length) out.push(connectionEnvelope(row, 'domain.record_missing', now, { records: driftRecords(t.missing), drift: t.missing }))
    if (t.restored.length) out.push(connectionEnvelope(row, 'domain.record_restored', now, { records: driftRecords(t.restored), drift: t.restored }))
    return out
  })
  await emitMany(tx, rows, events)
}

/** The baseline records behind drift items, one per expected value (the events' `data.records`). */
const driftRecords = (items: DriftItem[]) => items.flatMap((d) => d.expected.map((value) => ({ type: d.type, host: d.subdomain, value })))

/** Due in this pass: never checked, or its slot came round at least MIN_GAP_MS after its last written check. */
function isDue(row: StateRow, pass: Pass): boolean {
  if (!row.last_checked_at) return true
  const now = pass.now.getTime()
  // A repair the host asked to be tried again by now (its Retry-After) is due whatever the slot.
  if (row.retry_at && row.retry_at.getTime() <= now) return true
  const slot = pass.catchUp ? now : slotAtOrBefore(row.slot_ms, now)
  return slot > row.last_checked_at.getTime() + MIN_GAP_MS
}

/** A check is written when it is the first, changes anything, or catches up. */
function mustWrite(row: StateRow, t: Transition, pass: Pass): boolean {
  if (pass.catchUp || !row.last_checked_at) return true
  if (t.history.length || t.missing.length || t.restored.length) return true
  if ((row.retry_at?.getTime() ?? null) !== (t.retryAt?.getTime() ?? null)) return true
  const a = stateOf(row)
  const b = t.state
  if (a.result !== b.result || a.attention !== b.attention || a.repair_detail !== b.repair_detail || a.error !== b.error) return true
  if ((a.drift_since?.getTime() ?? null) !== (b.drift_since?.getTime() ?? null)) return true
  // Most domains are in sync: nothing to compare when neither side has drift or an action.
  if (a.drift.length === 0 && b.drift.length === 0 && a.action === null && b.action === null) return false
  return canonicalJson([a.drift, a.action]) !== canonicalJson([b.drift, b.action])
}

/** Checks the due domains among `states`; writes those that changed in one transaction. Returns how many it checked. */
export async function checkBatch(deps: MonitorDeps, states: StateRow[], pass: Pass, concurrency = 64): Promise<number> {
  const due = new Map(states.filter((s) => isDue(s, pass)).map((s) => [s.connection_id, s]))
  if (due.size === 0) return 0
  const conns = (await toCheck(deps.db, [...due.keys()])).filter((c) => c.watched)
  const rows: DueRow[] = conns.map((c) => ({ c, s: due.get(c.id)! }))
  if (rows.length === 0) return 0
  const transitions = await mapLimit(rows, concurrency, (row) => checkConnection(deps, row, pass.now))
  observeDnsChecks('monitor', transitions.map((t) => t.state.result ?? 'inconclusive'))
  const writes = rows.flatMap((row, i) => (mustWrite(row.s, transitions[i]!, pass) ? [i] : []))
  if (writes.length) {
    await deps.db.begin(async (tx) => {
      // A commit lost in a crash loses a state and its events together; the domain is checked again.
      await asyncCommit(tx)
      await record(tx, deps, writes.map((i) => rows[i]!), writes.map((i) => transitions[i]!), pass)
    })
  }
  return rows.length
}

/** Slot ranges (lo, hi] within the hour that came round in (from, to], in the order they came. */
function slotRanges(from: Date, to: Date): [number, number][] {
  const a = ((from.getTime() % EVERY_MS) + EVERY_MS) % EVERY_MS
  const b = ((to.getTime() % EVERY_MS) + EVERY_MS) % EVERY_MS
  if (to.getTime() <= from.getTime()) return []
  if (a < b) return [[a, b]]
  return [[a, EVERY_MS - 1], [-1, b]]
}

async function sweepLocked(deps: MonitorDeps, budgetMs: number): Promise<number> {
  const until = performance.now() + budgetMs
  const now = deps.clock.now()
  const from = await sweepWatermark(deps.db)
  const pass: Pass = { from, now, catchUp: from !== null && now.getTime() - from.getTime() >= EVERY_MS }
  // Connections that went live since the last sweep are enrolled from their events; a full
  // reconciliation, which reads every live connection, runs once an hour as the safety net.
  if (!from || Math.floor(from.getTime() / EVERY_MS) !== Math.floor(now.getTime() / EVERY_MS)) await enrolLive(deps)
  else await enrolAnnounced(deps, from)
  const check = (b: StateRow[]) => checkBatch(deps, b, pass)
  const lanes = { lanes: LANES, batch: BATCH, until }

  // First checks, oldest enrolment first (each leaves the partial index it was found through).
  const first = await drainRounds(
    (_, limit) => neverChecked(deps.db, limit),
    check,
    lanes,
  )
  let total = first.handled
  if (first.outOfTime) return total
  // Repairs the host asked to be tried again by now (Retry-After), before their next hourly slot.
  const retries = await drainRounds((_, limit) => retriesDue(deps.db, now, limit), check, lanes)
  total += retries.handled
  if (retries.outOfTime) return total
  let sweptTo = now
  if (from) {
    for (const [lo, hi] of pass.catchUp ? ([[-1, EVERY_MS - 1]] as [number, number][]) : slotRanges(from, now)) {
      const r = await drainRounds(
        (after, limit) => statesInSlots(deps.db, lo, hi, after, limit),
        check,
        { ...lanes, resumes: true },
      )
      total += r.handled
      if (r.outOfTime) {
        // Out of time: a catch-up starts over next time (what it wrote is recent, so not due again);
        // otherwise the watermark stops just before the last slot reached, which is taken again.
        if (pass.catchUp || !r.last) return total
        sweptTo = new Date(slotAtOrBefore(r.last.slot_ms, now.getTime()) - 1)
        break
      }
    }
  }
  await setSweptTo(deps.db, sweptTo)
  return total
}

/** Checks everything due; returns how many domains it checked, or 0 at once when another sweep runs. */
export const sweepMonitor = (deps: MonitorDeps, budgetMs = 55_000): Promise<number> => alone(deps.db, SWEEP_LOCK, () => sweepLocked(deps, budgetMs))

/** The pg-boss registration: wakes every minute; each domain comes due once an hour. */
export function monitorSweep(deps: MonitorDeps): Sweep {
  return { queue: MONITOR_QUEUE, cron: '* * * * *', drain: () => sweepMonitor(deps) }
}
