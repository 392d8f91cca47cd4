// Monitor (the API contract, sections 2, 4 and 6): a live connection's desired records are its baseline,
// compared against live DNS record set by record set. The verdicts:
// - `record_missing`: the name has none of the values at that type, or only some of the expected ones;
// - `record_changed`: the name answers at that type, but none of its values is ours (repointed);
// - `extra_value`: every expected address is there beside others, so traffic is split (A and AAAA only;
//   other TXT, MX or CAA values beside ours are normal).
// A resolver failure is never a verdict: the check is inconclusive and the known state is kept, so a
// flaky resolver neither raises nor clears an alert.
// Invariants: drift events are computed from the previous and the new state only (an item alerted
// once is not alerted again until it was restored); the attention rank is a pure function of the state.
import type { Dns, Lookup, LookupType } from '../adapters/dns.ts'
import { absoluteHost } from './hostnames.ts'
import { isApexPointer, type DnsRecord } from './records.ts'
import type { ConnectionRow } from '../db/connections.ts'
import type { DriftItem, MonitorAction, MonitorState, Verdict } from '../db/monitor.ts'

export type RecordStatus = 'ok' | Verdict | 'inconclusive'

export interface BaselineRecord {
  type: string
  host: string
  value: string
  priority?: number
}

export interface RecordCheck {
  type: string
  host: string
  value: string
  observed: string[]
  status: RecordStatus
}

export interface Comparison {
  result: 'ok' | 'drift' | 'inconclusive'
  drift: DriftItem[]
  records: RecordCheck[]
  error?: string
}

/** How often each watched domain is checked (the API contract, section 8: the monitor sweep is hourly). */
export const EVERY_MS = 3_600_000
export const EVERY = '1h'

const norm = (v: string) => v.trim().toLowerCase().replace(/\.$/, '')

/** The comparable form of one expected value, as lookups return it (src/adapters/dns.ts). */
function expectedValue(r: BaselineRecord): string {
  if (r.type === 'TXT') return r.value
  if (r.type === 'MX') return `${r.priority ?? 10} ${norm(r.value)}`
  return norm(r.value)
}

function spfTerms(v: string): string[] {
  return v.replace(/^v=spf1\s*/i, '').toLowerCase().split(/\s+/).filter((t) => t && !/^[~?+-]?all$/.test(t))
}

interface GroupOutcome {
  verdict: Verdict | 'ok' | 'inconclusive'
  observed: string[]
  present: (r: BaselineRecord) => boolean
  error?: string
}

const failed = (l: Lookup): string | undefined => (l.status === 'error' ? l.error : undefined)
const inconclusive = (error: string): GroupOutcome => ({ verdict: 'inconclusive', observed: [], present: () => false, error })

/** An apex CNAME is flattened by the provider (ALIAS/ANAME): the apex must answer the target's addresses. */
async function checkFlattened(dns: Dns, name: string, target: string): Promise<GroupOutcome> {
  const [mine, theirs] = await Promise.all([dns.lookup(name, 'A'), dns.lookup(target, 'A')])
  const error = failed(mine) ?? failed(theirs)
  if (error) return inconclusive(error)
  const observed = mine.status === 'ok' ? mine.values : []
  const targetIps = new Set(theirs.status === 'ok' ? theirs.values : [])
  const ok = observed.length > 0 && observed.every((ip) => targetIps.has(ip))
  const verdict = observed.length === 0 ? 'record_missing' : ok ? 'ok' : 'record_changed'
  return { verdict, observed, present: () => ok }
}

async function checkSpf(dns: Dns, name: string, wanted: BaselineRecord[]): Promise<GroupOutcome> {
  const l = await dns.lookup(name, 'TXT')
  if (l.status === 'error') return inconclusive(l.error)
  const spf = (l.status === 'ok' ? l.values : []).filter((t) => /^v=spf1(\s|$)/i.test(t))
  const have = new Set(spf.flatMap(spfTerms))
  const present = (r: BaselineRecord) => spfTerms(r.value).every((t) => have.has(t))
  const verdict = wanted.every(present) ? 'ok' : spf.length === 0 ? 'record_missing' : 'record_changed'
  return { verdict, observed: spf, present }
}

async function checkRrset(dns: Dns, name: string, type: LookupType, wanted: BaselineRecord[]): Promise<GroupOutcome> {
  const l = await dns.lookup(name, type)
  if (l.status === 'error') return inconclusive(l.error)
  const observed = l.status === 'ok' ? l.values : []
  const seen = new Set(type === 'TXT' ? observed : observed.map(norm))
  const present = (r: BaselineRecord) => seen.has(expectedValue(r))
  const found = wanted.filter(present).length
  let verdict: GroupOutcome['verdict']
  if (observed.length === 0) verdict = 'record_missing'
  else if (found === 0) verdict = type === 'CNAME' || type === 'A' || type === 'AAAA' ? 'record_changed' : 'record_missing'
  else if (found < wanted.length) verdict = 'record_missing'
  else if ((type === 'A' || type === 'AAAA') && seen.size > new Set(wanted.map(expectedValue)).size) verdict = 'extra_value'
  else verdict = 'ok'
  return { verdict, observed, present }
}

