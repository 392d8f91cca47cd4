// bunny.net DNS API (https://docs.bunny.net/reference/dnszonepublic_index): header `AccessKey: <account
// API key>`. Zones: GET /dnszone (paged: `page`, `perPage`, `HasMoreItems`), each with its `Records`;
// one zone: GET /dnszone/{id}; a record is added with PUT /dnszone/{id}/records `{Type, Name, Value,
// Ttl, Priority?, Flags?, Tag?}` (201) and removed with DELETE /dnszone/{id}/records/{recordId} (204).
// `Type` is a number (0 A, 1 AAAA, 2 CNAME, 3 TXT, 4 MX, 9 CAA, 12 NS; others are bunny's own kinds).
// Names are relative (`` the apex); MX priority and CAA flags/tag are their own fields. Errors are
// `{ErrorKey, Field, Message}`: 401, 404 `dnszone.not_found`, 400 `validation_error`, 429.
import { paginate } from './paging.ts'
import { RestClient } from './rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, unquoteTxt, type Zone } from './types.ts'

export const BUNNY_API = 'https://api.bunny.net'
const TYPES: Record<number, string> = { 0: 'A', 1: 'AAAA', 2: 'CNAME', 3: 'TXT', 4: 'MX', 9: 'CAA', 12: 'NS' }
const CODES = Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [v, Number(k)]))

export class BunnyProvider extends RecordBasedProvider {
  readonly id = 'bunny'
  private readonly api: RestClient
  constructor(key: string, base = BUNNY_API) {
    super()
    this.api = new RestClient({ name: 'bunny.net', base, headers: { accesskey: key }, message: (b) => (b?.Message ? `${b.ErrorKey ?? ''} ${b.Message}`.trim() : undefined) })
  }

  async listZones(): Promise<Zone[]> {
    const rows = await paginate<{ Id: number; Domain: string }>({ provider: 'bunny.net', what: 'DNS zones', pageSize: 1000 }, async ({ index }) => {
      const r = await this.api.call('GET', `/dnszone?page=${index}&perPage=1000`)
      return { items: r.Items ?? [], more: !!r.HasMoreItems }
    })
    return rows.map((z) => ({ id: String(z.Id), name: canonicalName(z.Domain) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const z = await this.api.call('GET', `/dnszone/${encodeURIComponent(zone.id)}`)
    return (z.Records as any[])
      .filter((r) => TYPES[r.Type])
      .map((r) => {
        const type = TYPES[r.Type]!
        return { id: String(r.Id), name: absoluteName(r.Name ?? '', zone.name), type, ttl: r.Ttl, value: type === 'CAA' ? `${r.Flags ?? 0} ${r.Tag} "${r.Value}"` : fromFields(type, r.Value, r.Priority, zone.name, unquoteTxt, true) }
      })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const body: Record<string, unknown> = { Type: CODES[type], Name: name === zone.name ? '' : relativeName(name, zone.name), Ttl: ttl }
    const caa = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
    if (type === 'CAA' && caa) Object.assign(body, { Flags: Number(caa[1]), Tag: caa[2], Value: caa[3] })
    else {
      const f = toFields(type, value)
      Object.assign(body, { Value: f.data, ...(f.priority !== undefined ? { Priority: f.priority } : {}) })
    }
    await this.api.call('PUT', `/dnszone/${encodeURIComponent(zone.id)}/records`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/dnszone/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}
