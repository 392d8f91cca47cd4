// Netlify API, DNS zones (https://open-api.netlify.com/#tag/dnsZone): `Authorization: Bearer <personal
// access token or OAuth token>`. Zones: GET /dns_zones (paged with `page`/`per_page`; the answer is a
// bare array, so pages are read until an empty one); records: GET /dns_zones/{id}/dns_records, POST
// …/dns_records `{type, hostname, value, ttl, priority?, flag?, tag?}` (201), DELETE
// …/dns_records/{id} (204). Hostnames are absolute; MX priority and CAA flag/tag are their own
// fields. Errors are `{code, message}`: 401 "Access Denied", 404 "Not Found", 422, 429.
import { RestClient } from './rest.ts'
import { fromFields, RecordBasedProvider, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, unquoteTxt, type Zone } from './types.ts'

export const NETLIFY_API = 'https://api.netlify.com/api/v1'
const PER_PAGE = 100

export class NetlifyProvider extends RecordBasedProvider {
  readonly id = 'netlify'
  private readonly api: RestClient
  constructor(token: string, base = NETLIFY_API) {
    super()
    this.api = new RestClient({ name: 'Netlify', base, headers: { authorization: `Bearer ${token}` }, message: (b) => b?.message })
  }

  private async paged(path: string): Promise<any[]> {
    const out: any[] = []
    for (let page = 1; ; page++) {
      const rows = (await this.api.call('GET', `${path}?page=${page}&per_page=${PER_PAGE}`)) as any[]
      out.push(...rows)
      // A page may hold fewer than asked (a server cap), so only an empty page ends the list.
      if (rows.length === 0) return out
    }
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/dns_zones')).map((z) => ({ id: z.id, name: canonicalName(z.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/dns_zones/${encodeURIComponent(zone.id)}/dns_records`))
      .filter((r) => r.type !== 'NETLIFY' && r.type !== 'NETLIFYv6')
      .map((r) => ({
        id: r.id,
        name: canonicalName(r.hostname),
        type: r.type,
        ttl: r.ttl,
        value: r.type === 'CAA' ? `${r.flag ?? 0} ${r.tag} "${r.value}"` : fromFields(r.type, r.value, r.priority, zone.name, unquoteTxt, true),
      }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const body: Record<string, unknown> = { type, hostname: name, ttl }
    const caa = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
    if (type === 'CAA' && caa) Object.assign(body, { flag: Number(caa[1]), tag: caa[2], value: caa[3] })
    else {
      const f = toFields(type, value)
      Object.assign(body, { value: f.data, ...(f.priority !== undefined ? { priority: f.priority } : {}) })
    }
    await this.api.call('POST', `/dns_zones/${encodeURIComponent(zone.id)}/dns_records`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/dns_zones/${encodeURIComponent(zone.id)}/dns_records/${encodeURIComponent(item.id)}`)
  }
}
