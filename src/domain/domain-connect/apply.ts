// Applying a Domain Connect template to a zone (spec "Resolving Template Variables", "Host Name
// Rendering", "SPF Record Merging", "Template Application"). Pure: no DNS, no database. Invariants:
// - Deterministic: the same input gives the same output, ordered by zone order then template order.
// - Idempotent: applying the result again yields empty `toAdd` and `toDelete`. This rests on the spec's
//   identical-record rule (a zone record equal to a rendered one in owner, type and RDATA is kept, never a
//   conflict) and on SPF merging being a fixpoint once the rules are present.
// - Portico keeps no applied-template state here, so conflicts remove the conflicting records only
//   (spec "Calculating Conflict Resolution", provider without state); `essential` and `groupId` are
//   reported on `records` for callers that track instances.
// Record shape: `name` and host-valued `data` are lowercase FQDNs without the trailing dot; MX and SRV
// carry `priority` separately; SRV `data` is "weight port target"; TXT `data` is the unquoted text;
// REDIR301/REDIR302 are redirects for Portico's edge with the target URL in `data`; APEXCNAME is an
// alias at the zone apex with the target in `data`.
import { isIP } from 'node:net'
import { type Essential, type Template, type TemplateRecord, type TxtConflictMode, VARIABLE_PATTERN, isBuiltInVariable } from './template.ts'

export interface ZoneRecord {
  type: string
  name: string
  data: string
  ttl: number
  priority?: number
}

/** A rendered template record: what the template wants in the zone, SPFM kept as its rules. */
export interface DesiredRecord extends ZoneRecord {
  essential: Essential
  groupId?: string
}

export interface ApplyInput {
  template: Template
  domain: string
  host?: string
  params: Record<string, string>
  groupIds?: string[]
  zone: ZoneRecord[]
}

export type ApplyErrorCode = 'invalid_domain' | 'host_required' | 'no_matching_group' | 'missing_variable' | 'invalid_value' | 'not_applicable'

export type ApplyResult =
  | { ok: true; records: DesiredRecord[]; toAdd: ZoneRecord[]; toDelete: ZoneRecord[]; result: ZoneRecord[] }
  | { ok: false; code: ApplyErrorCode; error: string }

export const DEFAULT_TTL = 3600
const MAX_TTL = 2_147_483_647 // RFC 2181 section 8

class ApplyError extends Error {
  constructor(
    readonly code: ApplyErrorCode,
    message: string,
  ) {
    super(message)
  }
}

interface Scope {
  domain: string
  host: string
  fqdn: string
  params: Record<string, string>
}

/** A rendered record plus what conflict detection needs. */
interface Rendered extends DesiredRecord {
  txtMode: TxtConflictMode
  txtPrefix?: string
}

// ---------------------------------------------------------------- names and values

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/

function isDomainName(name: string, allowWildcard = false): boolean {
  if (name.length === 0 || name.length > 253) return false
  return name.split('.').every((label, i) => LABEL.test(label) || (allowWildcard && i === 0 && label === '*'))
}

function trimDot(name: string): string {
  return name.endsWith('.') ? name.slice(0, -1) : name
}

function normaliseName(name: string): string {
  return trimDot(name.trim().toLowerCase())
}

function inZone(name: string, domain: string): boolean {
  return name === domain || name.endsWith(`.${domain}`)
}

/** Spec "Host Name Rendering": "@" or empty is the applied root, a trailing dot is absolute, else relative. */
function ownerName(raw: string, scope: Scope, what: string): string {
  const v = raw.trim().toLowerCase()
  const name = v === '' || v === '@' ? scope.fqdn : v.endsWith('.') ? v.slice(0, -1) : `${v}.${scope.fqdn}`
  if (!isDomainName(name, true)) throw new ApplyError('invalid_value', `${what}: "${raw}" is not a valid host name`)
  if (!inZone(name, scope.domain)) throw new ApplyError('not_applicable', `${what}: ${name} is outside the zone ${scope.domain}`)
  return name
}

