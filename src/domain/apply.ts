// Writing a connection's desired records into a provider zone, and taking them out again (issue 6,
// CONTRACT.md sections 2 and 4: "keeping existing CAA and TXT values and recording what was replaced").
// The rules, per record set (name and type) the desired records touch:
// - CNAME below the apex: a CNAME cannot share its name (RFC 1034 §3.6.2), so every other set at that
//   name is removed (and recorded); the CNAME set becomes the desired target. At the apex (providers
//   that flatten a CNAME there) only the A and AAAA sets are removed; MX, TXT, CAA and NS stay.
//   Providers that cannot flatten refuse the write, which is `dns_write_failed`.
// - A, AAAA, MX, NS: the set is replaced by the desired values; a CNAME at the name is removed; beside
//   desired A records an AAAA set is removed (it would send IPv6 clients elsewhere; the domain check
//   lists it as a conflict to remove).
// - TXT and CAA: merged. Existing values are kept and ours are added (a CAA set narrows which CAs may
//   issue; a TXT set carries other verifications).
// - SPFM: merged into the existing SPF TXT value (`v=spf1 …`) before its `all`/`redirect=` term, or a
//   new `v=spf1 <terms> ~all` value is added. A name has at most one SPF value (RFC 7208 §3.2).
// - SOA is never touched; REDIR301 is served by the edge and has nothing in DNS.
// Every touched set is recorded as an entry with `prior` (what the provider held before Portico's
// first write; `prior_source: provider`) and `written`. Re-applying the same records finds every set
// already at its target and writes nothing. Reverting restores `prior` where the set is still what
// Portico wrote, removes only Portico's own values from merged sets, and leaves alone (and reports)
// a set someone changed since. Pure functions: the property test (test/property) runs them on random
// zones, and the provider rail runs them against real zones.
import { canonicalName, canonicalValue, type RRset, type RRsetChange } from '../adapters/dns-providers/types.ts'
import { absoluteHost } from './hostnames.ts'
import { DEFAULT_TTL, type DnsRecord } from './records.ts'
import type { Sql } from '../db/sql.ts'
import type { Clock } from '../clock.ts'
import { ProviderError, zoneFor, type DnsProvider, type Zone } from '../adapters/dns-providers/index.ts'
import { ApiError } from '../errors.ts'
import type { ConnectionRow } from './connections.ts'
import { emitForConnection, type EventType } from './events.ts'
import { diagnosisOf, openProvider, providerFailure, type AccountRow, type Credential, type RailDeps } from './provider-accounts.ts'
import { confirmMatches } from './confirm.ts'
import { markDisconnected } from './connect.ts'
import { usableCredential } from './provider-oauth.ts'
import type { Principal } from './principal.ts'
import { providerById } from './providers.ts'
import { removeThroughGrant } from './domain-connect/managed.ts'

export interface RRsetState {
  ttl: number
  values: string[]
}

export interface AppliedEntry {
  name: string
  type: string
  change: 'created' | 'replaced' | 'merged' | 'removed'
  /** The set as the provider held it before Portico's first write; null when there was none. */
  prior: RRsetState | null
  /** What Portico wrote (empty values: the set was removed). */
  written: RRsetState
  /** Merged sets (TXT, CAA): the values Portico added. */
  added?: string[]
  /** SPF merge: the terms Portico added to the SPF value, and the SPF value before and after. */
  spf?: { terms: string[]; prior_value: string | null; written_value: string }
}

export interface ApplyPlan {
  /** Record-set writes to send; empty when the zone already holds every target. */
  changes: RRsetChange[]
  entries: AppliedEntry[]
  /** The desired records actually created or changed (`updated_objects` of the events). */
  updated: { type: string; name: string; value: string }[]
}

export const keyOf = (name: string, type: string) => `${canonicalName(name)}|${type}`
const sorted = (v: string[]) => [...v].sort()
export const sameValues = (a: string[], b: string[]) => a.length === b.length && sorted(a).every((x, i) => x === sorted(b)[i])
const sameSet = (a: RRsetState | null | undefined, b: RRsetState | null | undefined) => {
  const av = a?.values ?? []
  const bv = b?.values ?? []
  if (av.length === 0 && bv.length === 0) return true
  return !!a && !!b && a.ttl === b.ttl && sameValues(av, bv)
}

