// Infomaniak API v1 (https://developer.infomaniak.com/docs/api, Domain › DNS records of a zone):
// Bearer token. Zones: GET /1/product?service_name=domain (paged: `page`, `per_page`; the answer
// carries `pages`), `{result, data: [{id, customer_name}]}`; records: GET /1/domain/{id}/dns/record
// (one list) `{result, data: [{id, source, type, ttl, target}]}`, POST …/dns/record `{source, type,
// ttl, target}`, DELETE …/dns/record/{record_id}. `source` is relative (`.` the apex); MX keeps
// its priority inside `target` (`10 mx.example.com`); TXT targets are sent as zone-file strings
// so a text that itself starts with a quote reads back unchanged. Errors are `{result: "error",
// error: {code, description}}` with 401, 403, 404, 422 and 429 (Retry-After). Do no harm (card:
// src/adapters/dns-providers/infomaniak/card.ts): a record kept up to date by Infomaniak's dynamic DNS
// (`dyndns_id`) is read as a locked set; a rewrite would cut it loose from the updater.
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, type ProviderRecord } from '../record-based.ts'
import { canonicalName, quoteTxt, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const INFOMANIAK_API = 'https://api.infomaniak.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `.` the apex",
  hostnames: "absolute without the trailing dot",
  txt: "quoted zone-file strings (Infomaniak also takes a bare target and answers it as written)",
  ttl: "any",
  temporary: "429 with Retry-After waited out when short",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/infomaniak/) (source `docs`)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/infomaniak/) (target `docs.example.com`)",
    txt: "test/fixtures/provider-recordings/infomaniak.json (lexicon: target `challengetoken` in and out)",
    ttl: "the reference card (src/adapters/dns-providers/infomaniak/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/infomaniak/card.ts)",
  },
}

export class InfomaniakProvider extends RecordBasedProvider {
  readonly id = 'infomaniak'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(token: string, base = INFOMANIAK_API) {
    super()
    this.api = new RestClient({ name: 'Infomaniak', base, headers: { authorization: `Bearer ${token}` }, message: (b) => b?.error?.description ?? b?.error?.code })
  }

  async listZones(): Promise<Zone[]> {
    const rows = await paginate<{ id: number; customer_name: string }>({ provider: 'Infomaniak', what: 'domains', pageSize: 100 }, async ({ index }) => {
      const r = await this.api.call('GET', `/1/product?service_name=domain&page=${index}&per_page=100`)
      return { items: r.data ?? [], more: index < (r.pages ?? 1) }
    })
    return rows.map((p) => ({ id: String(p.id), name: canonicalName(p.customer_name) }))
  }

  private path(zone: Zone) {
    return `/1/domain/${encodeURIComponent(zone.id)}/dns/record`
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return ((await this.api.call('GET', this.path(zone))).data as any[])
      .filter((r) => r.type !== 'SOA')
      .map((r) => ({
        id: String(r.id),
        name: absoluteName(r.source, zone.name),
        type: r.type,
        ttl: r.ttl,
        value: fromFields(r.type, r.target, null, zone.name, unquoteTxt, true),
        ...(r.dyndns_id != null ? { locked: 'a record kept up to date by Infomaniak dynamic DNS' } : {}),
      }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const source = name === zone.name ? '.' : relativeName(name, zone.name)
    await this.api.call('POST', this.path(zone), { source, type, ttl, target: type === 'TXT' ? quoteTxt(value) : value })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `${this.path(zone)}/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'infomaniak',
  defaultBase: INFOMANIAK_API,
  make: (s, o) => new InfomaniakProvider(s, o.base),
  token_url: 'https://manager.infomaniak.com/v3/infomaniak-api',
  token_scopes: ['domain:read', 'dns:write'],
  credential: 'API token',
}
