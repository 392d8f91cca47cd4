// Writing a connection's desired records into a provider zone through its rail, and taking them out
// again: the lease that keeps two writers apart, the provider calls, the removal plan and the
// disconnect. What to write is decided by the pure planner in record-plan.ts.
import type { Sql } from '../db/sql.ts'
import { isOpenConnection, markWritten, releaseRailLease, setApplied, setRailError, takeRailLease } from '../db/rail-writes.ts'
import { relativeHost } from './hostnames.ts'
import type { Clock } from '../clock.ts'
import { chooseZone, ProviderError, type DnsProvider, type Zone } from '../adapters/dns-providers/index.ts'
import { writeOrRestore } from '../adapters/dns-providers/restore.ts'
import { canonicalName, type RRset, type WriteRollback } from '../adapters/dns-providers/types.ts'
import type { Dns } from '../adapters/dns.ts'
import { DEFAULT_TTL } from './records.ts'
import { ApiError } from '../errors.ts'
import { lockStatus, type ConnectionRow, type RailRow } from '../db/connections.ts'
import type { EventData } from './events.ts'
import { diagnosisOf, openProvider, providerFailure, type Credential, type RailDeps } from './provider-accounts.ts'
import { markDisconnected } from './connect.ts'
import { changeStatus } from './status-changes.ts'
import { providerById } from './providers.ts'
import { isTestDomain, testDnsProvider } from './test-mode.ts'

import { keyOf, planApply, planRevert, replacedRecords, type AppliedEntry, type ApplyPlan, type ReplacedSet, type RevertNote, type RevertPlan } from './record-plan.ts'

/** What a connection keeps of its last automatic write (column `connections.applied`). */
export interface AppliedState {
  provider: string
  zone: Zone
  /** PowerDNS: the API URL written through (not secret). */
  api_url: string | null
  entries: AppliedEntry[]
}

/** A connection as the rails read it, with what they applied. */
export type RailConnection = RailRow<AppliedState>

export interface ApplyDeps extends RailDeps {
  db: Sql
  clock: Clock
}

/**
 * The zone of `domain` among those the credential reaches: at or below the registrable domain, never a
 * public suffix above it; of several with that name, the one the delegation points at (`chooseZone`).
 */
export async function findZone(provider: DnsProvider, domain: string, apex: string, dns?: Dns): Promise<Zone> {
  const zones = (await provider.listZones()).filter((z) => z.name === apex || z.name.endsWith('.' + apex))
  const delegation = async (zoneName: string) => {
    if (!dns) return null
    const ns = await dns.lookup(zoneName, 'NS')
    return ns.status === 'ok' ? ns.values : null
  }
  const zone = await chooseZone(provider, zones, domain, delegation)
  if (!zone) throw new ProviderError('zone_not_found', `no zone for ${domain} is reachable with this credential`)
  return zone
}

export interface RailWrite {
  row: RailConnection
  changed: boolean
  zone: Zone
  /** The desired records actually created or changed (`updated_objects`). */
  updated: EventData<'connection.applied'>['updated_objects']
  /** Values in the zone the write took away that Portico had not written (the customer's own, including
   * ones set since an earlier write: those are now the priors a disconnect restores). */
  replaced: ReplacedSet[]
}

export interface RailOptions {
  accountId: string | null
  managed: boolean
  rail: 'api' | 'oauth'
  /**
   * Whether this write announces itself: true for the apply rails (a write that changes something, or
   * the first, is `records_written`, whose event the transition table names), false for a write again
   * through a kept grant (`records_rewritten`; re-apply announces its own once re-verified).
   */
  announce: boolean
  via?: 'automatic' | 'async'
  /**
   * Called with the plan before anything is written (or recorded); it may refuse by throwing. An
   * agent's apply uses it to show its person the records the write would replace (person-confirm.ts).
   */
  beforeWrite?: (replaced: ReplacedSet[]) => Promise<void>
}

