// Scaleway Domains and DNS API v2beta1 (https://www.scaleway.com/en/developers/api/domains-and-dns/):
// header `X-Auth-Token: <API secret key>`. Zones: GET /domain/v2beta1/dns-zones (paged: `page`,
// `page_size`, `total_count`; a zone's name is `subdomain.domain`); records: GET
// /domain/v2beta1/dns-zones/{zone}/records (paged the same way). Every change goes in one PATCH
// /domain/v2beta1/dns-zones/{zone}/records `{changes: [{set: {id_fields: {name, type}, records}} |
// {delete: {id_fields: {name, type}}}]}`, which Scaleway applies all or nothing. Names are relative
// (`` the apex); data is zone-file text (hostnames with the trailing dot, TXT quoted); MX priority is
// its own field. Errors are `{message, type}`: 401 `denied_authentication`, 403
// `permissions_denied`, 404 `not_found`, 409 `conflict`, 429 `quotas_exceeded`/too many requests.
import { paginate } from './paging.ts'
import { RestClient } from './rest.ts'
import { absoluteName, relativeName } from './record-based.ts'
import { fromZoneFile, toZoneFile } from './hetzner.ts'
import { canonicalName, type DnsProvider, type RRset, type RRsetChange, type Zone } from './types.ts'

export const SCALEWAY_API = 'https://api.scaleway.com'

export class ScalewayProvider implements DnsProvider {
  readonly id = 'scaleway'
  private readonly api: RestClient
  constructor(secretKey: string, base = SCALEWAY_API) {
    this.api = new RestClient({ name: 'Scaleway', base, headers: { 'x-auth-token': secretKey }, message: (b) => (b?.message ? `${b.type ?? ''}: ${b.message}` : undefined) })
  }

  private async paged(path: string, key: string): Promise<any[]> {
    return paginate<any>({ provider: 'Scaleway', what: path, pageSize: 1000 }, async ({ index, offset }) => {
      const r = await this.api.call('GET', `${path}?page=${index}&page_size=1000`)
      const rows = (r[key] ?? []) as any[]
      return { items: rows, more: offset + rows.length < Number(r.total_count ?? 0) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/domain/v2beta1/dns-zones', 'dns_zones')).map((z) => {
      const name = canonicalName(z.subdomain ? `${z.subdomain}.${z.domain}` : z.domain)
      return { id: name, name }
    })
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const sets = new Map<string, RRset>()
    for (const r of await this.paged(`/domain/v2beta1/dns-zones/${encodeURIComponent(zone.id)}/records`, 'records')) {
      const name = absoluteName(r.name ?? '', zone.name)
      const value = fromZoneFile(r.type, r.type === 'MX' ? `${r.priority ?? 0} ${r.data}` : r.data, zone.name)
      const k = `${name}|${r.type}`
      const s: RRset = sets.get(k) ?? { name, type: r.type, ttl: r.ttl, values: [] }
      s.values.push(value)
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const rel = (n: string) => (n === zone.name ? '' : relativeName(n, zone.name))
    const ordered = [...changes].sort((a, b) => Number(a.values.length > 0) - Number(b.values.length > 0))
    const body = ordered.map((c) => {
      const id_fields = { name: rel(c.name), type: c.type }
      if (c.values.length === 0) return { delete: { id_fields } }
      const records = c.values.map((v) => {
        const data = toZoneFile(c.type, v)
        if (c.type !== 'MX') return { name: id_fields.name, type: c.type, ttl: c.ttl, data }
        const [p, h] = data.split(' ')
        return { name: id_fields.name, type: c.type, ttl: c.ttl, data: h, priority: Number(p) }
      })
      return { set: { id_fields, records } }
    })
    await this.api.call('PATCH', `/domain/v2beta1/dns-zones/${encodeURIComponent(zone.id)}/records`, { changes: body, return_all_records: false })
  }
}