export const isSpf = (v: string) => /^v=spf1(\s|$)/i.test(v)
const spfTermsOf = (v: string) => v.replace(/^v=spf1\s*/i, '').split(/\s+/).filter(Boolean)
const isFinalTerm = (t: string) => /^[+?~-]?all$/i.test(t) || /^redirect=/i.test(t)

/** Adds `terms` to an SPF value before its `all`/`redirect=` term; terms already there are not repeated. */
export function mergeSpf(existing: string | null, terms: string[]): { value: string; added: string[] } {
  const current = existing ? spfTermsOf(existing) : ['~all']
  const have = new Set(current.map((t) => t.toLowerCase()))
  const added = terms.filter((t, i) => !have.has(t.toLowerCase()) && terms.findIndex((u) => u.toLowerCase() === t.toLowerCase()) === i && !isFinalTerm(t))
  const cut = current.findIndex(isFinalTerm)
  const at = cut === -1 ? current.length : cut
  const out = [...current.slice(0, at), ...added, ...current.slice(at)]
  return { value: ['v=spf1', ...out].join(' '), added }
}

/** Takes `terms` out of an SPF value again. */
export function unmergeSpf(value: string, terms: string[]): string {
  const drop = new Set(terms.map((t) => t.toLowerCase()))
  return ['v=spf1', ...spfTermsOf(value).filter((t) => !drop.has(t.toLowerCase()))].join(' ')
}

/** A desired record's canonical value (MX carries its priority). */
function desiredValue(r: DnsRecord): string {
  if (r.type === 'MX') return canonicalValue('MX', `${r.priority ?? 10} ${r.value}`)
  return canonicalValue(r.type, r.value)
}

type ZoneSets = Map<string, RRset>

export function zoneMap(rrsets: RRset[]): ZoneSets {
  return new Map(rrsets.map((s) => [keyOf(s.name, s.type), { ...s, name: canonicalName(s.name), values: [...s.values] }]))
}

/**
 * The change set that puts `desired` (hosts relative to `apex`) into a zone holding `current`.
 * `previous` are the entries of an earlier apply of this connection: their priors are kept (the zone
 * now holds Portico's own values), and sets they touched that the new records no longer touch are
 * reverted first.
 */
