// Desired records (the API contract, section 2, DNS record): what must be published for a connection to
// work, planned from the application's connect target, or authored by the integrator. `host` is
// relative to the zone apex (`@` is the apex itself), as people type it into DNS dashboards.
import { isIPv4, isIPv6 } from 'node:net'
import { Type, type Static } from '@sinclair/typebox'
import { named } from './named.ts'
import type { StoredRecord } from '../db/connections.ts'
import { absoluteHost, normalizeHostname, type ParsedDomain } from './hostnames.ts'

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'ALIAS', 'ANAME', 'CAA', 'MX', 'NS', 'TXT', 'SPFM', 'REDIR301'] as const

/** Record types that point the zone apex at a hostname: a host's ALIAS or ANAME, or a CNAME at `@` the
 * host flattens (issue 46). The apex answers A queries with the target's addresses. */
export const isApexPointer = (r: { type: string; host: string }) => (r.type === 'ALIAS' || r.type === 'ANAME' || r.type === 'CNAME') && (r.host === '@' || r.host === '')
export type RecordType = (typeof RECORD_TYPES)[number]

/** Every `purpose` Portico gives a record it plans (issue 46: each one declared in the OpenAPI document). */
export const RECORD_PURPOSES = {
  routing: 'points the hostname at the application (a CNAME below the apex; A records at an apex whose host has no apex record)',
  routing_alias: 'points the zone apex at the application with the DNS host\'s ALIAS record',
  routing_aname: 'points the zone apex at the application with the DNS host\'s ANAME record',
  routing_flattening: 'points the zone apex at the application with a CNAME at `@` that the DNS host flattens',
  ownership: 'proves the domain is the customer\'s (TXT)',
  dcv_delegation: 'delegates certificate validation to Portico (the `_acme-challenge` CNAME)',
  www_redirect: 'points www at the application, which redirects it to the domain',
} as const
export type RecordPurpose = keyof typeof RECORD_PURPOSES
const PURPOSE_DESCRIPTION = 'Why the record is there. Portico\'s own: ' + Object.entries(RECORD_PURPOSES).map(([k, v]) => `\`${k}\` ${v}`).join('; ') + '. A record an integrator authored keeps the purpose it was given.'

export const DnsRecordSchema = named('DnsRecord', Type.Object(
  {
    type: Type.Union(RECORD_TYPES.map((t) => Type.Literal(t)), { description: 'SPFM merges into an existing SPF TXT record; REDIR301 is an HTTP redirect served by the edge; ALIAS and ANAME point the zone apex (`@` only) at a hostname where the DNS host offers that record (a CNAME at `@` is the record of a host that flattens one, as Cloudflare does)' }),
    host: Type.String({ minLength: 1, maxLength: 253, description: 'Relative to the zone apex; `@` is the apex' }),
    value: Type.String({ minLength: 1, maxLength: 2048 }),
    ttl: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400 })),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })),
    purpose: Type.Optional(Type.String({ maxLength: 100, description: PURPOSE_DESCRIPTION })),
  },
  { additionalProperties: false },
))
export type DnsRecord = Static<typeof DnsRecordSchema>

// What `desired_records` stores (src/db/connections.ts) is this shape: a change to one alone fails the typecheck here.
true satisfies [DnsRecord, StoredRecord] extends [StoredRecord, DnsRecord] ? true : never

export interface ConnectTarget {
  cname_target: string
  apex_ipv4: string[]
}

export type ApexCapability = 'alias' | 'aname' | 'flattening' | null
export type ApexStrategy = 'not_apex' | 'alias' | 'aname' | 'flattening' | 'a_records' | 'unsupported'

export const OWNERSHIP_LABEL = '_portico-challenge'
export const DEFAULT_TTL = 300

export function apexStrategy(parsed: ParsedDomain, target: ConnectTarget, apex: ApexCapability): ApexStrategy {
  if (!parsed.isApex) return 'not_apex'
  if (apex) return apex
  return target.apex_ipv4.length > 0 ? 'a_records' : 'unsupported'
}

/**
 * The records a connection needs. A subdomain is a CNAME to the target. An apex uses the provider's
 * ALIAS-style record when it has one (it follows the target's addresses), otherwise A records to the
 * target's addresses plus a TXT ownership record, since anyone can point an A record at shared
 * addresses. With `www_redirect` the www host points at the target too; the edge redirects it.
 */
