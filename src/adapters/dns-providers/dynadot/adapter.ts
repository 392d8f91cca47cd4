// Dynadot Advanced Domain API (https://www.dynadot.com/domain/api3.html): GET /api3.json?key=…&command=…
// (the key travels in the query string, so no URL is ever put in an error). Zones: list_domain (the
// whole list, `MainDomains[].Name`); records: get_dns (`NameServerSettings`: `MainDomains` at the apex
// and `SubDomains` with `Subhost`, each `{RecordType, Value, Value2}` with the MX distance in `Value2`,
// and one `TTL` for the whole zone); a write is set_dns2, which replaces every record of the domain at
// once (`main_record_type{n}`, `main_record{n}`, `main_recordx{n}`, `subdomain{n}`, `sub_record_type{n}`,
// `sub_record{n}`, `sub_recordx{n}`, `ttl`), so the change set is applied to the zone as read and the
// whole zone is sent, atomically. The zone has one TTL (`uniformTtl`: the planner writes every set with
// it). Record types are lowercase; CAA carries `flags tag "value"` in its value. Do no harm: since
// set_dns2 replaces the whole zone, every row Portico does not change is sent back exactly as get_dns
// gave it (URL forwards, stealth forwards, email forwarding, SRV: read as locked sets), a write over or
// beside a forward is refused before anything is sent, and a domain that is not on Dynadot DNS (parked,
// forwarded) is never switched over. Errors come as
// `{…Response: {ResponseCode: "-1", Status: "error", Error}}` with HTTP 200: an invalid key, a key used
// from an address its allow-list lacks (a permission), a domain not in the account; HTTP 429 is the
// rate limit (Dynadot serves one request at a time per key).
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { refuseBesideFlattened } from '../flattened.ts'
import { canonicalName, canonicalValue, ProviderError, type DnsProvider, type ProviderErrorKind, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const DYNADOT_API = 'https://api.dynadot.com'

const TYPES = new Set(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'CAA'])
/** set_dns2 takes at most this many records at the apex and below it. */
const MAX_MAIN = 20
const MAX_SUB = 100

function kindOf(error: string): ProviderErrorKind {
  const e = error.toLowerCase()
  if (e.includes('invalid key') || e.includes('key is invalid')) return 'auth'
  if (e.includes('ip') && (e.includes('not allowed') || e.includes('whitelist') || e.includes('allow list'))) return 'permission'
  if (e.includes('could not find domain') || e.includes('not found') || e.includes('not in your account')) return 'zone_not_found'
  if (e.includes('too many') || e.includes('one request at a time')) return 'rate_limited'
  // "problem with connection to main server", "… is busy", "… is offline": Dynadot maintaining its main
  // server; its support: "Just try again in a few minutes" (acme.sh dnsapi/dns_dynadot.sh, where the
  // answer is recorded). Retrying within one request does not help (it outlasts a minute there).
  if (e.includes('main server')) return 'temporary'
  return 'write_failed'
}

/** Seconds to wait after Dynadot's own temporary refusal ("try again in a few minutes"). */
export const DYNADOT_TEMPORARY_WAIT = 120

interface DynadotRecord {
  RecordType: string
  Value: string
  Value2?: string
  Subhost?: string
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "apex rows and `Subhost` rows (relative)",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "one TTL for the whole zone",
  temporary: "\"problem with connection to main server\" (and \"… busy\", \"… offline\"): temporary, answered 503 with Retry-After 120; 429 waited out",
  sources: {
    apex: "catalogue: no apex record offered (forwards are read as locked)",
    names: "the reference card (src/adapters/dns-providers/dynadot/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/dynadot/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/dynadot/card.ts)",
    ttl: "dynadot.com/domain/api3 (set_dns2 ttl)",
    temporary: "acme.sh dnsapi/dns_dynadot.sh (the answer recorded, and Dynadot support: \"Just try again in a few minutes\")",
  },
}