export function planApply(current: RRset[], desired: DnsRecord[], apex: string, previous: AppliedEntry[] = []): ApplyPlan {
  const before = zoneMap(current)
  const next = zoneMap(current)
  const prevByKey = new Map(previous.map((e) => [keyOf(e.name, e.type), e]))

  const groups = new Map<string, { name: string; type: string; records: DnsRecord[] }>()
  for (const r of desired) {
    if (r.type === 'REDIR301') continue
    const name = canonicalName(absoluteHost(r.host, apex))
    const type = r.type === 'SPFM' ? 'TXT' : r.type
    const k = keyOf(name, type)
    const g = groups.get(k) ?? { name, type, records: [] }
    g.records.push(r)
    groups.set(k, g)
  }

  // Sets an earlier apply touched that these records no longer do go back first.
  const stale = previous.filter((e) => !groups.has(keyOf(e.name, e.type)) && !(e.change === 'removed' && removedBy(groups, e)))
  for (const c of planRevert([...next.values()], stale).changes) setSet(next, c)

  const removedKeys = new Set<string>()
  const removeAt = (name: string, types: (t: string) => boolean) => {
    for (const [k, s] of next) {
      if (s.name === name && types(s.type) && s.type !== 'SOA' && !groups.has(k)) {
        next.delete(k)
        removedKeys.add(k)
      }
    }
  }
  const spfByKey = new Map<string, { terms: string[]; prior_value: string | null; written_value: string }>()
  const addedByKey = new Map<string, string[]>()
  const updated: ApplyPlan['updated'] = []

  for (const [k, g] of groups) {
    const existing = next.get(k)
    const ttl = g.records.find((r) => r.ttl !== undefined)?.ttl ?? DEFAULT_TTL
    const isApexName = g.name === canonicalName(apex)
    if (g.type === 'CNAME') {
      // At the apex the provider flattens the CNAME: only address sets would answer beside it.
      if (!isApexName) removeAt(g.name, (t) => t !== 'CNAME')
      else removeAt(g.name, (t) => t === 'A' || t === 'AAAA')
      next.set(k, { name: g.name, type: 'CNAME', ttl, values: [desiredValue(g.records[0]!)] })
    } else if (g.type === 'TXT' || g.type === 'CAA') {
      removeAt(g.name, (t) => t === 'CNAME')
      const values = [...(existing?.values ?? [])]
      const plain = g.records.filter((r) => r.type !== 'SPFM').map(desiredValue)
      const prevAdded = prevByKey.get(k)?.added ?? []
      const added = new Set(prevAdded.filter((v) => values.includes(v)))
      for (const v of plain) {
        if (!values.includes(v)) {
          values.push(v)
          added.add(v)
        }
      }
      const spfTerms = g.records.filter((r) => r.type === 'SPFM').flatMap((r) => spfTermsOf(r.value))
      if (spfTerms.length) {
        const at = values.findIndex(isSpf)
        const priorValue = at === -1 ? null : values[at]!
        const merged = mergeSpf(priorValue, spfTerms)
        const prevSpf = prevByKey.get(k)?.spf
        const terms = [...new Set([...(prevSpf?.terms ?? []).filter((t) => priorValue && spfTermsOf(priorValue).includes(t)), ...merged.added])]
        if (at === -1) values.push(merged.value)
        else values[at] = merged.value
        spfByKey.set(k, { terms, prior_value: prevSpf ? prevSpf.prior_value : priorValue, written_value: merged.value })
      }
      addedByKey.set(k, [...added])
      next.set(k, { name: g.name, type: g.type, ttl: existing?.ttl ?? ttl, values })
    } else {
      removeAt(g.name, (t) => t === 'CNAME' || (g.type === 'A' && t === 'AAAA' && !groups.has(keyOf(g.name, 'AAAA'))))
      next.set(k, { name: g.name, type: g.type, ttl, values: [...new Set(g.records.map(desiredValue))] })
    }
  }

  // The change set: every set whose content differs from what the zone holds now.
  const changes: RRsetChange[] = []
  const keys = new Set([...before.keys(), ...next.keys()])
  for (const k of keys) {
    const a = before.get(k)
    const b = next.get(k)
    if (sameSet(a, b)) continue
    const ref = (b ?? a)!
    changes.push({ name: ref.name, type: ref.type, ttl: b?.ttl ?? a!.ttl, values: b?.values ?? [] })
    if (b && groups.has(k)) for (const v of b.values) if (!a?.values.includes(v)) updated.push({ type: b.type, name: b.name, value: v })
  }
  deletionsFirst(changes)

  // Entries: every set the records target or that was removed for them, with the earliest prior.
  const entries: AppliedEntry[] = []
  const entryKeys = new Set([...groups.keys(), ...removedKeys, ...previous.filter((e) => !stale.includes(e)).map((e) => keyOf(e.name, e.type))])
  for (const k of entryKeys) {
    const prev = prevByKey.get(k)
    const cur = before.get(k)
    const prior: RRsetState | null = prev && !stale.includes(prev) ? prev.prior : cur ? { ttl: cur.ttl, values: cur.values } : null
    const n = next.get(k)
    const [name, type] = k.split('|') as [string, string]
    const written: RRsetState = n ? { ttl: n.ttl, values: n.values } : { ttl: prior?.ttl ?? DEFAULT_TTL, values: [] }
    if (!n && !prior) continue
    const merge = type === 'TXT' || type === 'CAA'
    const change: AppliedEntry['change'] = !n ? 'removed' : !prior ? 'created' : merge && groups.has(k) ? 'merged' : 'replaced'
    const entry: AppliedEntry = { name, type, change, prior, written }
    if (merge && groups.has(k)) {
      entry.added = addedByKey.get(k) ?? []
      const spf = spfByKey.get(k)
      if (spf) entry.spf = spf
    }
    entries.push(entry)
  }
  entries.sort((a, b) => (a.name + a.type).localeCompare(b.name + b.type))
  return { changes, entries, updated }
}

/** A `removed` entry whose name still carries desired records stays removed (planApply decides again). */
function removedBy(groups: Map<string, { name: string; type: string }>, e: AppliedEntry): boolean {
  return [...groups.values()].some((g) => g.name === canonicalName(e.name))
}

function setSet(zone: ZoneSets, c: RRsetChange): void {
  const k = keyOf(c.name, c.type)
  if (c.values.length === 0) zone.delete(k)
  else zone.set(k, { name: canonicalName(c.name), type: c.type, ttl: c.ttl, values: [...c.values] })
}

export interface RevertNote {
  type: string
  name: string
  value: string
  note: string
}

export interface RevertPlan {
  changes: RRsetChange[]
  removed: RevertNote[]
  restored: RevertNote[]
  left_in_place: RevertNote[]
}