export function planRecords(parsed: ParsedDomain, target: ConnectTarget, apex: ApexCapability, wwwRedirect: boolean, token: string): DnsRecord[] {
  const strategy = apexStrategy(parsed, target, apex)
  const out: DnsRecord[] = []
  if (strategy === 'not_apex') {
    out.push({ type: 'CNAME', host: parsed.subdomain, value: target.cname_target, ttl: DEFAULT_TTL, purpose: 'routing' })
  } else if (strategy === 'a_records') {
    for (const ip of target.apex_ipv4) out.push({ type: 'A', host: '@', value: ip, ttl: DEFAULT_TTL, purpose: 'routing' })
    out.push({ type: 'TXT', host: OWNERSHIP_LABEL, value: `portico-verify=${token}`, ttl: DEFAULT_TTL, purpose: 'ownership' })
  } else if (strategy !== 'unsupported') {
    // The record the host really offers at the apex, by its own name (issue 46): the manual rail shows
    // it as it is to be created there; the API rails write it as the host's convention says.
    out.push({ type: strategy === 'alias' ? 'ALIAS' : strategy === 'aname' ? 'ANAME' : 'CNAME', host: '@', value: target.cname_target, ttl: DEFAULT_TTL, purpose: `routing_${strategy}` })
  }
  if (wwwRedirect && parsed.isApex && strategy !== 'unsupported') {
    out.push({ type: 'CNAME', host: 'www', value: target.cname_target, ttl: DEFAULT_TTL, purpose: 'www_redirect' })
  }
  return out
}

const SPF_TERM = /^(?:[+?~-]?(?:all|include:\S+|a(?::\S+)?|mx(?::\S+)?|ip4:\S+|ip6:\S+|exists:\S+|ptr(?::\S+)?)|redirect=\S+|exp=\S+)(?:\s+(?:[+?~-]?(?:all|include:\S+|a(?::\S+)?|mx(?::\S+)?|ip4:\S+|ip6:\S+|exists:\S+|ptr(?::\S+)?)|redirect=\S+|exp=\S+))*$/i

function valueProblem(r: DnsRecord): string | null {
  switch (r.type) {
    case 'A':
      return isIPv4(r.value) ? null : 'must be an IPv4 address'
    case 'AAAA':
      return isIPv6(r.value) ? null : 'must be an IPv6 address'
    case 'CNAME':
    case 'NS':
      return normalizeHostname(r.value) ? null : 'must be a hostname'
    case 'ALIAS':
    case 'ANAME':
      if (r.host !== '@') return `${r.type} points the zone apex (host @) at a hostname; below it use a CNAME`
      return normalizeHostname(r.value) ? null : 'must be a hostname'
    case 'MX':
      if (r.priority === undefined) return 'MX records need a priority'
      return normalizeHostname(r.value) ? null : 'must be a hostname'
    case 'CAA':
      return /^\d{1,3} (issue|issuewild|iodef|contactemail|contactphone) "[^"]*"$/.test(r.value) ? null : 'must look like 0 issue "ca.example"'
    case 'TXT':
      return null
    case 'SPFM':
      return SPF_TERM.test(r.value.replace(/^v=spf1\s+/i, '')) ? null : 'must be SPF mechanisms such as include:_spf.example.com'
    case 'REDIR301':
      try {
        const u = new URL(r.value)
        return u.protocol === 'https:' || u.protocol === 'http:' ? null : 'must be an http(s) URL'
      } catch {
        return 'must be an http(s) URL'
      }
  }
}

/**
 * Checks an integrator-authored record set for a connection: valid values, hosts at or below the
 * connected hostname, no CNAME beside other data at the same host. Returns the problems found.
 */
export function recordSetProblems(records: DnsRecord[], parsed: ParsedDomain): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = []
  const byHost = new Map<string, Set<string>>()
  records.forEach((r, i) => {
    const fqdn = absoluteHost(r.host, parsed.apex)
    if (!normalizeHostname(fqdn) && !/^_/.test(r.host)) problems.push({ field: `records.${i}.host`, message: 'not a valid host' })
    else if (fqdn !== parsed.domain && !fqdn.endsWith('.' + parsed.domain)) {
      problems.push({ field: `records.${i}.host`, message: `must be ${parsed.domain} or below it` })
    }
    const p = valueProblem(r)
    if (p) problems.push({ field: `records.${i}.value`, message: p })
    const types = byHost.get(fqdn) ?? new Set<string>()
    types.add(r.type)
    byHost.set(fqdn, types)
  })
  for (const [host, types] of byHost) {
    if (types.has('CNAME') && [...types].some((t) => t !== 'CNAME' && t !== 'REDIR301')) {
      problems.push({ field: 'records', message: `${host}: a CNAME cannot stand beside other records` })
    }
    // An apex record answers for the apex's addresses: an A or AAAA beside it, or the other kind, clashes.
    const pointers = [...types].filter((t) => t === 'ALIAS' || t === 'ANAME')
    if (pointers.length && (pointers.length > 1 || types.has('A') || types.has('AAAA'))) {
      problems.push({ field: 'records', message: `${host}: an ${pointers[0]} answers for the apex's addresses; it cannot stand beside ${[...types].filter((t) => t !== pointers[0] && (t === 'A' || t === 'AAAA' || t === 'ALIAS' || t === 'ANAME')).join(', ')}` })
    }
  }
  return problems
}

/** Canonical form, for "is this the same set" comparisons (order and TTL defaults do not matter). */
export function canonicalRecords(records: DnsRecord[]): string {
  return JSON.stringify(
    records
      .map((r) => ({ type: r.type, host: r.host.toLowerCase(), value: r.type === 'TXT' ? r.value : r.value.toLowerCase().replace(/\.$/, ''), ttl: r.ttl ?? DEFAULT_TTL, priority: r.priority ?? null }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  )
}
