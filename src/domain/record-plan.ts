// The record planner: what to write into a provider zone for a connection's desired records, and how
// to take them out again (issue 6,
// the API contract, sections 2 and 4: "keeping existing CAA and TXT values and recording what was replaced").
// The rules, per record set (name and type) the desired records touch:
// - CNAME below the apex: a CNAME cannot share its name (RFC 1034 §3.6.2), so every other set at that
//   name is removed (and recorded); the CNAME set becomes the desired target. At the apex the target
//   is written as the host's own apex record (`conventions.apex`: a flattened CNAME at Cloudflare,
//   bunny.net and Gcore, ALIAS, ANAME), never a plain CNAME beside SOA and NS; only the A and AAAA sets
//   (and another apex pointer) are removed; MX, TXT, CAA and NS stay. A host without one refuses the
//   write before anything is sent (`unrepresentable`).
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
// a set someone changed since. Pure functions, no I/O: the property test (test/property) runs them on
// random zones, and the provider rail (apply.ts) runs them against real zones.
import { canonicalName, canonicalValue, ProviderError, type RRset, type RRsetChange } from '../adapters/dns-providers/types.ts'
import { absoluteHost } from './hostnames.ts'
import { DEFAULT_TTL, isApexPointer, type DnsRecord } from './records.ts'

