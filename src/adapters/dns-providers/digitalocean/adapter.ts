// DigitalOcean API v2 (https://docs.digitalocean.com/reference/api/api-reference/#tag/Domain-Records):
// `Authorization: Bearer <personal access token>`. Zones: GET /domains; records: GET
// /domains/{name}/records (paged by `links.pages.next`), POST /domains/{name}/records (201),
// DELETE /domains/{name}/records/{id} (204). Record names are relative (`@` for the apex); hostnames
// in `data` are written with the trailing dot and read back without it (`@` the zone); MX keeps
// its priority apart; CAA is `data` with `flags` and `tag` apart. Errors are `{id, message}`: 401
// `unauthorized`, 404 `not_found`, 429 `too_many_requests` (ratelimit-reset, a Unix time, is waited out
// when short), 422 `unprocessable_entity`. SRV keeps priority, weight and port in fields of their own,
// written back with the target (src/adapters/dns-providers/digitalocean/card.ts is the card).
import { nextPageUrl, paginate } from '../paging.ts'
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { absoluteName, RecordBasedProvider, relativeName, type ProviderRecord } from '../record-based.ts'
import { canonicalName, canonicalValue, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const DIGITALOCEAN_API = 'https://api.digitalocean.com/v2'

const failure = (r: HttpResult) => (r.status < 300 ? null : failureOf('DigitalOcean', r, r.body?.message ? `${r.body.id}: ${r.body.message}` : `HTTP ${r.status}`))

const fq = (name: string) => `${name}.`

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "written with the trailing dot, answered without it (`@` the zone): read as absolute",
  txt: "bare text",
  ttl: "at least 30; default 1800",
  temporary: "429 too_many_requests with ratelimit-reset waited out when short; 500 server_error temporary (503 with Retry-After), and what a refused write had done put back",
  sources: {
    apex: "dnscontrol providers/digitalocean (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot (\"Digital Ocean documents that this is not supported\")",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/digitalocean/)",
    hostnames: "test/fixtures/provider-recordings/digitalocean.json (lexicon: POST data `docs.example.com.` answered `docs.example.com`)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/digitalocean/) (TXT data `challengetoken`)",
    ttl: "DigitalOcean OpenAPI (test/fixtures/provider-openapi/digitalocean.json): ttl minimum 30",
    temporary: "the reference card (src/adapters/dns-providers/digitalocean/card.ts); DigitalOcean OpenAPI (test/fixtures/provider-openapi/digitalocean.json): 500 server_error",
  },
}

export class DigitalOceanProvider extends RecordBasedProvider {
  readonly id = 'digitalocean'
  readonly conventions = CONVENTIONS
  /** DigitalOcean refuses a TTL under 30 (its API reference: `ttl` minimum 30). */
  readonly minTtl = 30
  constructor(
    private readonly token: string,
    private readonly base = DIGITALOCEAN_API,
  ) {
    super()
  }

  private async call(method: string, pathOrUrl: string, body?: unknown) {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : this.base + pathOrUrl
    const r = await exchange(method, url, { authorization: `Bearer ${this.token}` }, body)
    const f = failure(r)
    if (f) throw f
    return r.body
  }

  private async paged(path: string, key: string): Promise<any[]> {
    let next: string | null = `${path}?per_page=200`
    return paginate<any>({ provider: 'DigitalOcean', what: path, pageSize: 200 }, async () => {
      if (!next) return { items: [] }
      const r = await this.call('GET', next)
      // The host names its own origin in the link, whatever base Portico is configured with (paging.ts).
      next = nextPageUrl(r.links?.pages?.next as string | undefined, this.base, DIGITALOCEAN_API, 'DigitalOcean')
      return { items: r[key] ?? [], more: next !== null }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/domains', 'domains')).map((d) => ({ id: canonicalName(d.name), name: canonicalName(d.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const rows = await this.paged(`/domains/${encodeURIComponent(zone.id)}/records`, 'domain_records')
    return rows
      .filter((r) => r.type !== 'SOA')
      .map((r) => {
        const type = r.type as string
        // DigitalOcean takes hostnames with the trailing dot and gives them back without it (`@` for the
        // zone itself): POST data `docs.example.com.` is answered `docs.example.com` (lexicon's recorded
        // exchange, test/fixtures/provider-recordings/digitalocean.json). Read as absolute.
        const host = (v: string) => (v.trim() === '@' ? zone.name : canonicalName(v))
        let value: string
        if (type === 'MX') value = `${r.priority ?? 0} ${host(r.data)}`
        else if (type === 'CNAME' || type === 'NS') value = host(r.data)
        else if (type === 'TXT') value = unquoteTxt(r.data)
        else if (type === 'CAA') value = `${r.flags ?? 0} ${r.tag} "${r.data}"`
        // SRV keeps priority, weight and port apart from its target: all four make the value.
        else if (type === 'SRV') value = `${r.priority ?? 0} ${r.weight ?? 0} ${r.port ?? 0} ${r.data === '@' ? zone.name : host(r.data)}`
        else value = canonicalValue(type, r.data)
        return { id: String(r.id), name: absoluteName(r.name, zone.name), type, ttl: r.ttl, value }
      })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const body: Record<string, unknown> = { type, name: relativeName(name, zone.name), ttl }
    if (type === 'MX') {
      const [prio, h] = value.split(' ')
      Object.assign(body, { data: fq(h!), priority: Number(prio) })
    } else if (type === 'SRV') {
      const [prio, weight, port, target] = value.split(/\s+/)
      Object.assign(body, { priority: Number(prio), weight: Number(weight), port: Number(port), data: fq(target ?? '') })
    } else if (type === 'CNAME' || type === 'NS') body.data = fq(value)
    else if (type === 'CAA') {
      const m = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
      Object.assign(body, { flags: Number(m?.[1] ?? 0), tag: m?.[2] ?? 'issue', data: m?.[3] ?? '' })
    } else body.data = value
    await this.call('POST', `/domains/${encodeURIComponent(zone.id)}/records`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/domains/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'digitalocean',
  defaultBase: DIGITALOCEAN_API,
  make: (s, o) => new DigitalOceanProvider(s, o.base),
  token_url: 'https://cloud.digitalocean.com/account/api/tokens',
  token_scopes: ['domain:read', 'domain:create', 'domain:update', 'domain:delete'],
  credential: 'Personal access token',
}
