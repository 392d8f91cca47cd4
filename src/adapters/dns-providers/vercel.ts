// Vercel REST API, DNS (https://vercel.com/docs/rest-api/reference/endpoints/dns): `Authorization:
// Bearer <access token>`. Zones: GET /v5/domains (paged: `pagination.next`, passed back as `until`);
// records: GET /v4/domains/{domain}/records (paged the same way), POST /v2/domains/{domain}/records
// `{name, type, value, ttl, mxPriority?}`, DELETE /v2/domains/{domain}/records/{id}. Names are
// relative (`` the apex); MX priority is its own field; CAA value is `flags tag "value"`. Errors are
// `{error: {code, message}}`: 403 `forbidden` with `invalidToken` for a bad token (otherwise a scope
// the token lacks), 404 `not_found`, 429 `rate_limited`, 400 `invalid_*`.
import { RestClient } from './rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, unquoteTxt, type Zone } from './types.ts'

export const VERCEL_API = 'https://api.vercel.com'

export class VercelProvider extends RecordBasedProvider {
  readonly id = 'vercel'
  private readonly api: RestClient
  constructor(token: string, base = VERCEL_API) {
    super()
    this.api = new RestClient({
      name: 'Vercel',
      base,
      headers: { authorization: `Bearer ${token}` },
      message: (b) => (b?.error ? `${b.error.code}: ${b.error.message}` : undefined),
      kind: (r) => (r.body?.error?.invalidToken ? 'auth' : undefined),
    })
  }

  private async paged(path: string, key: string): Promise<any[]> {
    const out: any[] = []
    for (let until: number | null = null; ; ) {
      const r = await this.api.call('GET', `${path}?limit=100${until !== null ? `&until=${until}` : ''}`)
      out.push(...(r[key] ?? []))
      until = r.pagination?.next ?? null
      if (until === null) return out
    }
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/v5/domains', 'domains')).filter((d) => d.serviceType !== 'external').map((d) => ({ id: canonicalName(d.name), name: canonicalName(d.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/v4/domains/${encodeURIComponent(zone.id)}/records`, 'records')).map((r) => ({
      id: r.id,
      name: absoluteName(r.name, zone.name),
      type: r.type,
      ttl: r.ttl,
      value: fromFields(r.type, r.value, r.mxPriority, zone.name, unquoteTxt, true),
    }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.api.call('POST', `/v2/domains/${encodeURIComponent(zone.id)}/records`, { name: name === zone.name ? '' : relativeName(name, zone.name), type, value: f.data, ttl, ...(f.priority !== undefined ? { mxPriority: f.priority } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/v2/domains/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}