export interface RRsetState {
  ttl: number
  values: string[]
  /** The provider's own attributes per value (RRset.native), written back when the set is restored. */
  native?: Record<string, unknown>
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
  /** A write the host refused midway left this set changed and it could not be put back (issue 46):
   * `prior` is what the customer had; a disconnect puts it back. */
  not_restored?: true
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

/** Record types that point a name at another name's addresses (a host's apex record). */
const APEX_POINTERS = new Set(['ALIAS', 'ANAME', 'FLATTEN'])

type ZoneSets = Map<string, RRset>

export function zoneMap(rrsets: RRset[]): ZoneSets {
  return new Map(rrsets.map((s) => [keyOf(s.name, s.type), { ...s, name: canonicalName(s.name), values: [...s.values] }]))
}

/** What a provider says of TTLs and of its zone apex (DnsProvider's fields): the planner follows them. */
export interface TtlRules {
  /** The lowest TTL the provider stores: desired TTLs are raised to it. */
  minTtl?: number
  /** The only TTLs the provider stores (Linode, ClouDNS): a desired TTL is rounded up to the next one. */
  allowedTtls?: readonly number[]
  /** One TTL for the whole zone (Dynadot): every set is planned with the zone's TTL. */
  uniformTtl?: boolean
  /** The host's record for pointing a zone apex at a hostname (HostConventions.apex). Absent: a bare
   * planner call, where the apex CNAME is planned as a flattened CNAME. */
  conventions?: { apex: string | null }
}

/** The TTL the provider will store for `ttl`: raised to its floor, rounded up to one of its values. */
export function storedTtl(ttl: number, rules: TtlRules = {}): number {
  const t = Math.max(ttl, rules.minTtl ?? 0)
  const allowed = rules.allowedTtls
  if (!allowed?.length) return t
  return allowed.find((a) => a >= t) ?? allowed[allowed.length - 1]!
}

/**
 * The change set that puts `desired` (hosts relative to `apex`) into a zone holding `current`.
 * `previous` are the entries of an earlier apply of this connection: their priors are kept (the zone
 * now holds Portico's own values), and sets they touched that the new records no longer touch are
 * reverted first.
 */
export function planApply(current: RRset[], desired: DnsRecord[], apex: string, previous: AppliedEntry[] = [], rules: TtlRules = {}): ApplyPlan {
  // A provider with one TTL per zone: every set Portico writes takes the zone's TTL, so writing
  // changes no other record's TTL and a re-apply finds nothing to change.
  const zoneTtl = rules.uniformTtl ? storedTtl(current.find((s) => s.type !== 'SOA')?.ttl ?? DEFAULT_TTL, rules) : undefined
  const before = zoneMap(current)
  const next = zoneMap(current)
  const prevByKey = new Map(previous.map((e) => [keyOf(e.name, e.type), e]))
  const groups = groupDesired(desired, apex, rules)

  // Sets an earlier apply touched that these records no longer do go back first.
  const stale = previous.filter((e) => !groups.has(keyOf(e.name, e.type)) && !(e.change === 'removed' && removedBy(groups, e)))
  for (const c of planRevert([...next.values()], stale).changes) setSet(next, c)

  const targets = planTargets(next, groups, apex, prevByKey, (g) => zoneTtl ?? storedTtl(g.records.find((r) => r.ttl !== undefined)?.ttl ?? DEFAULT_TTL, rules))
  const { changes, updated } = changeSet(before, next, groups)
  refuseLocked(before, changes)
  const entryKeys = new Set([...groups.keys(), ...targets.removedKeys, ...previous.filter((e) => !stale.includes(e)).map((e) => keyOf(e.name, e.type))])
  const entries = entriesOf(entryKeys, { before, next, groups, prevByKey, stale, targets })
  return { changes, entries, updated }
}

/** The desired records that go into one record set (one name and type). */
interface Group {
  name: string
  type: string
  records: DnsRecord[]
}

/**
 * The desired records by the record set each lands in. At the zone apex a hostname target (a CNAME at
 * `@`, an ALIAS or ANAME) is written as the host's own apex record (ALIAS, ANAME, a flattened CNAME): a
 * plain CNAME cannot stand beside the apex's SOA and NS (RFC 1034 §3.6.2).
 */
function groupDesired(desired: DnsRecord[], apex: string, rules: TtlRules): Map<string, Group> {
  const groups = new Map<string, Group>()
  const apexType = rules.conventions ? rules.conventions.apex : 'CNAME'
  for (const r of desired) {
    if (r.type === 'REDIR301') continue
    const name = canonicalName(absoluteHost(r.host, apex))
    let type: string = r.type === 'SPFM' ? 'TXT' : r.type
    if ((type === 'CNAME' || APEX_POINTERS.has(type)) && name === canonicalName(apex)) {
      if (!apexType) throw new ProviderError('unrepresentable', `${name} is a zone apex and this DNS host has no record that points an apex at a hostname (ALIAS, ANAME or a flattened CNAME); a CNAME there would stand beside the zone's SOA and NS, so nothing was written. Connect it with A records (the application's apex addresses) instead`)
      type = apexType
    }
    const k = keyOf(name, type)
    const g = groups.get(k) ?? { name, type, records: [] }
    g.records.push(r)
    groups.set(k, g)
  }
  return groups
}

/** What planTargets decided beside the target sets themselves: what it removed, added and merged. */
interface Targets {
  removedKeys: Set<string>
  addedByKey: Map<string, string[]>
  spfByKey: Map<string, { terms: string[]; prior_value: string | null; written_value: string }>
  /** Merged sets someone edited since Portico's last write: the set as it is now without Portico's own
   * values (SPF terms taken out of the SPF value), the customer's latest word and so the new prior. */
  editedPriorByKey: Map<string, RRsetState | null>
}

/** Puts each group's target set into `next` (the zone being planned), removing what stands in its way. */
function planTargets(next: ZoneSets, groups: Map<string, Group>, apex: string, prevByKey: Map<string, AppliedEntry>, ttlOf: (g: Group) => number): Targets {
  const out: Targets = { removedKeys: new Set(), addedByKey: new Map(), spfByKey: new Map(), editedPriorByKey: new Map() }
  const removeAt = (name: string, types: (t: string) => boolean) => {
    for (const [k, s] of next) {
      if (s.name === name && types(s.type) && s.type !== 'SOA' && !groups.has(k)) {
        next.delete(k)
        out.removedKeys.add(k)
      }
    }
  }
  for (const [k, g] of groups) {
    // Raised to the provider's floor: it would store the floor anyway, and a re-apply must then match.
    const ttl = ttlOf(g)
    const isApexName = g.name === canonicalName(apex)
    if (g.type === 'CNAME' && !isApexName) {
      removeAt(g.name, (t) => t !== 'CNAME')
      next.set(k, { name: g.name, type: 'CNAME', ttl, values: [desiredValue(g.records[0]!)] })
    } else if (isApexName && isApexPointer(g.records[0]!)) {
      // The host's apex record (a flattened CNAME, ALIAS, ANAME) answers with the target's addresses:
      // the address sets and any other apex pointer go; MX, TXT, CAA, NS and SOA stay.
      removeAt(g.name, (t) => t === 'A' || t === 'AAAA' || t === 'CNAME' || APEX_POINTERS.has(t))
      next.set(k, { name: g.name, type: g.type, ttl, values: [canonicalValue(g.type, g.records[0]!.value)] })
    } else if (g.type === 'TXT' || g.type === 'CAA') {
      removeAt(g.name, (t) => t === 'CNAME')
      next.set(k, mergeInto(next.get(k), g, ttl, prevByKey.get(k), out, k))
    } else {
      removeAt(g.name, (t) => t === 'CNAME' || (g.type === 'A' && t === 'AAAA' && !groups.has(keyOf(g.name, 'AAAA'))))
      next.set(k, { name: g.name, type: g.type, ttl, values: [...new Set(g.records.map(desiredValue))] })
    }
  }
  return out
}

/** A merged set (TXT, CAA): the existing values kept, ours added, SPF terms merged into the SPF value. */
function mergeInto(existing: RRset | undefined, g: Group, ttl: number, prev: AppliedEntry | undefined, out: Targets, k: string): RRset {
  const values = [...(existing?.values ?? [])]
  const plain = g.records.filter((r) => r.type !== 'SPFM').map(desiredValue)
  const added = new Set((prev?.added ?? []).filter((v) => values.includes(v)))
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
    const prevSpf = prev?.spf
    const terms = [...new Set([...(prevSpf?.terms ?? []).filter((t) => priorValue && spfTermsOf(priorValue).includes(t)), ...merged.added])]
    if (at === -1) values.push(merged.value)
    else values[at] = merged.value
    // An SPF value someone edited since Portico wrote it: their value without Portico's terms is the prior.
    const edited = prevSpf && priorValue !== prevSpf.written_value
    const stripped = priorValue ? unmergeSpf(priorValue, terms) : null
    const priorSpf = !prevSpf ? priorValue : !edited ? prevSpf.prior_value : stripped && !(prevSpf.prior_value === null && /^v=spf1 ~all$/i.test(stripped)) ? stripped : null
    out.spfByKey.set(k, { terms, prior_value: priorSpf, written_value: merged.value })
  }
  out.addedByKey.set(k, [...added])
  // The set edited since Portico's last write (a value added or changed beside Portico's): what it holds
  // now without Portico's own values becomes the prior, so a disconnect keeps the customer's edit.
  if (prev && existing && !sameValues(existing.values, prev.written.values)) {
    const spf = out.spfByKey.get(k)
    const kept = (existing.values ?? []).flatMap((v) => (added.has(v) ? [] : isSpf(v) && spf ? (spf.prior_value ? [spf.prior_value] : []) : [v]))
    out.editedPriorByKey.set(k, kept.length ? { ttl: existing.ttl, values: kept, ...(existing.native ? { native: existing.native } : {}) } : null)
  }
  return { name: g.name, type: g.type, ttl: existing?.ttl ?? ttl, values }
}