/**
 * Writes a connection's desired records through a provider: reads the zone, plans, records the priors
 * on the connection before writing (so a write that dies halfway can still be reverted), writes, then
 * marks the connection written by this rail. A provider failure records the diagnosis and is thrown
 * as the contract's error.
 */
export async function writeThroughRail(deps: ApplyDeps, conn: RailConnection, cred: Credential, opts: RailOptions): Promise<RailWrite> {
  const c = await takeLease(deps, conn)
  try {
    return await writeLeased(deps, c, cred, opts)
  } finally {
    await releaseLease(deps, c.id)
  }
}

export const LEASE_MS = 60_000

/**
 * Takes the connection's rail lease (one provider write at a time per connection) and answers the
 * connection as it is now, so the priors an earlier write recorded are the ones planned against.
 */
export async function takeLease(deps: ApplyDeps, c: { id: string }): Promise<RailConnection> {
  const now = deps.clock.now()
  const row = await takeRailLease<AppliedState>(deps.db, c, now, new Date(now.getTime() + LEASE_MS))
  if (!row) {
    if (!(await isOpenConnection(deps.db, c))) throw new ApiError('not_found', 'Connection not found')
    throw new ApiError('conflict', 'Another write to this domain\'s records is in progress; try again shortly', { reason: 'write_in_progress' }, { headers: { 'retry-after': '5' } })
  }
  return row
}

export async function releaseLease(deps: ApplyDeps, id: string): Promise<void> {
  await releaseRailLease(deps.db, id)
}

async function writeLeased(deps: ApplyDeps, c: RailConnection, cred: Credential, opts: RailOptions): Promise<RailWrite> {
  let plan: ApplyPlan | undefined
  let zone: Zone | undefined
  let replaced: ReplacedSet[]
  try {
    // A test domain's writes go to the test provider, which reaches no one (src/domain/test-mode.ts).
    const provider = isTestDomain(c.domain) ? testDnsProvider(c.domain) : await openProvider(deps, cred)
    zone = await findZone(provider, c.domain, c.apex_domain, isTestDomain(c.domain) ? undefined : deps.dns)
    const current = await provider.readRecords(zone)
    const previous = c.applied && c.applied.zone.name === zone.name && c.applied.provider === cred.provider ? c.applied.entries : []
    plan = planApply(current, c.desired_records, c.apex_domain, previous, provider)
    replaced = withLost(replacedRecords(current, plan, previous), previous, plan, current)
    if (opts.beforeWrite) await opts.beforeWrite(replaced)
    const state: AppliedState = { provider: cred.provider, zone, api_url: cred.apiUrl ?? null, entries: plan.entries }
    // The priors, committed before the provider is written to (with the operation's audit row).
    await deps.db.begin((tx) => setApplied(tx, c, state))
    await writeOrRestore(provider, zone, plan.changes, current)
  } catch (err) {
    const e = providerFailure(err, cred.provider, c.domain)
    const rb = err instanceof ProviderError ? err.rollback : undefined
    // A write refused midway and put back (wholly or in part): the connection keeps what is true now.
    const kept = rb && plan && zone ? appliedAfterRefusal(c, { provider: cred.provider, zone, api_url: cred.apiUrl ?? null, entries: plan.entries }, rb) : undefined
    const code = diagnosisOf(e) ?? (rb?.not_restored.length ? 'dns_write_failed' : null)
    if (code || kept !== undefined) {
      await deps.db.begin(async (tx) => {
        if (kept !== undefined) await setApplied(tx, c, kept)
        if (code) await setRailError(tx, c, code, e.title, deps.clock.now())
      })
    }
    throw e
  }
  const changed = plan.changes.length > 0
  const updated = plan.updated.map((u) => ({ type: u.type, host: relativeHost(u.name, c.apex_domain), name: u.name, value: u.value }))
  const now = deps.clock.now()
  // Announced (`records_written`) when the rail announces its writes and this one changed something or
  // was the first; otherwise `records_rewritten` (src/domain/transitions.ts decides what each does).
  const cause = opts.announce && (changed || c.applied_at === null) ? 'records_written' : 'records_rewritten'
  const row = await deps.db.begin(async (tx) => {
    const from = await lockStatus(tx, c)
    const fresh = from && (await changeStatus(tx, c, cause, now, (s) => markWritten<AppliedState>(tx, c, { rail: opts.rail, managed: opts.managed, accountId: opts.accountId, changed }, s, now), { updated_objects: updated, via: opts.via, ...(replaced.length ? { replaced } : {}) }, from))
    if (!fresh || fresh === c) throw new ApiError('not_found', 'Connection not found')
    return fresh
  })
  return { row, changed, zone, updated, replaced }
}

