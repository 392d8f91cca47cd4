// IONOS DNS API v1 (https://developer.hosting.ionos.com/docs/dns): header `X-API-Key: <prefix>.<secret>`.
// Zones: GET /dns/v1/zones (one list); a zone with its records: GET /dns/v1/zones/{id} (one list);
// records are added with POST /dns/v1/zones/{id}/records `[{name, type, content, ttl, prio?}]` and
// removed with DELETE /dns/v1/zones/{id}/records/{recordId}. Names are absolute; MX priority is its
// own field (`prio`); TXT content is the text itself. Errors are a list `[{code, message}]`: 401
// UNAUTHORIZED, 403, 404 ZONE_NOT_FOUND / RECORD_NOT_FOUND, 400 INVALID_RECORD, 429.
import { RestClient } from './rest.ts'
import { fromFields, RecordBasedProvider, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, unquoteTxt, type Zone } from './types.ts'

export const IONOS_API = 'https://api.hosting.ionos.com'

export class IonosProvider extends RecordBasedProvider {
  readonly id = 'ionos'
  private readonly api: RestClient
  constructor(key: string, base = IONOS_API) {
    super()
    this.api = new RestClient({ name: 'IONOS', base, headers: { 'x-api-key': key }, message: (b) => (Array.isArray(b) ? b.map((e) => `${e.code}: ${e.message}`).join('; ') : undefined) })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/dns/v1/zones')) as { id: string; name: string; type: string }[]).filter((z) => z.type !== 'SLAVE').map((z) => ({ id: z.id, name: canonicalName(z.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const z = await this.api.call('GET', `/dns/v1/zones/${encodeURIComponent(zone.id)}`)
    return (z.records as any[])
      .filter((r) => r.type !== 'SOA')
      .map((r) => ({ id: r.id, name: canonicalName(r.name), type: r.type, ttl: r.ttl, value: fromFields(r.type, r.content, r.prio, zone.name, unquoteTxt, true) }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.api.call('POST', `/dns/v1/zones/${encodeURIComponent(zone.id)}/records`, [{ name, type, content: f.data, ttl, ...(f.priority !== undefined ? { prio: f.priority } : {}), disabled: false }])
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/dns/v1/zones/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}
