// DNSimple API v2 (https://developer.dnsimple.com/v2/zones/records/): `Authorization: Bearer <account
// access token or OAuth token>`. The account comes from GET /whoami (`data.account.id`). Zones: GET
// /{account}/zones (paged: `pagination.total_pages`); records: GET /{account}/zones/{zone}/records
// (paged), POST …/records `{name, type, content, ttl, priority}` (201), DELETE …/records/{id} (204).
// Names are relative (`` the apex); MX priority is its own field; SOA and apex NS are system records
// that cannot be written. Errors are `{message, errors?}`: 401 "Authentication failed", 402 a feature
// the account's plan does not include, 404 "Zone `x` not found", 429 (X-RateLimit-Reset), 400.
import { paginate } from './paging.ts'
import { RestClient } from './rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, unquoteTxt, type Zone } from './types.ts'

export const DNSIMPLE_API = 'https://api.dnsimple.com/v2'

export class DnsimpleProvider extends RecordBasedProvider {
  readonly id = 'dnsimple'
  private readonly api: RestClient
  private account: string | null = null
  constructor(token: string, base = DNSIMPLE_API) {
    super()
    this.api = new RestClient({ name: 'DNSimple', base, headers: { authorization: `Bearer ${token}` }, message: (b) => b?.message, kind: (r) => (r.status === 402 ? 'plan_restricted' : undefined) })
  }

  private async prefix(): Promise<string> {
    this.account ??= String((await this.api.call('GET', '/whoami')).data?.account?.id ?? '')
    return `/${encodeURIComponent(this.account)}`
  }

  private async paged(path: string): Promise<any[]> {
    return paginate<any>({ provider: 'DNSimple', what: path, pageSize: 100 }, async ({ index }) => {
      const r = await this.api.call('GET', `${await this.prefix()}${path}?page=${index}&per_page=100`)
      return { items: r.data ?? [], more: index < (r.pagination?.total_pages ?? 1) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/zones')).map((z) => ({ id: canonicalName(z.name), name: canonicalName(z.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/zones/${encodeURIComponent(zone.id)}/records`))
      .filter((r) => !r.system_record)
      .map((r) => ({ id: String(r.id), name: absoluteName(r.name, zone.name), type: r.type, ttl: r.ttl, value: fromFields(r.type, r.content, r.priority, zone.name, unquoteTxt, true) }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.api.call('POST', `${await this.prefix()}/zones/${encodeURIComponent(zone.id)}/records`, { name: name === zone.name ? '' : relativeName(name, zone.name), type, content: f.data, ttl, ...(f.priority !== undefined ? { priority: f.priority } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `${await this.prefix()}/zones/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}