/**
 * Takes a connection's records out through a provider; throws the provider failure as an ApiError. A
 * revert the host refused midway that left sets changed is kept on the connection as a refused apply's
 * is (appliedAfterRefusal), so the disconnect sent again writes the customer's values back, and the
 * answer names what the revert was putting back there (the customer's values), not Portico's.
 */
export async function revertThroughRail(deps: ApplyDeps, c: RailConnection, cred: Credential): Promise<RevertPlan> {
  const applied = c.applied!
  let plan: RevertPlan | undefined
  try {
    const provider = isTestDomain(c.domain) ? testDnsProvider(c.domain) : await openProvider(deps, cred)
    const current = await provider.readRecords(applied.zone)
    plan = planRevert(current, applied.entries)
    await writeOrRestore(provider, applied.zone, plan.changes, current)
    return plan
  } catch (err) {
    const rb = err instanceof ProviderError ? err.rollback : undefined
    if (!rb?.not_restored.length || !plan) throw providerFailure(err, cred.provider, c.domain)
    const kept = appliedAfterRefusal(c, applied, rb)
    const names = new Set(rb.not_restored.map((u) => keyOf(u.name, '')))
    // At every name left changed: each set the revert was putting the customer's values back into (with
    // them), or, where the customer had none there, each set it was writing.
    const at = plan.changes.filter((ch) => names.has(keyOf(ch.name, '')))
    const theirs = at.filter((ch) => ch.values.length > 0)
    const missing = (theirs.length ? theirs : at).map((ch) => ({ name: canonicalName(ch.name), type: ch.type, ttl: ch.values.length ? ch.ttl : null, values: [...ch.values].sort() }))
    const e = providerFailure(Object.assign(err as ProviderError, { rollback: { restored: rb.restored, not_restored: missing } }), cred.provider, c.domain, 'disconnect')
    await deps.db.begin(async (tx) => {
      await setApplied(tx, c, kept)
      await setRailError(tx, c, 'dns_write_failed', e.title, deps.clock.now())
    })
    throw e
  }
}

/**
 * The customer's values an earlier write refused midway took out and could not put back (its entries
 * kept `not_restored`, their `prior` what the zone held): the write that now completes takes their
 * place, so it names them among `replaced` as the first would have (issue 46), beside what
 * `replacedRecords` finds in the zone as it stands.
 */
function withLost(replaced: ReplacedSet[], previous: AppliedEntry[], plan: ApplyPlan, current: RRset[]): ReplacedSet[] {
  const out = new Map(replaced.map((r) => [keyOf(r.name, r.type), { ...r, values: [...r.values] }]))
  for (const e of previous) {
    if (!e.not_restored || !e.prior?.values.length) continue
    const k = keyOf(e.name, e.type)
    const change = plan.changes.find((c) => keyOf(c.name, c.type) === k)
    if (!change) continue
    const now = current.find((s) => keyOf(s.name, s.type) === k)?.values ?? []
    const gone = e.prior.values.filter((v) => !change.values.includes(v) && !now.includes(v))
    if (!gone.length) continue
    const r = out.get(k) ?? { name: canonicalName(e.name), type: e.type, values: [] }
    r.values = [...new Set([...r.values, ...gone])].sort()
    out.set(k, r)
  }
  return [...out.values()].sort((a, b) => (a.name + a.type).localeCompare(b.name + b.type))
}