/** pointsTo/target of CNAME, MX, NS, SRV and APEXCNAME: always fully qualified; "@" is the applied FQDN. */
function targetName(raw: string, scope: Scope, what: string): string {
  const v = raw.trim().toLowerCase()
  const name = v === '@' ? scope.fqdn : trimDot(v)
  if (!isDomainName(name)) throw new ApplyError('invalid_value', `${what}: "${raw}" is not a valid host name`)
  return name
}

function uint16(raw: string, what: string): number {
  const n = /^\s*\d{1,5}\s*$/.test(raw) ? Number(raw) : NaN
  if (!(n >= 0 && n <= 65535)) throw new ApplyError('invalid_value', `${what}: "${raw}" is not an integer from 0 to 65535`)
  return n
}

/** The spec's TTL is best effort: a DNS Provider picks a default rather than refusing (spec "TTL"). */
function ttlValue(raw: string | undefined): number {
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return DEFAULT_TTL
  return Math.min(Number(raw), MAX_TTL)
}

/** TXT data may be one or more quoted character-strings (RFC 1035 section 5.1); quotes may be omitted. */
function txtValue(raw: string): string {
  const quoted = /^\s*"((?:[^"\\]|\\.)*)"/
  let rest = raw
  let out = ''
  if (!quoted.test(rest)) return raw
  while (rest.trim() !== '') {
    const m = quoted.exec(rest)
    if (!m) return raw
    out += m[1]!.replace(/\\(["\\])/g, '$1')
    rest = rest.slice(m[0].length)
  }
  return out
}

function redirectTarget(raw: string, what: string): string {
  const v = raw.trim()
  let url: URL
  try {
    url = new URL(v)
  } catch {
    throw new ApplyError('invalid_value', `${what}: "${raw}" is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApplyError('invalid_value', `${what}: "${raw}" is not an http(s) URL`)
  return v
}

// ---------------------------------------------------------------- variables and rendering

/**
 * Spec "Variable substitution": one left-to-right pass, so a value containing `%x%` is left as is;
 * a variable without a value fails the whole application.
 */
function substitute(value: string, scope: Scope): string {
  return value.replace(VARIABLE_PATTERN, (_match, name: string) => {
    if (isBuiltInVariable(name)) {
      const builtIn = name.toLowerCase()
      return builtIn === 'host' ? scope.host : builtIn === 'domain' ? scope.domain : scope.fqdn
    }
    if (!Object.hasOwn(scope.params, name)) throw new ApplyError('missing_variable', `missing variable "${name}"`)
    return scope.params[name]!
  })
}

function field(rec: TemplateRecord, key: keyof TemplateRecord, scope: Scope): string | undefined {
  const v = rec[key]
  return v === undefined ? undefined : substitute(String(v), scope)
}

function required(rec: TemplateRecord, key: keyof TemplateRecord, scope: Scope): string {
  return field(rec, key, scope) ?? ''
}

function srvLabel(raw: string, what: string): string {
  const v = raw.trim().toLowerCase()
  const label = v.startsWith('_') ? v : `_${v}`
  if (!/^_[a-z0-9-]{1,62}$/.test(label)) throw new ApplyError('invalid_value', `${what}: "${raw}" is not a valid SRV label`)
  return label
}

const GENERIC_TYPE = /^(?:[A-Z][A-Z0-9-]*|TYPE\d+)$/

function renderRecord(rec: TemplateRecord, scope: Scope, index: number): Rendered {
  const what = `records[${index}] ${rec.type}`
  const base = { essential: rec.essential, ...(rec.groupId !== undefined ? { groupId: rec.groupId } : {}), txtMode: 'None' as TxtConflictMode }
  const ttl = ttlValue(field(rec, 'ttl', scope))
  const owner = () => ownerName(field(rec, 'host', scope) ?? '@', scope, what)
  switch (rec.type) {
    case 'A':
    case 'AAAA': {
      const ip = required(rec, 'pointsTo', scope).trim().toLowerCase()
      if (isIP(ip) !== (rec.type === 'A' ? 4 : 6)) throw new ApplyError('invalid_value', `${what}: "${ip}" is not an IPv${rec.type === 'A' ? 4 : 6} address`)
      return { ...base, type: rec.type, name: owner(), data: ip, ttl }
    }
    case 'CNAME':
    case 'NS':
      if (rec.type === 'NS' && required(rec, 'pointsTo', scope).trim() === '@') throw new ApplyError('invalid_value', `${what}: "@" would delegate to itself`)
      return { ...base, type: rec.type, name: owner(), data: targetName(required(rec, 'pointsTo', scope), scope, what), ttl }
    case 'MX':
      return {
        ...base,
        type: 'MX',
        name: owner(),
        data: targetName(required(rec, 'pointsTo', scope), scope, what),
        ttl,
        priority: uint16(required(rec, 'priority', scope), `${what} priority`),
      }
    case 'TXT': {
      const prefix = field(rec, 'txtConflictMatchingPrefix', scope)
      return {
        ...base,
        type: 'TXT',
        name: owner(),
        data: txtValue(required(rec, 'data', scope)),
        ttl,
        txtMode: rec.txtConflictMatchingMode,
        ...(prefix !== undefined ? { txtPrefix: prefix } : {}),
      }
    }
    case 'SRV': {
      const at = ownerName(required(rec, 'name', scope), scope, what)
      const name = `${srvLabel(required(rec, 'service', scope), what)}.${srvLabel(required(rec, 'protocol', scope), what)}.${at}`
      const rawTarget = required(rec, 'target', scope).trim()
      const target = rawTarget === '.' ? '.' : targetName(rawTarget, scope, what)
      const weight = uint16(required(rec, 'weight', scope), `${what} weight`)
      const port = uint16(required(rec, 'port', scope), `${what} port`)
      return { ...base, type: 'SRV', name, data: `${weight} ${port} ${target}`, ttl, priority: uint16(required(rec, 'priority', scope), `${what} priority`) }
    }
    case 'APEXCNAME':
      // An alias at the zone apex by definition: the apply `host` does not move it.
      return { ...base, type: 'APEXCNAME', name: scope.domain, data: targetName(required(rec, 'pointsTo', scope), scope, what), ttl }
    case 'REDIR301':
    case 'REDIR302':
      return { ...base, type: rec.type, name: owner(), data: redirectTarget(required(rec, 'target', scope), what), ttl }
    case 'SPFM':
      return { ...base, type: 'SPFM', name: owner(), data: spfRuleTerms(required(rec, 'spfRules', scope), what).join(' '), ttl }
    default: {
      if (!GENERIC_TYPE.test(rec.type)) throw new ApplyError('invalid_value', `${what}: unsupported record type`)
      const data = required(rec, 'data', scope).trim()
      if (data === '') throw new ApplyError('invalid_value', `${what}: empty data`)
      if (rec.type === 'CAA') checkCaa(data, what)
      return { ...base, type: rec.type, name: owner(), data, ttl }
    }
  }
}

/** RFC 8659 section 4.1: flags 0-255, an alphanumeric tag, a value (quoted or not). */
function checkCaa(data: string, what: string): void {
  const m = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+(\S.*)$/.exec(data)
  if (!m || Number(m[1]) > 255) throw new ApplyError('invalid_value', `${what}: "${data}" is not CAA data (flags tag value)`)
}

/** Spec "Group Filtering": ungrouped records are always active; an unmatched groupId list is an error. */
function activeRecords(template: Template, groupIds: string[] | undefined): TemplateRecord[] {
  if (!groupIds || groupIds.length === 0) return template.records
  const wanted = new Set(groupIds)
  if (!template.records.some((r) => r.groupId !== undefined && wanted.has(r.groupId))) {
    throw new ApplyError('no_matching_group', `no record of the template is in group ${groupIds.join(', ')}`)
  }
  return template.records.filter((r) => r.groupId === undefined || wanted.has(r.groupId))
}

/** Refuses record sets DNS itself cannot hold (spec "Steps to Apply", RFC 1034 section 3.6.2, RFC 2181 section 10.1). */
function checkApplicable(rendered: Rendered[], domain: string): void {
  for (const r of rendered) {
    if (r.type === 'CNAME' && r.name === domain) throw new ApplyError('not_applicable', `CNAME at the zone apex ${domain}`)
    if (r.type === 'NS' && r.name === domain) throw new ApplyError('not_applicable', `NS at the zone apex ${domain}`)
    if (r.type === 'CNAME' && rendered.some((o) => o.name === r.name && recordKey(o) !== recordKey(r))) {
      throw new ApplyError('not_applicable', `CNAME at ${r.name} next to other records of the template`)
    }
    // A name forwards to one place: two different redirects for it cannot both be served.
    if (REDIRECT_TYPES.has(r.type) && rendered.some((o) => o !== r && o.name === r.name && REDIRECT_TYPES.has(o.type) && recordKey(o) !== recordKey(r))) {
      throw new ApplyError('not_applicable', `two different redirects at ${r.name}`)
    }
  }
}

// ---------------------------------------------------------------- identity and conflicts

const HOST_DATA = new Set(['CNAME', 'NS', 'MX', 'APEXCNAME', 'SRV'])

/** Owner, type, priority and RDATA: the spec's "identical record" (TTL is not part of it). */
function recordKey(r: ZoneRecord): string {
  const type = r.type.toUpperCase()
  const data = HOST_DATA.has(type) ? normaliseName(r.data) : type === 'AAAA' ? r.data.toLowerCase() : r.data
  return `${type} ${normaliseName(r.name)} ${r.priority ?? ''} ${data}`
}

const ADDRESS_TYPES = new Set(['A', 'AAAA', 'APEXCNAME', 'REDIR301', 'REDIR302'])
const REDIRECT_TYPES = new Set(['REDIR301', 'REDIR302'])

function isSpf(type: string, data: string): boolean {
  return type === 'TXT' && /^v=spf1(\s|$)/i.test(data)
}

function isBelow(name: string, ancestor: string): boolean {
  return name.endsWith(`.${ancestor}`)
}

/**
 * Spec "Conflict Detection". A/AAAA extend to the address-like records Portico serves (APEXCNAME and the
 * edge redirects), which also answer A/AAAA queries. The zone's own apex NS set is never a conflict.
 */
function conflicts(n: Rendered, e: ZoneRecord, domain: string): boolean {
  const eType = e.type.toUpperCase()
  const eName = normaliseName(e.name)
  if (n.type === 'NS' && isBelow(eName, n.name)) return true
  if (eType === 'NS' && eName !== domain && isBelow(n.name, eName)) return true
  if (eName !== n.name) return false
  if (n.type === 'CNAME' || eType === 'CNAME') return true
  if (n.type === 'NS' || eType === 'NS') return eName !== domain
  if (ADDRESS_TYPES.has(n.type) && ADDRESS_TYPES.has(eType)) return true
  if ((n.type === 'MX' || n.type === 'SRV') && eType === n.type) return true
  if (n.type !== 'TXT' || eType !== 'TXT') return false
  if (n.txtMode === 'All') return true
  return n.txtMode === 'Prefix' && e.data.startsWith(n.txtPrefix ?? '')
}

// ---------------------------------------------------------------- SPF merging (spec "SPF Record Merging")

const SPF_MECHANISM =
  /^[+\-~?]?(?:(?:a|mx)(?::[^\s/]+)?(?:\/\d{1,3})?(?:\/\/\d{1,3})?|ptr(?::\S+)?|ip4:[\d.]+(?:\/\d{1,2})?|ip6:[0-9a-f:.]+(?:\/\d{1,3})?|(?:include|exists):\S+)$/i
const SPF_MODIFIER = /^[a-z][a-z0-9_.-]*=\S*$/i
const SPF_ALL = /^[+\-~?]?all$/i
const QUALIFIER_RANK: Record<string, number> = { '+': 0, '?': 1, '~': 2, '-': 3 }

/** spfRules hold mechanisms and modifiers only (RFC 7208 section 5); a stray version or "all" is dropped. */
function spfRuleTerms(rules: string, what: string): string[] {
  const terms = rules.split(/\s+/).filter((t) => t !== '' && !/^v=spf1$/i.test(t) && !SPF_ALL.test(t))
  for (const t of terms) {
    if (!SPF_MECHANISM.test(t) && !SPF_MODIFIER.test(t)) throw new ApplyError('invalid_value', `${what}: "${t}" is not an SPF mechanism or modifier`)
  }
  return terms
}

function qualifier(term: string): string {
  return term[0]! in QUALIFIER_RANK ? term[0]! : '+'
}

function unqualified(term: string): string {
  return (term[0]! in QUALIFIER_RANK ? term.slice(1) : term).toLowerCase()
}

/**
 * Merges rules into existing SPF texts: mechanisms keep their order, new ones are appended, and a
 * mechanism named twice keeps its least restrictive qualifier (pass, neutral, softfail, fail). The
 * existing "all" is kept; without one, "~all" ends the record unless a redirect= takes that role.
 */
function mergeSpf(existing: string[], rules: string[]): string {
  const mechanisms = new Map<string, string>()
  const modifiers = new Map<string, string>()
  let all: string | undefined
  const add = (term: string) => {
    if (SPF_ALL.test(term)) {
      all ??= term
    } else if (SPF_MODIFIER.test(term) && !SPF_MECHANISM.test(term)) {
      const name = term.slice(0, term.indexOf('=')).toLowerCase()
      if (!modifiers.has(name)) modifiers.set(name, term)
    } else {
      const key = unqualified(term)
      const prior = mechanisms.get(key)
      if (prior === undefined || QUALIFIER_RANK[qualifier(term)]! < QUALIFIER_RANK[qualifier(prior)]!) mechanisms.set(key, term)
    }
  }
  for (const text of existing) text.trim().split(/\s+/).slice(1).forEach(add)
  rules.forEach(add)
  if (all === undefined && !modifiers.has('redirect')) all = '~all'
  return ['v=spf1', ...mechanisms.values(), ...modifiers.values(), ...(all ? [all] : [])].join(' ')
}

// ---------------------------------------------------------------- the zone change

function plainRecord(r: Rendered): ZoneRecord {
  return { type: r.type, name: r.name, data: r.data, ttl: r.ttl, ...(r.priority !== undefined ? { priority: r.priority } : {}) }
}

function desiredRecord(r: Rendered): DesiredRecord {
  return { ...plainRecord(r), essential: r.essential, ...(r.groupId !== undefined ? { groupId: r.groupId } : {}) }
}

function dedupe(rendered: Rendered[]): Rendered[] {
  const seen = new Set<string>()
  return rendered.filter((r) => {
    const key = recordKey(r)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** One SPF TXT record per SPFM host: survivors' SPF records and rendered SPF TXT merged with the rules. */
function spfAdditions(spfm: Rendered[], kept: ZoneRecord[], adds: Rendered[]): { remove: Set<ZoneRecord>; drop: Set<Rendered>; add: Rendered[] } {
  const remove = new Set<ZoneRecord>()
  const drop = new Set<Rendered>()
  const add: Rendered[] = []
  const hosts = [...new Set(spfm.map((r) => r.name))]
  for (const name of hosts) {
    const zoneSpf = kept.filter((z) => normaliseName(z.name) === name && isSpf(z.type.toUpperCase(), z.data))
    const renderedSpf = adds.filter((r) => r.name === name && isSpf(r.type, r.data))
    const rules = spfm.filter((r) => r.name === name)
    const data = mergeSpf([...zoneSpf, ...renderedSpf].map((r) => r.data), rules.flatMap((r) => r.data.split(' ').filter(Boolean)))
    zoneSpf.forEach((z) => remove.add(z))
    renderedSpf.forEach((r) => drop.add(r))
    const ttl = zoneSpf[0]?.ttl ?? renderedSpf[0]?.ttl ?? rules[0]!.ttl
    add.push({ ...rules[0]!, type: 'TXT', name, data, ttl, txtMode: 'None' })
  }
  return { remove, drop, add }
}

/** RFC 2181 section 5.2: one TTL per RRset. New records follow the records they join, else the lowest. */
function reconcileTtls(additions: ZoneRecord[], kept: ZoneRecord[]): ZoneRecord[] {
  const rrset = (r: ZoneRecord) => `${r.type.toUpperCase()} ${normaliseName(r.name)}`
  const ttlOf = new Map<string, number>()
  for (const r of kept) ttlOf.set(rrset(r), Math.min(ttlOf.get(rrset(r)) ?? r.ttl, r.ttl))
  const fromKept = new Set(ttlOf.keys())
  for (const r of additions) if (!fromKept.has(rrset(r))) ttlOf.set(rrset(r), Math.min(ttlOf.get(rrset(r)) ?? r.ttl, r.ttl))
  return additions.map((r) => ({ ...r, ttl: ttlOf.get(rrset(r))! }))
}

function applyToZone(rendered: Rendered[], zone: ZoneRecord[], domain: string) {
  const records = rendered.filter((r) => r.type !== 'SPFM')
  const spfm = rendered.filter((r) => r.type === 'SPFM')
  const renderedKeys = new Set(records.map(recordKey))
  // SPFM writes a TXT record, so it meets CNAME and NS conflicts like a TXT in mode None.
  const asTxt = spfm.map((r) => ({ ...r, type: 'TXT' }))
  const survives = (z: ZoneRecord) => renderedKeys.has(recordKey(z)) || ![...records, ...asTxt].some((n) => conflicts(n, z, domain))
  let kept = zone.filter(survives)
  const spf = spfAdditions(spfm, kept, records)
  kept = kept.filter((z) => !spf.remove.has(z))
  const keptKeys = new Set(kept.map(recordKey))
  const wanted = [...records.filter((r) => !spf.drop.has(r)), ...spf.add].filter((r) => !keptKeys.has(recordKey(r)))
  // A wanted record identical to one the zone already had is that record, kept with its TTL.
  const resurrected = new Set(zone.filter((z) => !kept.includes(z) && wanted.some((w) => recordKey(w) === recordKey(z))))
  const finalKept = zone.filter((z) => kept.includes(z) || resurrected.has(z))
  const additions = reconcileTtls(
    wanted.filter((w) => !finalKept.some((z) => recordKey(z) === recordKey(w))).map(plainRecord),
    finalKept,
  )
  return { toAdd: additions, toDelete: zone.filter((z) => !finalKept.includes(z)), result: [...finalKept, ...additions] }
}

function scopeOf(input: ApplyInput): Scope {
  const domain = normaliseName(input.domain)
  if (!isDomainName(domain)) throw new ApplyError('invalid_domain', `"${input.domain}" is not a domain name`)
  const rawHost = normaliseName(input.host ?? '')
  const host = rawHost === '@' ? '' : rawHost
  if (host !== '' && !isDomainName(host)) throw new ApplyError('invalid_domain', `host "${input.host}" is not a host name`)
  if (input.template.hostRequired && host === '') throw new ApplyError('host_required', 'this template needs a host (subdomain)')
  return { domain, host, fqdn: host ? `${host}.${domain}` : domain, params: input.params }
}

/** Renders the template for domain/host and computes the change to `zone`; see the module header. */
export function applyTemplate(input: ApplyInput): ApplyResult {
  try {
    const scope = scopeOf(input)
    const active = activeRecords(input.template, input.groupIds)
    const rendered = dedupe(active.map((rec) => renderRecord(rec, scope, input.template.records.indexOf(rec))))
    checkApplicable(rendered, scope.domain)
    return { ok: true, records: rendered.map(desiredRecord), ...applyToZone(rendered, input.zone, scope.domain) }
  } catch (err) {
    if (err instanceof ApplyError) return { ok: false, code: err.code, error: err.message }
    throw err
  }
}