/**
 * The change set that takes an apply out of a zone holding `current`: a set still as Portico wrote it
 * goes back to its prior (or away when there was none); from a merged set someone edited since only
 * Portico's own values are taken out; any other set someone changed since is left in place and named.
 */
export function planRevert(current: RRset[], entries: AppliedEntry[]): RevertPlan {
  const zone = zoneMap(current)
  const out: RevertPlan = { changes: [], removed: [], restored: [], left_in_place: [] }
  const note = (list: RevertNote[], e: AppliedEntry, values: string[], text: string) => {
    for (const value of values) list.push({ type: e.type, name: e.name, value, note: text })
  }
  for (const e of entries) {
    const cur = zone.get(keyOf(e.name, e.type)) ?? null
    const curState = cur ? { ttl: cur.ttl, values: cur.values } : null
    const want = e.prior
    if (sameSet(curState, want)) continue // already as it was
    const put = (state: RRsetState | null) => out.changes.push({ name: e.name, type: e.type, ttl: state?.ttl ?? e.written.ttl, values: state?.values ?? [] })
    if (sameSet(curState, e.written)) {
      put(want)
      const ours = e.written.values.filter((v) => !want?.values.includes(v))
      note(out.removed, e, ours, 'added by Portico; removed')
      note(out.restored, e, (want?.values ?? []).filter((v) => !e.written.values.includes(v) || e.written.ttl !== want?.ttl), 'restored to the value it had before connecting')
      continue
    }
    if (e.change === 'merged' && cur) {
      // Someone edited the set since: take out only what Portico added.
      let values = cur.values.filter((v) => !(e.added ?? []).includes(v))
      if (e.spf) {
        const at = values.findIndex(isSpf)
        if (at !== -1) {
          const back = e.spf.prior_value ?? null
          if (values[at] === e.spf.written_value && back) values[at] = back
          else {
            const stripped = unmergeSpf(values[at]!, e.spf.terms)
            if (!e.spf.prior_value && /^v=spf1 ~all$/i.test(stripped)) values = values.filter((_, i) => i !== at)
            else values[at] = stripped
          }
        }
      }
      if (!sameValues(values, cur.values)) {
        put(values.length ? { ttl: cur.ttl, values } : null)
        note(out.removed, e, cur.values.filter((v) => !values.includes(v)), 'added by Portico; removed, other values kept')
      }
      continue
    }
    note(out.left_in_place, e, cur?.values ?? [], 'changed at the provider after Portico wrote it; left as it is')
  }
  deletionsFirst(out.changes)
  return out
}

/** Removals go first, so a CNAME and the sets it replaces never stand side by side mid-change. */
function deletionsFirst(changes: RRsetChange[]): void {
  changes.sort((a, b) => Number(a.values.length > 0) - Number(b.values.length > 0))
}

/** Applies a change set to an in-memory zone (tests and the removal plan preview). */
export function applyChanges(current: RRset[], changes: RRsetChange[]): RRset[] {
  const zone = zoneMap(current)
  for (const c of changes) setSet(zone, c)
  return [...zone.values()]
}

// ---- Through a provider ------------------------------------------------------------------------


/** What a connection keeps of its last automatic write (column `connections.applied`). */
export interface AppliedState {
  provider: string
  zone: Zone
  /** PowerDNS: the API URL written through (not secret). */
  api_url: string | null
  entries: AppliedEntry[]
}

export type RailConnection = ConnectionRow & {
  applied: AppliedState | null
  applied_at: Date | null
  provider_account_id: string | null
  reauthorize_needed_at: Date | null
}

export interface ApplyDeps extends RailDeps {
  db: Sql
  clock: Clock
}

/** The zone of `domain` among those the credential reaches: at or below the registrable domain, never a public suffix above it. */
export async function findZone(provider: DnsProvider, domain: string, apex: string): Promise<Zone> {
  const zones = (await provider.listZones()).filter((z) => z.name === apex || z.name.endsWith('.' + apex))
  const zone = zoneFor(zones, domain)
  if (!zone) throw new ProviderError('zone_not_found', `no zone for ${domain} is reachable with this credential`)
  return zone
}

export interface RailWrite {
  row: RailConnection
  changed: boolean
  zone: Zone
  updated: ApplyPlan['updated']
}

