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
// provider's own reason (never the credential). The kinds are the reasons a person can act on: a bad
// credential (`auth`), a credential without the right scope (`permission`), an account or plan the
// provider's API refuses (`plan_restricted`, GoDaddy's small accounts), a rate limit (with the
// provider's Retry-After in seconds when it sends one), an unknown zone, a record that clashes with
// one already there (`conflict`), any other refusal (`write_failed`), an unreachable API and a refusal
// the host itself calls temporary (`temporary`, with a wait when it gives one: Dynadot's "problem with
// connection to main server"), which is answered with a retry hint, never as a permanent refusal. Two more
// keep the customer's zone whole: `unrepresentable` (the zone holds something this adapter cannot
// write back as it is, so it refuses before writing anything) and `too_many_pages` (a listing did not
// end within the hard cap of src/adapters/dns-providers/paging.ts).
//
// Do no harm: an adapter reads what it cannot write back faithfully (a Cloudflare record with a
// comment, a Route 53 alias, a Namecheap URL redirect, an OVH SPF record) as a set with `locked`
// naming why; the planner never changes or removes a locked set (it refuses with `unrepresentable`
// before anything is written), and the adapter never drops one it does not understand. `native`
// carries a provider's own attributes of a value (Cloudflare's proxy status) so a set Portico removed
// is restored with them.

export interface RRset {
  name: string
  type: string
  ttl: number
  values: string[]
  /** Why Portico cannot rewrite this set without losing something: it is never changed or removed. */
  locked?: string
  /** Provider attributes per value, kept so a restored set is the set it was (opaque to the planner). */
  native?: Record<string, unknown>
}

/** A change to one record set: its new values (an empty list deletes the set). */
export interface RRsetChange {
  name: string
  type: string
  ttl: number
  values: string[]
  /** Provider attributes per value to write back (a restore of a set Portico removed). */
  native?: Record<string, unknown>
}

export interface Zone {
  /** The provider's own id for the zone (Cloudflare zone id, Route 53 hosted zone id, the name elsewhere). */
  id: string
  /** The zone apex, canonical. */
  name: string
  /** The name servers the host assigned the zone, where its listing says (Cloudflare, Google, Azure). */
  nameServers?: string[]
  /** The host's own status of the zone, where it has one (Cloudflare: `active`, `pending`, `moved`…). */
  status?: string
}

export type ProviderErrorKind =
  | 'auth'
  | 'temporary'
  | 'permission'
  | 'plan_restricted'
  | 'rate_limited'
  | 'zone_not_found'
  | 'conflict'
  | 'write_failed'
  | 'unreachable'
  | 'unrepresentable'
  | 'too_many_pages'
  | 'zone_ambiguous'
  | 'zone_not_delegated'
  /** An all-or-nothing write refused because the zone changed between the read it was built from and
   * the write (Google Cloud DNS 412 conditionNotMet), again after one fresh read: nothing was written. */
  | 'zone_changed'

/** A record set a failed write had changed and that could not be put back: what it held before the write
 * (`values` empty: there was no set; `ttl` null then). */
export interface UnrestoredSet {
  name: string
  type: string
  ttl: number | null
  values: string[]
}

/** What a write refused midway left behind, once Portico tried to put the zone back as it was. */
export interface WriteRollback {
  /** The sets the write had changed that were put back as they were. */
  restored: { name: string; type: string }[]
  /** The sets that were not, with what they held before the write. */
  not_restored: UnrestoredSet[]
}

export class ProviderError extends Error {
  /** Set on a write refused after some of its calls went through (src/adapters/dns-providers/restore.ts). */
  rollback?: WriteRollback
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
    /** Seconds to wait, from the provider's Retry-After (rate limits and temporary refusals). */
    readonly retryAfter?: number,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}

/**
 * How one host takes and gives back what Portico writes, declared as data beside its adapter (issue 46):
 * each convention with the recording or reference it comes from. `apex` is read by the planner; the
 * TTL rules are the adapter's `minTtl`, `allowedTtls` and `uniformTtl`; the rest say what the adapter's
 * reading and writing code does, for the card and the closing table (test/integration/dns-host-properties.test.ts
 * holds every adapter to them against stand-ins rebuilt from the recordings).
 */
