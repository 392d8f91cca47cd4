// The DNS-provider adapter interface (issue 6): find the zone a domain lives in, read its record sets,
// write a change set, delete. Everything above this line (src/domain/apply.ts) works on record sets
// in one canonical form, so the rules about keeping CAA and TXT, merging SPF and recording what was
// replaced are written once, not per provider.
//
// Canonical form:
// - names are absolute, lowercase, without the trailing dot (`shop.example.com`);
// - A/AAAA values are address literals; CNAME/NS hostnames lowercase without the trailing dot;
//   MX is `priority host`; TXT is the text itself (unquoted; long strings joined); CAA is
//   `flags tag "value"`.
// - A record set (RRset) is every value of one name and type, with one TTL.
//
// Errors: adapters throw `ProviderError` with a kind the apply rules branch on; `message` carries the
// provider's own reason (never the credential).

export interface RRset {
  name: string
  type: string
  ttl: number
  values: string[]
}

/** A change to one record set: its new values (an empty list deletes the set). */
export interface RRsetChange {
  name: string
  type: string
  ttl: number
  values: string[]
}

export interface Zone {
  /** The provider's own id for the zone (Cloudflare zone id, Route 53 hosted zone id, the name elsewhere). */
  id: string
  /** The zone apex, canonical. */
  name: string
}

export type ProviderErrorKind = 'auth' | 'rate_limited' | 'zone_not_found' | 'write_failed' | 'unreachable'

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}

export interface DnsProvider {
  /** Catalog id (src/domain/providers.ts). */
  readonly id: string
  /** Every zone the credential reaches. */
  listZones(): Promise<Zone[]>
  /** Every record set of a zone (SOA included; apply rules never touch it). */
  readRecords(zone: Zone): Promise<RRset[]>
  /** Applies the changes; each replaces the whole record set of its name and type. */
  writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void>
}

/** What an integrator hands over to reach a provider: the key and, for self-hosted APIs, their URL. */
export interface ProviderCredential {
  secret: string
  /** PowerDNS only: the integrator's API URL (`https://dns.example.com/api/v1/servers/localhost`). */
  apiUrl?: string
}

/** The zone that holds `domain`: the longest zone name that is `domain` or a suffix of it. */
export function zoneFor(zones: Zone[], domain: string): Zone | null {
  const d = canonicalName(domain)
  let best: Zone | null = null
  for (const z of zones) {
    if ((d === z.name || d.endsWith('.' + z.name)) && (!best || z.name.length > best.name.length)) best = z
  }
  return best
}

export function canonicalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '')
}

/** Canonical value of a record of `type` as a provider or a person wrote it. */
export function canonicalValue(type: string, value: string): string {
  const v = value.trim()
  switch (type) {
    case 'CNAME':
    case 'NS':
      return canonicalName(v)
    case 'MX': {
      const [prio, host] = v.split(/\s+/)
      return `${Number(prio)} ${canonicalName(host ?? '')}`
    }
    case 'A':
    case 'AAAA':
      return v.toLowerCase()
    default:
      return v
  }
}

/** TXT as zone-file character strings: quoted, escaped, split into 255-byte pieces (RFC 1035 §3.3.14). */
export function quoteTxt(text: string): string {
  const pieces: string[] = []
  for (let i = 0; i < text.length || i === 0; i += 255) pieces.push(text.slice(i, i + 255))
  return pieces.map((p) => `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(' ')
}

/** The text of zone-file TXT content: one or more quoted strings joined; unquoted content as is. */
export function unquoteTxt(content: string): string {
  const c = content.trim()
  if (!c.startsWith('"')) return c
  let out = ''
  let i = 0
  while (i < c.length) {
    if (c[i] !== '"') {
      i++
      continue
    }
    i++
    while (i < c.length && c[i] !== '"') {
      if (c[i] === '\\' && i + 1 < c.length) {
        const d = /^\d{3}/.exec(c.slice(i + 1))
        if (d) {
          out += String.fromCharCode(Number(d[0]))
          i += 4
          continue
        }
        out += c[i + 1]
        i += 2
        continue
      }
      out += c[i]
      i++
    }
    i++
  }
  return out
}
