// Netlify API, DNS zones (https://open-api.netlify.com/#tag/dnsZone): `Authorization: Bearer <personal
// access token or OAuth token>`. Zones: GET /dns_zones; records: GET /dns_zones/{id}/dns_records: each
// one request answering the whole list (the published API document has no paging parameters on
// either, and the API ignores `page`, so the adapter never pages: src/adapters/dns-providers/netlify/card.ts); POST
// …/dns_records `{type, hostname, value, ttl, priority?, flag?, tag?}` (201), DELETE
// …/dns_records/{id} (204). Hostnames are absolute; MX priority and CAA flag/tag are their own
// fields. Errors are `{code, message}`: 401 "Access Denied", 404 "Not Found", 422, 429 (X-RateLimit-Reset).
// NETLIFY/NETLIFYv6 records (a site's own address, served by Netlify) and `managed` records (created by
// Netlify for a site or its mail) are read as locked sets: never rewritten, and a plan that would
// replace one (a CNAME at a site's name) is refused before anything is written.
import { RestClient } from '../rest.ts'
import { fromFields, RecordBasedProvider, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const NETLIFY_API = 'https://api.netlify.com/api/v1'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "absolute (`hostname`)",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "any",
  temporary: "429 with X-RateLimit-Reset waited out when short",
  sources: {
    apex: "dnscontrol providers/netlify (StackExchange/dnscontrol@7a079bc): CanUseAlias Can (ALIAS sent as its own type)",
    names: "Netlify OpenAPI (test/fixtures/provider-openapi/netlify.json)",
    hostnames: "Netlify OpenAPI",
    txt: "Netlify OpenAPI",
    ttl: "Netlify OpenAPI",
    temporary: "providers-reality check (Netlify rate limit)",
  },
}

export class NetlifyProvider extends RecordBasedProvider {
  readonly id = 'netlify'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(token: string, base = NETLIFY_API) {
    super()
    this.api = new RestClient({ name: 'Netlify', base, headers: { authorization: `Bearer ${token.trim().replace(/^Bearer\s+/i, '')}` }, message: (b) => b?.message })
  }

  /** The whole list in one answer (Netlify's lists are not paged). */
  private async list(path: string): Promise<any[]> {
    const rows = await this.api.call('GET', path)
    return Array.isArray(rows) ? rows : []
  }

  async listZones(): Promise<Zone[]> {
    return (await this.list('/dns_zones')).map((z) => ({ id: z.id, name: canonicalName(z.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.list(`/dns_zones/${encodeURIComponent(zone.id)}/dns_records`))
      .map((r) => ({
        id: r.id,
        name: canonicalName(r.hostname),
        type: r.type,
        ttl: r.ttl,
        value: r.type === 'CAA' ? `${r.flag ?? 0} ${r.tag} "${r.value}"` : fromFields(r.type, r.value, r.priority, zone.name, unquoteTxt, true),
        ...(r.managed || r.type === 'NETLIFY' || r.type === 'NETLIFYv6' ? { locked: 'a record Netlify manages for a site' } : {}),
        ...(r.type === 'SRV' ? { locked: 'Netlify SRV fields (weight, port)' } : {}),
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

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'netlify',
  defaultBase: NETLIFY_API,
  make: (s, o) => new NetlifyProvider(s, o.base),
  token_url: 'https://app.netlify.com/user/applications#personal-access-tokens',
  token_scopes: ['Personal access token'],
  credential: 'Personal access token',
}