export class DynadotProvider implements DnsProvider {
  readonly id = 'dynadot'
  readonly conventions = CONVENTIONS
  readonly uniformTtl = true
  constructor(
    private readonly key: string,
    private readonly base = DYNADOT_API,
  ) {}

  private async call(command: string, params: Record<string, string> = {}): Promise<any> {
    const q = new URLSearchParams({ key: this.key, command, ...params })
    const r: HttpResult = await exchange('GET', `${this.base}/api3.json?${q}`, {}, undefined)
    const answer = r.body && typeof r.body === 'object' ? (Object.values(r.body)[0] as any) : undefined
    if (r.status >= 300 || String(answer?.ResponseCode) !== '0') {
      const error = String(answer?.Error ?? `HTTP ${r.status}`).split(this.key).join('…')
      const kind = r.status >= 300 ? undefined : kindOf(error)
      if (kind === 'temporary') throw new ProviderError('temporary', `Dynadot is temporarily unable to answer (${error.slice(0, 200)}); nothing was written`, r.status, DYNADOT_TEMPORARY_WAIT)
      throw failureOf('Dynadot', r, error, kind)
    }
    return answer
  }

  async listZones(): Promise<Zone[]> {
    const answer = await this.call('list_domain')
    return ((answer.MainDomains ?? []) as { Name: string }[]).map((d) => ({ id: canonicalName(d.Name), name: canonicalName(d.Name) }))
  }

