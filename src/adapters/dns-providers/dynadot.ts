// Dynadot Advanced Domain API (https://www.dynadot.com/domain/api3.html): GET /api3.json?key=…&command=…
// (the key travels in the query string, so no URL is ever put in an error). Zones: list_domain (the
// whole list, `MainDomains[].Name`); records: get_dns (`NameServerSettings`: `MainDomains` at the apex
// and `SubDomains` with `Subhost`, each `{RecordType, Value, Value2}` with the MX distance in `Value2`,
// and one `TTL` for the whole zone); a write is set_dns2, which replaces every record of the domain at
// once (`main_record_type{n}`, `main_record{n}`, `main_recordx{n}`, `subdomain{n}`, `sub_record_type{n}`,
// `sub_record{n}`, `sub_recordx{n}`, `ttl`), so the change set is applied to the zone as read and the
// whole zone is sent, atomically. The zone has one TTL (`uniformTtl`: the planner writes every set with
// it). Record types are lowercase; CAA carries `flags tag "value"` in its value. Errors come as
// `{…Response: {ResponseCode: "-1", Status: "error", Error}}` with HTTP 200: an invalid key, a key used
// from an address its allow-list lacks (a permission), a domain not in the account; HTTP 429 is the
// rate limit (Dynadot serves one request at a time per key).
import { exchange, failureOf, type HttpResult } from './http.ts'
import { absoluteName, relativeName } from './record-based.ts'
import { canonicalName, canonicalValue, ProviderError, type DnsProvider, type ProviderErrorKind, type RRset, type RRsetChange, type Zone } from './types.ts'

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
  return 'write_failed'
}

interface DynadotRecord {
  RecordType: string
  Value: string
  Value2?: string
  Subhost?: string
}

export class DynadotProvider implements DnsProvider {
  readonly id = 'dynadot'
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
      throw failureOf('Dynadot', r, error, r.status >= 300 ? undefined : kindOf(error))
    }
    return answer
  }

  async listZones(): Promise<Zone[]> {
    const answer = await this.call('list_domain')
    return ((answer.MainDomains ?? []) as { Name: string }[]).map((d) => ({ id: canonicalName(d.Name), name: canonicalName(d.Name) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const settings = (await this.call('get_dns', { domain: zone.id })).GetDns?.NameServerSettings ?? {}
    const ttl = Number(settings.TTL ?? 3600)
    const sets = new Map<string, RRset>()
    const add = (name: string, r: DynadotRecord) => {
      const type = r.RecordType.toUpperCase()
      if (!TYPES.has(type)) return
      const value = type === 'MX' ? `${Number(r.Value2 ?? 0)} ${canonicalName(r.Value)}` : type === 'TXT' || type === 'CAA' ? r.Value : canonicalValue(type, r.Value)
      const s = sets.get(`${name}|${type}`) ?? { name, type, ttl, values: [] }
      if (!s.values.includes(value)) s.values.push(value)
      sets.set(`${name}|${type}`, s)
    }
    for (const r of (settings.MainDomains ?? []) as DynadotRecord[]) add(zone.name, r)
    for (const r of (settings.SubDomains ?? []) as DynadotRecord[]) add(absoluteName(r.Subhost ?? '', zone.name), r)
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const current = await this.readRecords(zone)
    const sets = new Map(current.map((s) => [`${s.name}|${s.type}`, s]))
    for (const c of changes) {
      if (c.values.length) sets.set(`${c.name}|${c.type}`, { ...c })
      else sets.delete(`${c.name}|${c.type}`)
    }
    // One TTL for the zone: the planner plans every set with the zone's own, so this is it; a caller
    // that asks for several gets the longest.
    const written = changes.filter((c) => c.values.length)
    const ttl = written.length ? Math.max(...written.map((c) => c.ttl)) : (current[0]?.ttl ?? 3600)
    const params: Record<string, string> = { domain: zone.id, ttl: String(ttl) }
    let main = 0
    let sub = 0
    for (const s of sets.values()) {
      for (const v of s.values) {
        const [prio, host] = v.split(' ')
        const [value, extra] = s.type === 'MX' ? [host!, prio!] : [v, undefined]
        const type = s.type.toLowerCase()
        if (s.name === zone.name) {
          Object.assign(params, { [`main_record_type${main}`]: type, [`main_record${main}`]: value, ...(extra ? { [`main_recordx${main}`]: extra } : {}) })
          main++
        } else {
          Object.assign(params, { [`subdomain${sub}`]: relativeName(s.name, zone.name), [`sub_record_type${sub}`]: type, [`sub_record${sub}`]: value, ...(extra ? { [`sub_recordx${sub}`]: extra } : {}) })
          sub++
        }
      }
    }
    if (main > MAX_MAIN || sub > MAX_SUB) throw new ProviderError('write_failed', `Dynadot: set_dns2 takes at most ${MAX_MAIN} records at the apex and ${MAX_SUB} below it (this zone would have ${main} and ${sub})`)
    await this.call('set_dns2', params)
  }
}