export interface RailOptions {
  accountId: string | null
  managed: boolean
  rail: 'api' | 'oauth'
  /** The event a change emits: `connection.applied` (apply rails) or none here (re-apply emits its own). */
  event: EventType | null
  via?: string
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
  const [row] = await deps.db`
    update connections set rail_lease_until = ${new Date(now.getTime() + LEASE_MS)}
    where id = ${c.id} and disconnected_at is null and (rail_lease_until is null or rail_lease_until < ${now})
    returning *`
  if (!row) {
    const [exists] = await deps.db`select 1 from connections where id = ${c.id} and disconnected_at is null`
    if (!exists) throw new ApiError('not_found', 'Connection not found')
    throw new ApiError('conflict', 'Another write to this domain\'s records is in progress; try again shortly', { reason: 'write_in_progress' }, { headers: { 'retry-after': '5' } })
  }
  return row as RailConnection
}

export async function releaseLease(deps: ApplyDeps, id: string): Promise<void> {
  await deps.db`update connections set rail_lease_until = null where id = ${id}`
}

async function writeLeased(deps: ApplyDeps, c: RailConnection, cred: Credential, opts: RailOptions): Promise<RailWrite> {
  let plan: ApplyPlan
  let zone: Zone
  try {
    const provider = await openProvider(deps, cred)
    zone = await findZone(provider, c.domain, c.apex_domain)
    const current = await provider.readRecords(zone)
    const previous = c.applied && c.applied.zone.name === zone.name && c.applied.provider === cred.provider ? c.applied.entries : []
    plan = planApply(current, c.desired_records, c.apex_domain, previous)
    const state: AppliedState = { provider: cred.provider, zone, api_url: cred.apiUrl ?? null, entries: plan.entries }
    await deps.db`update connections set applied = ${state}::jsonb where id = ${c.id} and disconnected_at is null`
    await provider.writeChanges(zone, plan.changes)
  } catch (err) {
    const e = providerFailure(err, cred.provider, c.domain)
    const code = diagnosisOf(e)
    if (code) {
      await deps.db`update connections set error_code = ${code}, error_message = ${e.title}, updated_at = ${deps.clock.now()} where id = ${c.id} and disconnected_at is null`
    }
    throw e
  }
  const changed = plan.changes.length > 0
  const now = deps.clock.now()
  const row = await deps.db.begin(async (tx) => {
    const [r] = await tx`
      update connections set rail = ${opts.rail}, managed = ${opts.managed}, provider_account_id = ${opts.accountId},
        applied_at = ${now}, records_written_at = case when ${changed} or records_written_at is null then ${now}::timestamptz else records_written_at end,
        error_code = null, error_message = null, reauthorize_needed_at = null,
        status = case when status in ('pending', 'failed') then 'propagating' else status end,
        propagating_since = case when status in ('pending', 'failed') then ${now}::timestamptz else propagating_since end,
        retried_at = case when status = 'failed' then ${now}::timestamptz else retried_at end,
        failed_at = case when status = 'failed' then null else failed_at end,
        next_check_at = case when status in ('pending', 'failed', 'propagating') then ${now}::timestamptz else next_check_at end,
        updated_at = ${now}
      where id = ${c.id} and disconnected_at is null returning *`
    if (!r) throw new ApiError('not_found', 'Connection not found')
    const fresh = r as RailConnection
    if (opts.event && (changed || c.applied_at === null)) {
      await emitForConnection(tx, fresh, opts.event, now, { updated_objects: plan.updated, ...(opts.via ? { via: opts.via } : {}) })
    }
    return fresh
  })
  return { row, changed, zone, updated: plan.updated }
}

/** Takes a connection's records out through a provider; throws the provider failure as an ApiError. */
export async function revertThroughRail(deps: RailDeps, applied: AppliedState, cred: Credential, domain: string): Promise<RevertPlan> {
  try {
    const provider = await openProvider(deps, cred)
    const current = await provider.readRecords(applied.zone)
    const plan = planRevert(current, applied.entries)
    await provider.writeChanges(applied.zone, plan.changes)
    return plan
  } catch (err) {
    throw providerFailure(err, cred.provider, domain)
  }
}

const relHost = (name: string, apex: string) => (name === apex ? '@' : name.endsWith('.' + apex) ? name.slice(0, -(apex.length + 1)) : name)

function splitMx(type: string, v: string): { value: string; priority: number | null } {
  if (type !== 'MX') return { value: v, priority: null }
  const [p, h] = v.split(' ')
  return { value: h ?? v, priority: Number(p) }
}