function checkGroup(dns: Dns, apex: string, host: string, type: string, wanted: BaselineRecord[]): Promise<GroupOutcome> {
  const name = absoluteHost(host, apex)
  if (isApexPointer({ type, host })) return checkFlattened(dns, name, norm(wanted[0]!.value))
  if (type === 'SPFM') return checkSpf(dns, name, wanted)
  return checkRrset(dns, name, type as LookupType, wanted)
}

/**
 * Compares a baseline with live DNS: one lookup per record set (host and type), in parallel. REDIR301
 * is served by the edge and has nothing to see in DNS.
 */
export async function compareBaseline(dns: Dns, apex: string, baseline: BaselineRecord[]): Promise<Comparison> {
  const groups = new Map<string, { host: string; type: string; records: BaselineRecord[] }>()
  for (const r of baseline) {
    if (r.type === 'REDIR301') continue
    const host = r.host.toLowerCase()
    const key = `${host}\u0000${r.type}`
    const g = groups.get(key) ?? { host, type: r.type, records: [] }
    g.records.push(r)
    groups.set(key, g)
  }
  const list = [...groups.values()]
  const outcomes = await Promise.all(list.map((g) => checkGroup(dns, apex, g.host, g.type, g.records)))
  const drift: DriftItem[] = []
  const records: RecordCheck[] = []
  let error: string | undefined
  list.forEach((g, i) => {
    const o = outcomes[i]!
    error ??= o.error
    if (o.verdict !== 'ok' && o.verdict !== 'inconclusive') {
      drift.push({ subdomain: g.host, type: g.type, verdict: o.verdict, expected: g.records.map((r) => r.value), observed: o.observed })
    }
    for (const r of g.records) {
      const status: RecordStatus = o.verdict === 'inconclusive' ? 'inconclusive' : o.present(r) ? (o.verdict === 'extra_value' ? 'extra_value' : 'ok') : o.verdict === 'ok' ? 'record_missing' : o.verdict
      records.push({ type: r.type, host: r.host, value: r.value, observed: o.observed, status })
    }
  })
  if (error) return { result: 'inconclusive', drift, records, error }
  return { result: drift.length ? 'drift' : 'ok', drift, records }
}

// ---- State after a check ----------------------------------------------------------------------

/** What a repair rail did for a drifted managed connection. */
export interface RepairOutcome {
  fixed: boolean
  detail: string
  /** Values the repair took out that Portico had not written (the customer's since), as `:reapply` names them. */
  replaced?: { name: string; type: string; values: string[] }[]
  /** A refusal the host called temporary: seconds until the repair may be tried again (its Retry-After). */
  retryAfter?: number
  /** A repair refused midway: the sets it left changed and could not put back, with the values they held. */
  not_restored?: { name: string; type: string; ttl: number | null; values: string[] }[]
}

/**
 * Re-applies a managed connection's records through the grant it was connected with. The managed
 * rails (issue 6) implement it; until one is wired, managed connections with drift need a person too.
 */
export interface RepairRail {
  via: 'managed_dns'
  repair(c: ConnectionRow, drift: DriftItem[]): Promise<RepairOutcome>
}

export const NO_RAIL_DETAIL = 'No automatic repair rail is wired on this deployment; put the records back at the DNS provider.'
export const MANUAL_DETAIL = 'The records were set up by hand; put them back at the DNS provider.'

/** Attention rank for "attention-first" listings: action required, drift, inconclusive, the rest. */
export function rankOf(s: Pick<MonitorState, 'result' | 'attention'>): number {
  if (s.attention) return 0
  if (s.result === 'drift') return 1
  if (s.result === 'inconclusive') return 2
  return 3
}

/** Missing and repointed records are alerted (the API contract, section 6); a split is shown, not alerted. */
const alerted = (d: DriftItem) => d.verdict === 'record_missing' || d.verdict === 'record_changed'
const itemKey = (d: DriftItem) => `${d.subdomain}\u0000${d.type}`

export interface Transition {
  state: MonitorState
  missing: DriftItem[]
  restored: DriftItem[]
  history: { kind: 'drift' | 'restored' | 'auto_fixed' | 'repair_failed'; detail: Record<string, unknown> }[]
  /** When the repair is tried again: the host's Retry-After after a temporary refusal; null otherwise. */
  retryAt: Date | null
}

/**
 * The state after a check. `repair` is what a repair rail did this check (null when none ran); when it
 * fixed the drift, `cmp` is the comparison made after the repair.
 */