/** The change set: every set whose content differs from what the zone holds now, removals first. */
function changeSet(before: ZoneSets, next: ZoneSets, groups: Map<string, Group>): { changes: RRsetChange[]; updated: ApplyPlan['updated'] } {
  const changes: RRsetChange[] = []
  const updated: ApplyPlan['updated'] = []
  for (const k of new Set([...before.keys(), ...next.keys()])) {
    const a = before.get(k)
    const b = next.get(k)
    if (sameSet(a, b)) continue
    const ref = (b ?? a)!
    // The host's own attributes of the values a changed set keeps (a TXT's strings, a record's comment) go with them.
    changes.push({ name: ref.name, type: ref.type, ttl: b?.ttl ?? a!.ttl, values: b?.values ?? [], ...(a?.native && b?.values.length ? { native: a.native } : {}) })
    if (b && groups.has(k)) for (const v of b.values) if (!a?.values.includes(v)) updated.push({ type: b.type, name: b.name, value: v })
  }
  deletionsFirst(changes)
  return { changes, updated }
}

/**
 * Names where someone set a value of their own since Portico wrote (a set Portico replaced, created or
 * removed that now holds something else): that is the customer's latest word for the name, so it
 * becomes the prior of every set there (disconnect restores it, not what stood before connecting), and
 * replacedRecords names it. Merged sets (TXT, CAA) keep their own record of Portico's values.
 */
