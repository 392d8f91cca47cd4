// Namecheap API (https://www.namecheap.com/support/api/methods/domains-dns/): XML over GET/POST
// /xml.response with `ApiUser`, `ApiKey`, `UserName` and `ClientIp` (the address Portico calls from,
// which the account must whitelist); the credential is `api_user:api_key:client_ip`. Zones:
// namecheap.domains.getList (paged: `Page`, `PageSize`, `<Paging><TotalItems>`); records:
// namecheap.domains.dns.getHosts (the whole zone, `<host Name Type Address MXPref TTL/>`); a write is
// namecheap.domains.dns.setHosts, which replaces every host of the zone at once (so the change set is
// applied to the zone as read and the whole zone is sent, atomically). Names are relative (`@`);
// hostnames in Address carry the trailing dot; MX needs `EmailType=MX`. Errors come with HTTP 200 as
// `<ApiResponse Status="ERROR"><Errors><Error Number>`: 1011102 a bad key, 1011150 a client address
// not whitelisted (a permission), 2019166/2016166 a domain not in the account; 429 when rate limited.
import { exchange, failureOf, type HttpResult } from './http.ts'
import { absoluteName, relativeName } from './record-based.ts'
import { canonicalName, canonicalValue, ProviderError, type DnsProvider, type ProviderErrorKind, type RRset, type RRsetChange, type Zone } from './types.ts'

export const NAMECHEAP_API = 'https://api.namecheap.com'

const dec = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
const attrs = (tag: string) => Object.fromEntries([...tag.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, dec(m[2]!)]))

const KINDS: Record<string, ProviderErrorKind> = { '1011102': 'auth', '1010101': 'auth', '1011150': 'permission', '2019166': 'zone_not_found', '2016166': 'zone_not_found', '2030166': 'zone_not_found' }

export class NamecheapProvider implements DnsProvider {
  readonly id = 'namecheap'
  private readonly user: string
  private readonly key: string
  private readonly ip: string
  constructor(
    credential: string,
    private readonly base = NAMECHEAP_API,
  ) {
    const [user = '', key = '', ip = ''] = credential.split(':')
    ;[this.user, this.key, this.ip] = [user, key, ip]
  }

  private async call(command: string, params: Record<string, string>, post = false): Promise<string> {
    const q = new URLSearchParams({ ApiUser: this.user, ApiKey: this.key, UserName: this.user, ClientIp: this.ip, Command: command, ...params })
    const r: HttpResult = post
      ? await exchange('POST', `${this.base}/xml.response`, { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/xml' }, q.toString())
      : await exchange('GET', `${this.base}/xml.response?${q}`, { accept: 'application/xml' }, undefined)
    const err = /<Error Number="(\d+)">([^<]*)<\/Error>/.exec(r.text)
    if (r.status >= 300 || /Status="ERROR"/.test(r.text)) throw failureOf('Namecheap', r, err ? `${err[1]}: ${dec(err[2]!)}` : `HTTP ${r.status}`, err ? (KINDS[err[1]!] ?? (r.status < 300 ? 'write_failed' : undefined)) : undefined)
    return r.text
  }

  private split(zone: Zone) {
    const at = zone.name.indexOf('.')
    return { SLD: zone.name.slice(0, at), TLD: zone.name.slice(at + 1) }
  }

  async listZones(): Promise<Zone[]> {
    const out: Zone[] = []
    for (let page = 1; ; page++) {
      const xml = await this.call('namecheap.domains.getList', { Page: String(page), PageSize: '100' })
      out.push(...[...xml.matchAll(/<Domain [^>]*>/g)].map((m) => canonicalName(attrs(m[0]).Name ?? '')).map((n) => ({ id: n, name: n })))
      const total = Number(/<TotalItems>(\d+)<\/TotalItems>/.exec(xml)?.[1] ?? 0)
      if (out.length >= total || !/<Domain /.test(xml)) return out
    }
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const xml = await this.call('namecheap.domains.dns.getHosts', this.split(zone))
    const sets = new Map<string, RRset>()
    for (const m of xml.matchAll(/<host [^>]*\/?>/gi)) {
      const h = attrs(m[0])
      const type = h.Type!
      const name = absoluteName(h.Name ?? '@', zone.name)
      const addr = h.Address ?? ''
      const value = type === 'MX' ? `${Number(h.MXPref ?? 10)} ${canonicalName(addr)}` : type === 'TXT' || type === 'CAA' ? addr : canonicalValue(type, addr)
      const k = `${name}|${type}`
      const s: RRset = sets.get(k) ?? { name, type, ttl: Number(h.TTL ?? 1800), values: [] }
      s.values.push(value)
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const sets = new Map((await this.readRecords(zone)).map((s) => [`${s.name}|${s.type}`, s]))
    for (const c of changes) {
      if (c.values.length) sets.set(`${c.name}|${c.type}`, { ...c })
      else sets.delete(`${c.name}|${c.type}`)
    }
    const params: Record<string, string> = this.split(zone)
    let i = 0
    for (const s of sets.values()) {
      for (const v of s.values) {
        i++
        const [prio, host] = v.split(' ')
        Object.assign(params, {
          [`HostName${i}`]: relativeName(s.name, zone.name),
          [`RecordType${i}`]: s.type,
          [`Address${i}`]: s.type === 'MX' ? `${host}.` : s.type === 'CNAME' || s.type === 'NS' ? `${v}.` : v,
          [`TTL${i}`]: String(s.ttl),
          ...(s.type === 'MX' ? { [`MXPref${i}`]: prio! } : {}),
        })
      }
    }
    if ([...sets.values()].some((s) => s.type === 'MX')) params.EmailType = 'MX'
    if (i === 0) throw new ProviderError('write_failed', 'Namecheap: setHosts cannot leave a zone with no records')
    await this.call('namecheap.domains.dns.setHosts', params, true)
  }
}
