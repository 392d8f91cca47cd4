// Vercel REST API, DNS (https://vercel.com/docs/rest-api/reference/endpoints/dns): `Authorization:
// Bearer <access token>`. Zones: GET /v5/domains (paged: `pagination.next`, passed back as `until`);
// records: GET /v4/domains/{domain}/records (paged the same way), POST /v2/domains/{domain}/records
// `{name, type, value, ttl, mxPriority?}`, DELETE /v2/domains/{domain}/records/{id}. Names are
// relative (`` the apex); MX priority is its own field; CAA value is `flags tag "value"`. Errors are
// `{error: {code, message}}`: 403 `forbidden` with `invalidToken` for a bad token (otherwise a scope
// the token lacks), 404 `not_found`, 429 `rate_limited` (X-RateLimit-Reset waited out when short), 400
// `invalid_*`. Records Vercel made itself (`creator: "system"`) may have values added beside them but
// are never deleted; a record's comment goes back with it on a restore (provider-cards/vercel.ts). Domains owned by a team are
// reached with `?teamId=` (https://vercel.com/docs/rest-api#accessing-resources-owned-by-a-team): the
// zones are the account's own plus every team's (GET /v2/teams, paged the same way), and a team
// domain's zone id is `teamId/domain`.
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, ProviderError, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const VERCEL_API = 'https://api.vercel.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "at least 60",
  temporary: "429 rate_limited with X-RateLimit-Reset waited out when short",
  sources: {
    apex: "dnscontrol providers/vercel (StackExchange/dnscontrol@7a079bc): CanUseAlias Can",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/vercel/)",
    hostnames: "test/fixtures/provider-recordings/vercel.json (lexicon: CNAME value `docs.example.com`)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/vercel/) (TXT value `challengetoken`)",
    ttl: "dnscontrol providers/vercel/vercelProvider.go (StackExchange/dnscontrol@7a079bc) (\"Vercel enforces a minimum TTL of 60 seconds\")",
    temporary: "the reference card (src/adapters/dns-providers/vercel/card.ts)",
  },
}

export class VercelProvider extends RecordBasedProvider {
  readonly id = 'vercel'
  readonly conventions = CONVENTIONS
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
    let until: number | null = null
    return paginate<any>({ provider: 'Vercel', what: path, pageSize: 100 }, async ({ index }) => {
      if (index > 1 && until === null) return { items: [] }
      const r = await this.api.call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${until !== null ? `&until=${until}` : ''}`)
      until = r.pagination?.next ?? null
      return { items: r[key] ?? [], more: until !== null }
    })
  }

  /** The teams the token reaches; none when it may not list them (a token scoped to one team still reaches its own domains). */
  private async teams(): Promise<string[]> {
    try {
      return ((await this.paged('/v2/teams', 'teams')) as { id: string }[]).map((t) => t.id)
    } catch (e) {
      if (e instanceof ProviderError && e.kind === 'permission') return []
      throw e
    }
  }

  async listZones(): Promise<Zone[]> {
    const zones = new Map<string, Zone>()
    const add = (rows: any[], team: string | null) => {
      for (const d of rows.filter((d) => d.serviceType !== 'external')) {
        const name = canonicalName(d.name)
        if (!zones.has(name)) zones.set(name, { id: team ? `${team}/${name}` : name, name })
      }
    }
    add(await this.paged('/v5/domains', 'domains'), null)
    for (const team of await this.teams()) add(await this.paged(`/v5/domains?teamId=${encodeURIComponent(team)}`, 'domains'), team)
    return [...zones.values()]
  }

  /** A zone's domain path and, for a team's domain, the `teamId` query. */
  private where(zone: Zone): { domain: string; team: string } {
    const at = zone.id.lastIndexOf('/')
    return at === -1 ? { domain: encodeURIComponent(zone.id), team: '' } : { domain: encodeURIComponent(zone.id.slice(at + 1)), team: `teamId=${encodeURIComponent(zone.id.slice(0, at))}` }
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const w = this.where(zone)
    return (await this.paged(`/v4/domains/${w.domain}/records${w.team ? `?${w.team}` : ''}`, 'records')).map((r) => ({
      id: r.id,
      name: absoluteName(r.name, zone.name),
      type: r.type,
      ttl: r.ttl,
      value: fromFields(r.type, r.value, r.mxPriority, zone.name, unquoteTxt, true),
      // A record's comment goes back with it when Portico restores it.
      ...(r.comment ? { native: { comment: r.comment } } : {}),
      // Vercel's own records (creator "system": the apex ALIAS and CAA it adds for its certificates).
      ...(r.creator === 'system' ? { fixed: 'a record Vercel manages itself (creator "system")' } : {}),
    }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const f = toFields(type, value)
    const w = this.where(zone)
    const comment = (native as { comment?: string } | undefined)?.comment
    await this.api.call('POST', `/v2/domains/${w.domain}/records${w.team ? `?${w.team}` : ''}`, { name: name === zone.name ? '' : relativeName(name, zone.name), type, value: f.data, ttl, ...(f.priority !== undefined ? { mxPriority: f.priority } : {}), ...(comment ? { comment } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    const w = this.where(zone)
    await this.api.call('DELETE', `/v2/domains/${w.domain}/records/${encodeURIComponent(item.id)}${w.team ? `?${w.team}` : ''}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'vercel',
  defaultBase: VERCEL_API,
  make: (s, o) => new VercelProvider(s, o.base),
  token_url: 'https://vercel.com/account/tokens',
  token_scopes: ['Full account or team token'],
  credential: 'Access token',
}