function customerNamesOf(previous: Iterable<AppliedEntry>, before: ZoneSets, stale: AppliedEntry[]): Set<string> {
  const names = new Set<string>()
  for (const e of previous) {
    if (stale.includes(e) || e.change === 'merged') continue
    const cur = before.get(keyOf(e.name, e.type))
    // Values of their own: a TTL changed on Portico's values (a host's zone-wide TTL) is not a customer's value.
    if (cur?.values.length && !sameValues(cur.values, e.written.values)) names.add(canonicalName(e.name))
  }
  return names
}

/** Entries: every set the records target or that was removed for them, with the earliest prior. */
function entriesOf(keys: Set<string>, p: { before: ZoneSets; next: ZoneSets; groups: Map<string, Group>; prevByKey: Map<string, AppliedEntry>; stale: AppliedEntry[]; targets: Targets }): AppliedEntry[] {
  const customerNames = customerNamesOf(p.prevByKey.values(), p.before, p.stale)
  const entries: AppliedEntry[] = []
  for (const k of keys) {
    const prev = p.prevByKey.get(k)
    const cur = p.before.get(k)
    const [name, type] = k.split('|') as [string, string]
    const keepPrior = prev && !p.stale.includes(prev) && !(customerNames.has(name) && prev.change !== 'merged')
    const edited = p.targets.editedPriorByKey.has(k) ? { prior: p.targets.editedPriorByKey.get(k)! } : null
    const prior: RRsetState | null = edited ? edited.prior : keepPrior ? prev.prior : cur ? { ttl: cur.ttl, values: cur.values, ...(cur.native ? { native: cur.native } : {}) } : null
    const n = p.next.get(k)
    const written: RRsetState = n ? { ttl: n.ttl, values: n.values } : { ttl: prior?.ttl ?? DEFAULT_TTL, values: [] }
    if (!n && !prior) continue
    const merge = type === 'TXT' || type === 'CAA'
    const change: AppliedEntry['change'] = !n ? 'removed' : !prior ? 'created' : merge && p.groups.has(k) ? 'merged' : 'replaced'
    const entry: AppliedEntry = { name, type, change, prior, written }
    if (merge && p.groups.has(k)) {
      entry.added = p.targets.addedByKey.get(k) ?? []
      const spf = p.targets.spfByKey.get(k)
      if (spf) entry.spf = spf
    }
    entries.push(entry)
  }
  return entries.sort((a, b) => (a.name + a.type).localeCompare(b.name + b.type))
}

/**
 * Do no harm: a set the adapter marked `locked` (it holds what the adapter cannot write back as it
 * is) is never changed or removed. Refused before anything is written, naming the set and why.
 */
export function refuseLocked(zone: ZoneSets, changes: RRsetChange[]): void {
  for (const c of changes) {
    const s = zone.get(keyOf(c.name, c.type))
    if (s?.locked) throw new ProviderError('unrepresentable', `${c.name} ${c.type} holds ${s.locked}, which Portico cannot write back exactly as it is; nothing was written`)
  }
}