/** The removal plan (CONTRACT.md section 2) of a connection whose records a rail wrote. */
export function removalPlan(c: RailConnection, now: Date, why: string) {
  const applied = c.applied!
  const provider = providerById(applied.provider)
  const records = applied.entries.flatMap((e) => {
    const values = e.change === 'removed' ? (e.prior?.values ?? []) : e.change === 'merged' ? [...(e.added ?? []), ...(e.spf ? [e.spf.written_value] : [])] : e.written.values
    return values.map((v) => {
      const { value, priority } = splitMx(e.type, v)
      return {
        type: e.type,
        host: relHost(e.name, c.apex_domain),
        name: e.name,
        value,
        ttl: e.written.ttl,
        priority,
        change: e.change,
        action: e.change === 'removed' ? 'restore' : 'delete',
        prior: (e.prior?.values ?? []).map((pv) => ({ type: e.type, ...splitMx(e.type, pv), ttl: e.prior!.ttl })),
        prior_source: 'provider',
        note:
          e.change === 'removed'
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

/** Marks a connection disconnected after its records were reverted through the rail. */
export async function disconnectReverted(sql: Sql, c: ConnectionRow, now: Date, plan: RevertPlan, via: string) {
  const outcome = {
    connection_id: c.id,
    domain: c.domain,
    disconnected: true as const,
    records: {
      choice: 'remove' as const,
      outcome: 'removed' as const,
      via,
      removed: plan.removed,
      restored: plan.restored,
      left_in_place: plan.left_in_place,
      failed: [] as RevertNote[],
      manual_steps: plan.left_in_place.map((r) => `${r.name} ${r.type} was changed at the provider after Portico wrote it; check it by hand`),
    },
    serving: 'stopped' as const,
    certificate: 'removed' as const,
    monitoring: 'stopped' as const,
  }
  await markDisconnected(sql, c, outcome, now)
  return outcome
}

/**
 * Before a disconnect's transaction: when the connection's records were written by a rail, take them
 * out through its grant (a continuous provider account or OAuth grant) or the one-time `credential`.
 * Answers null when there is nothing to revert here (records set up by hand, already disconnected) or
 * when the handler will refuse the call anyway (wrong widget binding, unconfirmed agent call), so
 * nothing is removed before those checks. When no grant can remove them, `reauthorization_required`
 * (409: the connection's state, not the request, stands in the way) carries the full removal plan.
 */
export async function prepareManagedRemoval(
  deps: ApplyDeps,
  p: Principal,
  id: string,
  credential: string | undefined,
  confirm: string | undefined,
): Promise<{ plan: RevertPlan; via: string } | null> {
  if (!('tenantId' in p)) return null
  const [row] = await deps.db`select * from connections where id = ${id} and tenant_id = ${p.tenantId}`
  const c = row as RailConnection | undefined
  if (!c || c.disconnected_at) return null
  if (p.kind === 'WIDGET' && (p.applicationId !== c.application_id || p.boundHost !== c.domain)) return null
  if (p.kind === 'AGENT' && (!confirm || !confirmMatches(confirm, c.domain))) return null
  // Set up through Domain Connect's managed rail: its templates are reverted through the kept grant.
  if (!c.applied && c.managed && c.rail === 'domain_connect') return removeThroughGrant(deps, p.tenantId, c)
  if (!c.applied) return null
  const now = deps.clock.now()
  let cred: Credential | null = null
  if (credential) cred = { provider: c.applied.provider, secret: credential, apiUrl: c.applied.api_url }
  else if (c.provider_account_id) {
    const [a] = await deps.db`select * from provider_accounts where id = ${c.provider_account_id} and deleted_at is null`
    cred = a ? await usableCredential(deps, a as AccountRow) : null
  }
  if (!cred) {
    throw new ApiError('reauthorization_required', undefined, undefined, {
      extra: { plan: removalPlan(c, now, 'Portico holds no grant for this provider any more; give a credential once, or remove the records by hand') },
    })
  }
  try {
    const leased = await takeLease(deps, c)
    try {
      return { plan: await revertThroughRail(deps, leased.applied ?? c.applied, cred, c.domain), via: c.rail }
    } finally {
      await releaseLease(deps, c.id)
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === 'ProviderAuthenticationError') {
      throw new ApiError('reauthorization_required', undefined, { provider_reason: (err.details as { reason?: string })?.reason }, {
        extra: { plan: removalPlan(c, now, credential ? 'The provider refused the credential given' : 'The provider refused the stored grant; it was revoked or expired') },
      })
    }
    throw err
  }
}
