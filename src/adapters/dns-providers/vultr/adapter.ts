// Vultr API v2, DNS (https://www.vultr.com/api/#tag/dns): `Authorization: Bearer <API key>`. Zones: GET
// /domains (paged by cursor: `meta.links.next`); records: GET /domains/{domain}/records (paged the
// same way), POST /domains/{domain}/records `{name, type, data, ttl, priority}` (201), DELETE
// /domains/{domain}/records/{id} (204). Names are relative (`` for the apex); MX priority is its own
// field; hostnames are absolute without the trailing dot; TXT data is one quoted string (written so,
// answered so); CAA data is `flags tag "value"`. Errors are `{error, status}`: 401 a bad key (or a key whose
// access-control list refuses Portico's address), 404 unknown domain, 429 rate limited (no wait given:
// backed off). SRV keeps its priority apart (src/adapters/dns-providers/vultr/card.ts is the card).
import { retryAfterOf, type HttpResult } from '../http.ts'
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const VULTR_API = 'https://api.vultr.com/v2'

/** Vultr's 429 carries no wait (its limit is 30 requests a second): back off 1, 2 s. */
export function vultrTemporary(r: HttpResult, attempt: number): number | undefined {
  return r.status === 429 || r.status === 503 ? (retryAfterOf(r.headers) ?? Math.min(attempt, 2)) : undefined
}

/** TXT as Vultr takes it: one quoted string, its own quotes and backslashes escaped. */
export const vultrTxt = (t: string) => `"${t.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "one quoted string (`\"text\"`), written and answered so",
  ttl: "any",
  temporary: "429 without a wait backed off 1, 2 s",
  sources: {
    apex: "dnscontrol providers/vultr (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/vultr/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/vultr/) (CNAME data `docs.example.com`)",
    txt: "test/fixtures/provider-recordings/vultr.json (lexicon: POST data `\"challengetoken\"` answered the same); dnscontrol providers/vultr/vultrProvider.go (StackExchange/dnscontrol@7a079bc) (\"TXT records from Vultr are always surrounded by quotes\")",
    ttl: "Vultr OpenAPI",
    temporary: "the reference card (src/adapters/dns-providers/vultr/card.ts)",
  },
}

export class VultrProvider extends RecordBasedProvider {
  readonly id = 'vultr'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(token: string, base = VULTR_API) {
    super()
    this.api = new RestClient({ name: 'Vultr', base, headers: { authorization: `Bearer ${token}` }, message: (b) => b?.error, http: { temporary: vultrTemporary } })
  }

  private async paged(path: string, key: string): Promise<any[]> {
    let cursor = ''
    return paginate<any>({ provider: 'Vultr', what: path, pageSize: 500 }, async ({ index }) => {
      if (index > 1 && !cursor) return { items: [] }
      const r = await this.api.call('GET', `${path}?per_page=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      cursor = r.meta?.links?.next ?? ''
      return { items: r[key] ?? [], more: cursor !== '' }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/domains', 'domains')).map((d) => ({ id: canonicalName(d.domain), name: canonicalName(d.domain) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const rows = await this.paged(`/domains/${encodeURIComponent(zone.id)}/records`, 'records')
    return rows
      .filter((r) => r.type !== 'SOA')
      .map((r) => ({ id: r.id, name: absoluteName(r.name, zone.name), type: r.type, ttl: r.ttl, value: r.type === 'SRV' ? `${r.priority ?? 0} ${String(r.data).trim()}` : fromFields(r.type, r.data, r.priority, zone.name, unquoteTxt, true) }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    // SRV: Vultr keeps the priority apart and `weight port target` in data.
    const srv = type === 'SRV' ? /^(\d+)\s+(.*)$/.exec(value) : null
    // TXT goes as one quoted string: Vultr stores and answers TXT data inside quotes (lexicon's recorded
    // exchange: `"\"challengetoken\""` in, the same out; dnscontrol and lego quote it too).
    const f = srv ? { data: srv[2]!, priority: Number(srv[1]) } : toFields(type, value, { quote: vultrTxt })
    await this.api.call('POST', `/domains/${encodeURIComponent(zone.id)}/records`, { name: name === zone.name ? '' : name.slice(0, -(zone.name.length + 1)), type, data: f.data, ttl, ...(f.priority !== undefined ? { priority: f.priority } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/domains/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'vultr',
  defaultBase: VULTR_API,
  make: (s, o) => new VultrProvider(s, o.base),
  token_url: 'https://my.vultr.com/settings/#settingsapi',
  token_scopes: ['API key (access control list allowing Portico)'],
  credential: 'Personal API key',
}