export function afterCheck(prev: MonitorState, cmp: Comparison, now: Date, managed: boolean, railWired: boolean, repair: RepairOutcome | null): Transition {
  const history: Transition['history'] = []
  if (repair?.fixed) history.push({ kind: 'auto_fixed', detail: { description: repair.detail, ...(repair.replaced?.length ? { replaced: repair.replaced } : {}) } })
  else if (repair) history.push({ kind: 'repair_failed', detail: { description: repair.detail, ...(repair.not_restored?.length ? { not_restored: repair.not_restored } : {}) } })
  // The host said when to try again: the next check is then, not at the domain's next hourly slot.
  const retryAt = repair && !repair.fixed && repair.retryAfter !== undefined ? new Date(now.getTime() + Math.max(repair.retryAfter, 1) * 1000) : null
  const action: MonitorAction | null = repair?.fixed ? { kind: 'auto_fixed', at: now.toISOString(), description: repair.detail } : prev.action
  if (cmp.result === 'inconclusive') {
    return { state: { ...prev, result: 'inconclusive', action, error: cmp.error ?? 'resolver failure' }, missing: [], restored: [], history, retryAt }
  }
  const before = new Map(prev.drift.filter(alerted).map((d) => [itemKey(d), d]))
  const after = new Map(cmp.drift.filter(alerted).map((d) => [itemKey(d), d]))
  const missing = [...after.values()].filter((d) => !before.has(itemKey(d)))
  const restored = [...before.values()].filter((d) => !after.has(itemKey(d)))
  if (missing.length) history.push({ kind: 'drift', detail: { records: missing } })
  if (restored.length) history.push({ kind: 'restored', detail: { records: restored } })
  if (cmp.result === 'ok') {
    return { state: { result: 'ok', drift: [], drift_since: null, attention: null, action, repair_detail: null, error: null }, missing, restored, history, retryAt }
  }
  const detail = repair && !repair.fixed ? repair.detail : managed && !railWired ? NO_RAIL_DETAIL : managed ? null : MANUAL_DETAIL
  return {
    state: { result: 'drift', drift: cmp.drift, drift_since: prev.drift_since ?? now, attention: 'action_required', action, repair_detail: detail, error: null },
    missing,
    restored,
    history,
    retryAt,
  }
}

// ---- Scheduling -----------------------------------------------------------------------------------

/** A stable offset within the hour for a connection (FNV-1a of its id), so checks spread evenly. */
export function slotOffsetMs(id: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h % EVERY_MS
}

/**
 * The least gap between two checks of one domain: a first check (at enrolment) or a late sweep is not
 * followed by another a few seconds later, while a sweep up to 50 minutes late keeps the hourly slot.
 */
export const MIN_GAP_MS = 600_000

/** The last instant at or before `ms` at the slot `offset` within the hour. */
export const slotAtOrBefore = (offset: number, ms: number): number => Math.floor((ms - offset) / EVERY_MS) * EVERY_MS + offset

// The sweep writes a domain's state only when something changed (its first check, drift, a repair,
// a restore); an unchanged check leaves no trace on the row. What the sweep has covered is one
// watermark, `swept_to`: every slot of every watched domain up to it was checked, except slots
// within MIN_GAP_MS of a written check. A domain's count, last and next check follow from its last
// written check and the watermark.

/** How many times this slot came round in (from, to]. */
export function slotsBetween(offset: number, fromMs: number, toMs: number): number {
  if (toMs <= fromMs) return 0
  return Math.floor((toMs - offset) / EVERY_MS) - Math.floor((fromMs - offset) / EVERY_MS)
}

export interface Schedule {
  checked: number
  last_checked_at: Date | null
  next_check_at: Date
}

/**
 * A watched domain's schedule from its slot (`offset` within the hour), its last written check
 * (`checked` checks, the last at `lastWritten`; null before its first) and the sweep's watermark. A
 * domain never checked is due at once (`enrolledAt`).
 */
export function scheduleOf(offset: number, checked: number, lastWritten: Date | null, sweptTo: Date | null, enrolledAt: Date): Schedule {
  if (!lastWritten) return { checked, last_checked_at: null, next_check_at: enrolledAt }
  const earliest = lastWritten.getTime() + MIN_GAP_MS
  const w = sweptTo?.getTime() ?? 0
  const since = slotsBetween(offset, earliest, w)
  return {
    checked: checked + since,
    last_checked_at: since > 0 ? new Date(slotAtOrBefore(offset, w)) : lastWritten,
    next_check_at: new Date(slotAtOrBefore(offset, Math.max(w, earliest)) + EVERY_MS),
  }
}

/** The baseline a connection is watched against: its desired records. */
export const baselineOf = (c: Pick<ConnectionRow, 'desired_records'>): BaselineRecord[] => c.desired_records as DnsRecord[]