export interface HostConventions {
  /**
   * The record type (as this adapter reads it) that points a zone apex at a hostname: `CNAME` where the
   * host flattens a CNAME there (Cloudflare), `ALIAS`, `ANAME`, bunny.net's `FLATTEN`; null where the host
   * has none, so an apex gets A records to the target's addresses. Never a CNAME beside SOA and NS
   * (RFC 1034 §3.6.2, RFC 1912 §2.4) unless the host flattens it.
   */
  apex: string | null
  /** Record names as the API takes and gives them (relative, `@`, absolute, trailing dot). */
  names: string
  /** Hostnames inside record data (CNAME, MX, NS targets): how they are written and read back. */
  hostnames: string
  /** TXT: quoted or bare, split into 255-byte strings or not. */
  txt: string
  /** TTL: floor, allowed values and rounding, one TTL per zone. */
  ttl: string
  /** Which refusals are temporary (retried within the budget, or answered with a retry hint). */
  temporary: string
  /** Where each convention comes from: a recorded exchange (with its origin) or the host's reference. */
  sources: Record<'apex' | 'names' | 'hostnames' | 'txt' | 'ttl' | 'temporary', string>
}

export interface DnsProvider {
  /** Catalog id (src/domain/providers.ts). */
  readonly id: string
  /** This host's conventions, declared beside the adapter. */
  readonly conventions: HostConventions
  /** The lowest TTL the provider accepts (Porkbun 600, deSEC and Namesilo 3600); the planner raises desired TTLs to it. */
  readonly minTtl?: number
  /** The only TTLs the provider stores (Linode, ClouDNS): the planner rounds a desired TTL up to the next one. */
  readonly allowedTtls?: readonly number[]
  /** The zone has one TTL for all its records (Dynadot); the planner writes every set with it. */
  readonly uniformTtl?: boolean
  /** Every zone the credential reaches. */
  listZones(): Promise<Zone[]>
  /** A zone's assigned name servers, for a host whose listing does not carry them (Route 53's
   * GetHostedZone); asked only when several zones share the domain's zone name. */
  zoneNameServers?(zone: Zone): Promise<string[]>
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

/**
 * The zones of every scope a person's grant reaches (Google projects, Azure subscriptions): a scope
 * that refuses (no permission there, the DNS API not enabled in it) is passed over, since the zone may
 * well be in another; only when every scope refuses and none has a zone is the first refusal the answer.
 */
export async function acrossScopes(scopes: (() => Promise<Zone[]>)[]): Promise<Zone[]> {
  const out: Zone[] = []
  let refused: ProviderError | null = null
  for (const list of scopes) {
    try {
      out.push(...(await list()))
    } catch (e) {
      if (!(e instanceof ProviderError) || (e.kind !== 'permission' && e.kind !== 'zone_not_found')) throw e
      refused ??= e
    }
  }
  if (out.length === 0 && refused) throw refused
  return out
}

/** Two or more zones of one name, or one that is not the delegated copy: refused before anything is written. */
export class ZoneChoiceError extends ProviderError {
  constructor(
    kind: 'zone_ambiguous' | 'zone_not_delegated',
    message: string,
    /** The host's ids of the zones of that name the credential reaches. */
    readonly zoneIds: string[],
  ) {
    super(kind, message)
  }
}

const nsSet = (ns: string[]) => [...new Set(ns.map(canonicalName))].sort().join(' ')
/** A host's status that serves the zone: none given, or `active` (Cloudflare's pending, moved, initializing do not). */
const serving = (z: Zone) => z.status === undefined || z.status === 'active'

/**
 * The zone of `domain` Portico may write: the longest zone name at or above it. Several zones of that
 * name (two accounts one token reaches, a stale or staging copy, a zone in two resource groups: Route 53,
 * Cloudflare, Google Cloud DNS and Azure all allow it) are told apart by the delegation the domain's
 * parent publishes (`delegation`, looked up only then): the one copy whose assigned name servers are
 * those and whose status serves is chosen; none or several is `zone_not_delegated` / `zone_ambiguous`,
 * naming the zone ids, before anything is written. A single zone the host says does not serve (a
 * Cloudflare `pending` or `moved` copy) and whose name servers are not the delegated ones is refused too.
 */
export async function chooseZone(
  provider: Pick<DnsProvider, 'zoneNameServers'>,
  zones: Zone[],
  domain: string,
  delegation: (zoneName: string) => Promise<string[] | null>,
): Promise<Zone | null> {
  const best = zoneFor(zones, domain)
  if (!best) return null
  const same = zones.filter((z) => z.name === best.name)
  if (same.length === 1 && serving(best)) return best
  const delegated = await delegation(best.name)
  const want = delegated?.length ? nsSet(delegated) : null
  const withNs = await Promise.all(same.map(async (z) => ({ z, ns: z.nameServers ?? (provider.zoneNameServers ? await provider.zoneNameServers(z) : null) })))
  // A single copy whose name servers the host does not say is taken as it is (nothing to tell it by).
  if (same.length === 1 && (withNs[0]!.ns === null || !want || nsSet(withNs[0]!.ns) === want)) return best
  const match = want ? withNs.filter((x) => x.ns !== null && nsSet(x.ns) === want && serving(x.z)).map((x) => x.z) : []
  if (match.length === 1) return match[0]!
  const ids = same.map((z) => z.id)
  const described = withNs.map((x) => `${x.z.id}${x.z.status ? ` (${x.z.status})` : ''}: ${x.ns?.join(', ') ?? 'name servers not given'}`).join('; ')
  // Several served by the delegation, no delegation to go by, or a copy whose name servers the host does
  // not say (DNSimple's accounts, NS1): which one is served cannot be told.
  if (match.length > 1 || (!want && same.length > 1) || (match.length === 0 && withNs.some((x) => x.ns === null))) {
    throw new ZoneChoiceError('zone_ambiguous', `${same.length} zones named ${best.name} are reachable with this credential and ${want ? 'more than one is served by the delegated name servers' : 'the delegation could not be looked up to tell them apart'} (${described}); nothing was written`, ids)
  }
  throw new ZoneChoiceError('zone_not_delegated', `no zone named ${best.name} reachable with this credential is the one the domain is delegated to (${delegated?.join(', ')}): ${described}; nothing was written`, ids)
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
    case 'ALIAS':
    case 'ANAME':
    case 'FLATTEN':
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

/** TXT as zone-file character strings: quoted, escaped, split into pieces of at most 255 bytes of
 * UTF-8 (RFC 1035 §3.3.14), never inside a character's bytes. */
export function quoteTxt(text: string): string {
  const pieces: string[] = []
  let piece = ''
  let bytes = 0
  for (const ch of text) {
    const n = Buffer.byteLength(ch)
    if (bytes + n > 255) {
      pieces.push(piece)
      piece = ''
      bytes = 0
    }
    piece += ch
    bytes += n
  }
  pieces.push(piece)
  return pieces.map((p) => `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(' ')
}

/**
 * A TXT value as a host gave it in zone-file strings. The canonical value joins the strings; when the
 * host held them split elsewhere than `quoteTxt` would split them (`"v=spf1 include:_spf.google.com "
 * "include:mailgun.org -all"`, as people and tools write long SPF values), the strings are kept as
 * `txt` in the value's native entry, so writing the value back (a restore, a set Portico adds a value
 * to, a Route 53 DELETE that must name the set exactly) sends them byte for byte.
 */
export function readTxt(wire: string): { value: string; native?: { txt: string } } {
  const w = wire.trim()
  const value = unquoteTxt(w)
  return w.startsWith('"') && /"\s+"/.test(w) && quoteTxt(value) !== w ? { value, native: { txt: w } } : { value }
}

/** The zone-file strings to write `value` as: the host's own (readTxt) when the set's native map holds them, else `quoteTxt`. */
export function writeTxt(value: string, native?: Record<string, unknown> | unknown): string {
  const own = (native as Record<string, { txt?: unknown } | undefined> | undefined)?.[value]?.txt ?? (native as { txt?: unknown } | undefined)?.txt
  return typeof own === 'string' && unquoteTxt(own) === value ? own : quoteTxt(value)
}

/** TXT wire strings of one set as canonical values, with the native map `readTxt` asks for (none when every value is plain). */
export function readTxtSet(wires: string[]): { values: string[]; native?: Record<string, unknown> } {
  const read = wires.map(readTxt)
  const native = Object.fromEntries(read.filter((r) => r.native).map((r) => [r.value, r.native]))
  return { values: read.map((r) => r.value), ...(Object.keys(native).length ? { native } : {}) }
}

/** The text of zone-file TXT content: one or more quoted strings joined; unquoted content as is.
 * `\DDD` is one byte (decimal); the bytes of all strings are decoded together as UTF-8. */
export function unquoteTxt(content: string): string {
  const c = content.trim()
  if (!c.startsWith('"')) return c
  const out: number[] = []
  const push = (s: string) => out.push(...Buffer.from(s, 'utf8'))
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
          out.push(Number(d[0]) & 0xff)
          i += 4
          continue
        }
        push(c[i + 1]!)
        i += 2
        continue
      }
      const cp = c.codePointAt(i)!
      const ch = String.fromCodePoint(cp)
      push(ch)
      i += ch.length
    }
    i++
  }
  return Buffer.from(out).toString('utf8')
}