/** A record set already in the zone that a plan would take values away from. */
export interface ReplacedSet {
  name: string
  type: string
  /** The values that would go (the set's other values stay). */
  values: string[]
}

/**
 * The customer's own records a plan would replace or remove: values in the zone now that the write
 * takes away, leaving out values Portico itself wrote before (`previous`). Adding to a set (a TXT value
 * beside others, a CAA value) replaces nothing; changing an SPF value, replacing an apex address, an MX,
 * an NS or a CNAME does.
 */
export function replacedRecords(current: RRset[], plan: ApplyPlan, previous: AppliedEntry[] = []): ReplacedSet[] {
  const before = zoneMap(current)
  const ours = new Map(previous.map((e) => [keyOf(e.name, e.type), new Set(e.written.values)]))
  const out: ReplacedSet[] = []
  for (const c of plan.changes) {
    const k = keyOf(c.name, c.type)
    const was = before.get(k)
    if (!was || was.type === 'SOA') continue
    const gone = was.values.filter((v) => !c.values.includes(v) && !ours.get(k)?.has(v))
    if (gone.length) out.push({ name: was.name, type: was.type, values: gone.sort() })
  }
  return out.sort((a, b) => (a.name + a.type).localeCompare(b.name + b.type))
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
  /** A set left in place: the values it held before Portico's first write, which were not put back
   * (empty when there was no set). Said, so a person can restore them by hand. */
  prior_values?: string[]
}

export interface RevertPlan {
  changes: RRsetChange[]
  removed: RevertNote[]
  restored: RevertNote[]
  left_in_place: RevertNote[]
  /** Set when the zone could not be written at all (gone at the host): what a person must do by hand,
   * the first step saying why. The teardown still finishes (src/domain/grants.ts `removeThroughGrant`). */
  unreached?: { manual_steps: string[] }
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
    const put = (state: RRsetState | null) =>
      out.changes.push({ name: e.name, type: e.type, ttl: state?.ttl ?? e.written.ttl, values: state?.values ?? [], ...(state?.native ? { native: state.native } : {}) })
    if (e.not_restored && (!cur || sameSet(curState, e.written))) {
      // Left changed by a write of Portico's the host refused midway: put back now, and nothing is
      // said to be removed that Portico never wrote.
      put(want)
      note(out.removed, e, (cur?.values ?? []).filter((v) => !want?.values.includes(v)), 'added by Portico; removed')
      note(out.restored, e, want?.values ?? [], 'put back: a write of Portico\'s the provider refused midway had left it removed')
      continue
    }
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
    // Changed (or removed) at the provider since: left as it is, and named with the values it had before
    // connecting, so nothing Portico replaced goes unsaid.
    const prior_values = e.prior?.values ?? []
    if (e.not_restored) {
      for (const value of cur?.values ?? ['']) out.left_in_place.push({ type: e.type, name: e.name, value, note: 'a write of Portico\'s the provider refused midway left this set changed, and it was changed again since; left as it is', prior_values })
      continue
    }
    if (cur?.values.length) for (const value of cur.values) out.left_in_place.push({ type: e.type, name: e.name, value, note: 'changed at the provider after Portico wrote it; left as it is', prior_values })
    else out.left_in_place.push({ type: e.type, name: e.name, value: '', note: 'removed at the provider after Portico wrote it; left as it is', prior_values })
  }
  deletionsFirst(out.changes)
  refuseLocked(zone, out.changes)
  return out
}

/** Removals first in the change set (an adapter that writes in several calls orders them itself so the
 * least is missing in between: src/adapters/dns-providers/coexist.ts). */
function deletionsFirst(changes: RRsetChange[]): void {
  changes.sort((a, b) => Number(a.values.length > 0) - Number(b.values.length > 0))
}

/** Applies a change set to an in-memory zone (tests and the removal plan preview). */
export function applyChanges(current: RRset[], changes: RRsetChange[]): RRset[] {
  const zone = zoneMap(current)
  for (const c of changes) setSet(zone, c)
  return [...zone.values()]
}