/**
 * What a connection keeps after a write its host refused midway (issue 46): the sets that were put back
 * are as the earlier apply left them, so its entries stand; a set that could not be put back keeps this
 * write's entry (its prior: the customer's values) marked `not_restored`, so a disconnect puts it back
 * and nothing claims Portico's values were ever there. Null: nothing of Portico's is in the zone.
 */
export function appliedAfterRefusal(c: RailConnection, attempted: AppliedState, rb: WriteRollback): AppliedState | null {
  const same = c.applied && c.applied.zone.name === attempted.zone.name && c.applied.provider === attempted.provider
  const previous = same ? c.applied!.entries : []
  const lost = new Map(rb.not_restored.map((u) => [keyOf(u.name, u.type), u]))
  const entries = previous.filter((e) => !lost.has(keyOf(e.name, e.type)))
  for (const [k, u] of lost) {
    const e = attempted.entries.find((x) => keyOf(x.name, x.type) === k) ?? previous.find((x) => keyOf(x.name, x.type) === k)
    const prior = u.values.length ? { ttl: u.ttl ?? DEFAULT_TTL, values: u.values } : null
    entries.push({ ...(e ?? { name: u.name, type: u.type, change: prior ? 'replaced' : 'created', prior, written: { ttl: u.ttl ?? DEFAULT_TTL, values: [] } }), not_restored: true })
  }
  if (entries.length === 0) return same ? null : c.applied
  return { ...attempted, entries: entries.sort((a, b) => (a.name + a.type).localeCompare(b.name + b.type)) }
}

function splitMx(type: string, v: string): { value: string; priority: number | null } {
  if (type !== 'MX') return { value: v, priority: null }
  const [p, h] = v.split(' ')
  return { value: h ?? v, priority: Number(p) }
}

/** The removal plan (the API contract, section 2) of a connection whose records a rail wrote. */
export function removalPlan(c: RailConnection, now: Date, why: string) {
  const applied = c.applied!
  const provider = providerById(applied.provider)
  const records = applied.entries.flatMap((e) => {
    // A set a refused write left without Portico's values or the customer's: only the customer's go back.
    const back = e.change === 'removed' || !!e.not_restored
    const values = back ? (e.prior?.values ?? []) : e.change === 'merged' ? [...(e.added ?? []), ...(e.spf ? [e.spf.written_value] : [])] : e.written.values
    return values.map((v) => {
      const { value, priority } = splitMx(e.type, v)
      return {
        type: e.type,
        host: relativeHost(e.name, c.apex_domain),
        name: e.name,
        value,
        ttl: e.written.ttl,
        priority,
        change: e.change,
        action: back ? 'restore' : 'delete',
        prior: (e.prior?.values ?? []).map((pv) => ({ type: e.type, ...splitMx(e.type, pv), ttl: e.prior!.ttl })),
        prior_source: 'provider',
        note:
          e.not_restored
            ? 'a write of Portico\'s the provider refused midway left it removed; put it back'
            : e.change === 'removed'
              ? 'removed by Portico because it stood in the way; put it back'
              : e.change === 'merged'
                ? 'added by Portico beside existing values; remove only this value'
                : e.prior
                  ? 'replaced by Portico; set it back to the prior values'
                  : 'created by Portico; delete it',
      }
    })
  })
  const steps = records.map((r) =>
    r.action === 'restore'
      ? `At ${provider?.name ?? 'your DNS provider'}, add back the ${r.type} record ${r.name} → ${r.value}`
      : r.prior.length && r.change === 'replaced'
        ? `At ${provider?.name ?? 'your DNS provider'}, set the ${r.type} record ${r.name} back to ${r.prior.map((p) => p.value).join(', ')}`
        : `At ${provider?.name ?? 'your DNS provider'}, delete the ${r.type} record ${r.name} → ${r.value}`,
  )
  return {
    connection_id: c.id,
    domain: c.domain,
    provider: applied.provider,
    provider_name: provider?.name ?? applied.provider,
    connected_via: c.rail,
    access: 'kept',
    access_detail: why,
    record_removal: 'automatic',
    default_choice: 'remove',
    reauthorize: { methods: ['sign_in', 'credential'], provider: applied.provider, flow: c.rail === 'oauth' ? 'oauth' : 'api_credential', regions: [] as string[] },
    records_in_use_elsewhere: false,
    records,
    manual_steps: steps,
    notes: ['Resend the disconnect with `credential` (a DNS-provider API key, used once and never stored) to remove the records automatically, or remove them by hand with the steps.'],
    teardown: ['serving: stop', 'certificate: remove', 'monitoring: stop'],
    removal_started_at: now.toISOString(),
    removed: false,
    removed_at: null,
    result: null,
  }
}