  /** Every record of the zone as get_dns gives it, in its order, with the zone's TTL and DNS setting. */
  private async rows(zone: Zone): Promise<{ ttl: number; setting: string | undefined; rows: Row[] }> {
    const settings = (await this.call('get_dns', { domain: zone.id })).GetDns?.NameServerSettings ?? {}
    const rows: Row[] = []
    for (const r of (settings.MainDomains ?? []) as DynadotRecord[]) rows.push({ name: zone.name, type: String(r.RecordType).toUpperCase(), raw: r })
    for (const r of (settings.SubDomains ?? []) as DynadotRecord[]) rows.push({ name: absoluteName(r.Subhost ?? '', zone.name), type: String(r.RecordType).toUpperCase(), raw: r })
    return { ttl: Number(settings.TTL ?? 3600), setting: settings.Type === undefined ? undefined : String(settings.Type), rows }
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const { ttl, rows } = await this.rows(zone)
    const sets = new Map<string, RRset>()
    for (const { name, type, raw } of rows) {
      const value = valueOf(type, raw)
      const s = sets.get(`${name}|${type}`) ?? { name, type, ttl, values: [] }
      if (!s.values.includes(value)) s.values.push(value)
      // Forwarding, stealth forwarding, email forwarding, SRV…: read so the planner sees them, never rewritten.
      if (!TYPES.has(type)) s.locked = `Dynadot ${LOCKED[type] ?? `${type.toLowerCase()} record`}`
      sets.set(`${name}|${type}`, s)
    }
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const { ttl: zoneTtl, setting, rows } = await this.rows(zone)
    // set_dns2 switches the domain to Dynadot DNS: a domain parked, forwarded or on other name
    // servers would lose that setting.
    if (setting !== undefined && !/dynadot dns/i.test(setting)) throw new ProviderError('unrepresentable', `Dynadot: ${zone.name} uses "${setting}", not Dynadot DNS; writing records would switch it over and end that setting, so nothing was written`)
    for (const c of changes) if (!TYPES.has(c.type)) throw new ProviderError('unrepresentable', `Dynadot: ${c.name} ${c.type} is not a record Portico writes at Dynadot; nothing was written`)
    const current = [...new Map(rows.map((r) => [`${r.name}|${r.type}`, { name: r.name, type: r.type, values: rows.filter((o) => o.name === r.name && o.type === r.type).map((o) => valueOf(o.type, o.raw)) }])).values()]
    for (const c of changes) {
      const locked = current.find((s) => s.name === c.name && s.type === c.type && !TYPES.has(s.type))
      if (locked) throw new ProviderError('unrepresentable', `Dynadot: ${c.name} holds a ${locked.type.toLowerCase()} record Portico cannot write back; nothing was written`)
    }
    refuseBesideFlattened('Dynadot', current, changes, ['FORWARD', 'STEALTH'])
    const changed = new Map(changes.map((c) => [`${c.name}|${c.type}`, c]))
    // set_dns2 replaces every record of the domain: every row that is not changed goes back exactly as
    // get_dns gave it (forwards, stealth and email forwarding, SRV, values and their extra field),
    // in its place; a changed set is written where it stood, new sets after.
    const out: { name: string; type: string; value: string; extra?: string }[] = []
    const done = new Set<string>()
    const emit = (c: RRsetChange) => {
      for (const v of c.values) {
        const [prio, host] = v.split(' ')
        out.push(c.type === 'MX' ? { name: c.name, type: 'mx', value: host!, extra: prio } : { name: c.name, type: c.type.toLowerCase(), value: v })
      }
    }
    for (const r of rows) {
      const k = `${r.name}|${r.type}`
      const c = changed.get(k)
      if (!c) {
        out.push({ name: r.name, type: String(r.raw.RecordType), value: String(r.raw.Value ?? ''), ...(r.raw.Value2 !== undefined && r.raw.Value2 !== null && r.raw.Value2 !== '' ? { extra: String(r.raw.Value2) } : {}) })
      } else if (!done.has(k)) {
        done.add(k)
        emit(c)
      }
    }
    for (const [k, c] of changed) if (!done.has(k)) emit(c)
    // One TTL for the zone: the planner plans every set with the zone's own, so this is it; a caller
    // that asks for several gets the longest.
    const written = changes.filter((c) => c.values.length)
    const ttl = written.length ? Math.max(...written.map((c) => c.ttl)) : zoneTtl
    const params: Record<string, string> = { domain: zone.id, ttl: String(ttl) }
    let main = 0
    let sub = 0
    for (const o of out) {
      if (o.name === zone.name) {
        Object.assign(params, { [`main_record_type${main}`]: o.type, [`main_record${main}`]: o.value, ...(o.extra !== undefined ? { [`main_recordx${main}`]: o.extra } : {}) })
        main++
      } else {
        Object.assign(params, { [`subdomain${sub}`]: relativeName(o.name, zone.name), [`sub_record_type${sub}`]: o.type, [`sub_record${sub}`]: o.value, ...(o.extra !== undefined ? { [`sub_recordx${sub}`]: o.extra } : {}) })
        sub++
      }
    }
    if (main > MAX_MAIN || sub > MAX_SUB) throw new ProviderError('write_failed', `Dynadot: set_dns2 takes at most ${MAX_MAIN} records at the apex and ${MAX_SUB} below it (this zone would have ${main} and ${sub})`)
    await this.call('set_dns2', params)
  }
}

interface Row {
  name: string
  /** RecordType uppercased. */
  type: string
  raw: DynadotRecord
}

const LOCKED: Record<string, string> = { FORWARD: 'URL forwarding', STEALTH: 'stealth (framed) forwarding', EMAIL: 'email forwarding', SRV: 'SRV record (its fields apart)' }

/** The canonical value of a get_dns row (forwards and the like: the value and its extra field as given). */
function valueOf(type: string, r: DynadotRecord): string {
  if (type === 'MX') return `${Number(r.Value2 ?? 0)} ${canonicalName(r.Value)}`
  if (type === 'TXT' || type === 'CAA') return r.Value
  if (TYPES.has(type)) return canonicalValue(type, r.Value)
  return r.Value2 !== undefined && r.Value2 !== null && r.Value2 !== '' ? `${r.Value} ${r.Value2}` : r.Value
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'dynadot',
  defaultBase: DYNADOT_API,
  make: (s, o) => new DynadotProvider(s, o.base),
  token_url: 'https://www.dynadot.com/account/domain/setting/api.html',
  token_scopes: ['API key'],
  credential: 'API key',
}
