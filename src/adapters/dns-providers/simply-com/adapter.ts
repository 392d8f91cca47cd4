// Simply.com API v2 (https://www.simply.com/en/docs/api/): HTTP Basic with `account:api_key` (the
// credential as given). Zones: GET /2/my/products (`{products: [{object, domain: {name}}]}`, one list);
// records: GET /2/my/products/{object}/dns/records (`{records: [{record_id, name, ttl, data, type,
// priority}]}`, one list), POST …/dns/records `{name, ttl, data, type, priority?}`, DELETE
// …/dns/records/{record_id}. Names are relative (`@` the apex); hostnames in `data` are absolute
// without the trailing dot; MX priority is its own field. Errors are `{error}` (lego's fixtures; an
// older form `{status, message}` is read too): 401, 403, 404, 400, 429.
// Do no harm (src/adapters/dns-providers/simply-com/card.ts): a priority kept beside the data of a type other
// than MX (SRV) goes back with a restored record.
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const SIMPLY_API = 'https://api.simply.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "the reference card (src/adapters/dns-providers/simply-com/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/simply-com/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/simply-com/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/simply-com/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/simply-com/card.ts)",
  },
}

export class SimplyProvider extends RecordBasedProvider {
  readonly id = 'simply-com'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(accountKey: string, base = SIMPLY_API) {
    super()
    this.api = new RestClient({ name: 'Simply.com', base, headers: { authorization: `Basic ${Buffer.from(accountKey).toString('base64')}` }, message: (b) => b?.error ?? b?.message })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/2/my/products')).products as { object: string; domain?: { name?: string } }[])
      .filter((p) => p.domain?.name)
      .map((p) => ({ id: p.object, name: canonicalName(p.domain!.name!) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return ((await this.api.call('GET', `/2/my/products/${encodeURIComponent(zone.id)}/dns/records`)).records as any[])
      .filter((r) => r.type !== 'SOA')
      .map((r) => ({
        id: String(r.record_id),
        name: absoluteName(r.name, zone.name),
        type: r.type,
        ttl: r.ttl,
        value: fromFields(r.type, r.data, r.priority, zone.name, unquoteTxt, true),
        ...(r.type !== 'MX' && typeof r.priority === 'number' && r.priority !== 0 ? { native: { priority: r.priority } } : {}),
      }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const f = toFields(type, value)
    const priority = f.priority ?? (native as { priority?: number } | undefined)?.priority
    await this.api.call('POST', `/2/my/products/${encodeURIComponent(zone.id)}/dns/records`, { name: relativeName(name, zone.name), ttl, data: f.data, type, ...(priority !== undefined ? { priority } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/2/my/products/${encodeURIComponent(zone.id)}/dns/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'simply-com',
  defaultBase: SIMPLY_API,
  make: (s, o) => new SimplyProvider(s, o.base),
  token_url: 'https://www.simply.com/controlpanel/account/',
  token_scopes: ['Account number and API key'],
  credential: 'Account name and API key (account:api_key)',
}