/**
 * The revert of a connection whose zone the host no longer has (deleted there, the account gone, or the
 * zone moved where this credential does not reach): nothing can be written, so every set Portico wrote
 * or removed is left as it is and named with the values it held before connecting, and the removal
 * plan's steps say what to do by hand wherever the zone lives now. The disconnect still finishes.
 */
export function unreachedRevert(c: RailConnection, now: Date, asked = false): RevertPlan {
  const applied = c.applied!
  const name = providerById(applied.provider)?.name ?? applied.provider
  const why = asked
    ? `Disconnected with leave_records: nothing was changed in the zone ${applied.zone.name} at ${name}. Do these by hand:`
    : `The zone ${applied.zone.name} (${applied.zone.id}) is no longer reachable at ${name} (deleted there, or the credential reaches another account); nothing was changed there. If the zone lives on elsewhere, do these by hand:`
  const cause = asked ? 'left as asked (leave_records)' : 'the zone could not be reached'
  const left: RevertNote[] = applied.entries.flatMap((e) => {
    const prior_values = e.prior?.values ?? []
    if (e.change === 'removed') return [{ type: e.type, name: e.name, value: '', note: `removed by Portico; ${cause}, so it was not put back`, prior_values }]
    // A write the host refused midway left the set without Portico's values and without the customer's.
    if (e.not_restored) return [{ type: e.type, name: e.name, value: '', note: `a write of Portico's the provider refused midway left this set changed: it holds neither Portico's values nor what it held before connecting; ${cause}`, prior_values }]
    const ours = e.change === 'merged' ? [...(e.added ?? []), ...(e.spf ? [e.spf.written_value] : [])] : e.written.values
    return ours.map((value) => ({ type: e.type, name: e.name, value, note: `written by Portico; ${cause}, so it was not taken out`, prior_values }))
  })
  return { changes: [], removed: [], restored: [], left_in_place: left, unreached: { manual_steps: [why, ...removalPlan(c, now, why).manual_steps] } }
}

/** Marks a connection disconnected after its records were reverted through the rail. */
export async function disconnectReverted(sql: Sql, c: ConnectionRow, now: Date, plan: RevertPlan, via: string) {
  const outcome = {
    connection_id: c.id,
    domain: c.domain,
    disconnected: true as const,
    records: {
      choice: 'remove' as const,
      outcome: plan.unreached ? ('manual' as const) : ('removed' as const),
      via,
      removed: plan.removed,
      restored: plan.restored,
      left_in_place: plan.left_in_place,
      failed: [] as RevertNote[],
      manual_steps: plan.unreached?.manual_steps ?? [...new Map(plan.left_in_place.map((r) => [`${r.name}|${r.type}`, r])).values()].map(
        (r) => `${r.name} ${r.type} was changed at the provider after Portico wrote it; check it by hand (${r.prior_values?.length ? `before connecting it held ${r.prior_values.join(', ')}` : 'it did not exist before connecting'})`,
      ),
    },
    serving: 'stopped' as const,
    certificate: 'removed' as const,
    monitoring: 'stopped' as const,
  }
  await markDisconnected(sql, c, outcome, now)
  return outcome
}
