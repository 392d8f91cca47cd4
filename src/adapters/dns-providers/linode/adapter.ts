// Akamai Cloud (Linode) API v4, Domains (https://techdocs.akamai.com/linode-api/reference/get-domains):
// `Authorization: Bearer <personal access token or OAuth token>` with `domains:read_write`. Zones: GET
// /domains (paged: `page`, `pages`); records: GET /domains/{id}/records (paged the same way), POST
// …/records `{type, name, target, priority, ttl_sec, tag}`, DELETE …/records/{id}. Names are relative
// (`` the apex); `target` is the data, MX priority its own field, CAA `tag` its own field (flags are
// always 0). Linode stores only its allowed TTLs and rounds any other up (600 → 3600), so the planner
// writes an allowed one (`allowedTtls`) and a re-apply finds it unchanged. Errors are `{errors: [{reason,
// field?}]}`: 401 "Invalid Token", 403 a token without the domains scope, 404 "Not found", 429
// (Retry-After). SRV rows are read as locked (src/adapters/dns-providers/linode/card.ts is the card).
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const LINODE_API = 'https://api.linode.com/v4'

/** The TTLs Linode stores for a record; any other is rounded up to the next (its API reference on
 * `ttl_sec`, and its Terraform provider), so Portico writes only these. */
export const LINODE_TTLS = [300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600, 2419200] as const

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "only 300, 3600, 7200, … 2419200; any other rounded up (600 → 3600); 0 the domain default",
  temporary: "429 with Retry-After waited out when short",
  sources: {
    apex: "dnscontrol providers/linode (StackExchange/dnscontrol@7a079bc) (no ALIAS)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/linode4/)",
    hostnames: "test/fixtures/provider-recordings/linode.json (lexicon: target `docs.example.com` in and out)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/linode4/)",
    ttl: "Linode OpenAPI ttl_sec (test/fixtures/provider-openapi/linode.json: \"rounded up to the nearest valid value\" on the domain, \"nearest\" on the record; the issue's Terraform reading: up) — Portico writes only allowed values, so either reading stores what it wrote",
    temporary: "the reference card (src/adapters/dns-providers/linode/card.ts)",
  },
}

export class LinodeProvider extends RecordBasedProvider {
  readonly id = 'linode'
  readonly conventions = CONVENTIONS
  readonly allowedTtls = LINODE_TTLS
  private readonly api: RestClient
  constructor(token: string, base = LINODE_API) {
    super()
    this.api = new RestClient({ name: 'Linode', base, headers: { authorization: `Bearer ${token}` }, message: (b) => (b?.errors as { reason: string }[] | undefined)?.map((e) => e.reason).join('; ') })
  }

  private async paged(path: string): Promise<any[]> {
    return paginate<any>({ provider: 'Linode', what: path, pageSize: 500 }, async ({ index }) => {
      const r = await this.api.call('GET', `${path}?page=${index}&page_size=500`)
      return { items: r.data ?? [], more: index < (r.pages ?? 1) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/domains')).filter((d) => d.type === 'master').map((d) => ({ id: String(d.id), name: canonicalName(d.domain) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/domains/${encodeURIComponent(zone.id)}/records`)).map((r) => ({
      id: String(r.id),
      name: absoluteName(r.name, zone.name),
      type: r.type,
      ttl: r.ttl_sec,
      value: r.type === 'CAA' ? `0 ${r.tag} "${r.target}"` : r.type === 'SRV' ? `${r.priority ?? 0} ${r.weight ?? 0} ${r.port ?? 0} ${r.target}` : fromFields(r.type, r.target, r.priority, zone.name, unquoteTxt, true),
      // Linode keeps an SRV's service and protocol in fields of their own: not rewritten from a value.
      ...(r.type === 'SRV' ? { locked: 'Linode SRV fields (service, protocol, weight, port)' } : {}),
    }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const body: Record<string, unknown> = { type, name: name === zone.name ? '' : relativeName(name, zone.name), ttl_sec: ttl }
    const caa = /^\d+\s+(\S+)\s+"(.*)"$/.exec(value)
    if (type === 'CAA' && caa) Object.assign(body, { tag: caa[1], target: caa[2] })
    else {
      const f = toFields(type, value)
      Object.assign(body, { target: f.data, ...(f.priority !== undefined ? { priority: f.priority } : {}) })
    }
    await this.api.call('POST', `/domains/${encodeURIComponent(zone.id)}/records`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/domains/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'linode',
  defaultBase: LINODE_API,
  make: (s, o) => new LinodeProvider(s, o.base),
  token_url: 'https://cloud.linode.com/profile/tokens',
  token_scopes: ['domains:read_write'],
  credential: 'Personal access token',
}
