// DNSimple API v2 (https://developer.dnsimple.com/v2/zones/records/): `Authorization: Bearer <account
// access token or OAuth token>`. The account comes from GET /whoami (`data.account.id`). Zones: GET
// /{account}/zones (paged: `pagination.total_pages`); records: GET /{account}/zones/{zone}/records
// (paged), POST …/records `{name, type, content, ttl, priority}` (201), DELETE …/records/{id} (204).
// Names are relative (`` the apex); MX priority is its own field; SOA and apex NS are system records
// that cannot be written. Errors are `{message, errors?}`: 401 "Authentication failed", 402 a feature
// the account's plan does not include, 404 "Zone `x` not found", 429 (X-RateLimit-Reset), 400. A user
// token (GET /whoami has no account) reaches each account GET /accounts lists. Do no harm (card:
// src/adapters/dns-providers/dnsimple/card.ts): ALIAS, URL and POOL records are written back as they
// are; SRV (priority apart) and regional records (`regions` other than global) are read as locked
// sets; an A, AAAA or CNAME beside an ALIAS is refused before anything is written.
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import { refuseBesideFlattened } from '../flattened.ts'
import type { HostedProvider } from '../hosted.ts'

export const DNSIMPLE_API = 'https://api.dnsimple.com/v2'

/** Types whose whole value is `content` (MX with its priority): written back as they are. */
const KNOWN = new Set(['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'MX', 'NS', 'POOL', 'TXT', 'URL'])

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "any",
  temporary: "429 with X-RateLimit-Reset waited out when short",
  sources: {
    apex: "dnscontrol providers/dnsimple (StackExchange/dnscontrol@7a079bc): CanUseAlias Can",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/dnsimple/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/dnsimple/) (NS content `ns1.dnsimple.com`)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/dnsimple/)",
    ttl: "DNSimple OpenAPI",
    temporary: "the reference card (src/adapters/dns-providers/dnsimple/card.ts)",
  },
}

export class DnsimpleProvider extends RecordBasedProvider {
  readonly id = 'dnsimple'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  private accounts: string[] | null = null
  /** Which account holds a zone (a user token reaches every account of its user). */
  private readonly accountOf = new Map<string, string>()
  constructor(token: string, base = DNSIMPLE_API) {
    super()
    this.api = new RestClient({ name: 'DNSimple', base, headers: { authorization: `Bearer ${token.trim().replace(/^bearer\s+/i, '')}` }, message: (b) => b?.message, kind: (r) => (r.status === 402 ? 'plan_restricted' : undefined) })
  }

  /** The accounts the token reaches: an account token its own; a user token every account of its user. */
  private async accountIds(): Promise<string[]> {
    if (this.accounts) return this.accounts
    const who = (await this.api.call('GET', '/whoami')).data
    const ids = who?.account ? [String(who.account.id)] : ((await this.api.call('GET', '/accounts')).data as { id: number }[]).map((a) => String(a.id))
    this.accounts = ids
    return ids
  }

  private async paged(account: string, path: string): Promise<any[]> {
    return paginate<any>({ provider: 'DNSimple', what: path, pageSize: 100 }, async ({ index }) => {
      const r = await this.api.call('GET', `/${encodeURIComponent(account)}${path}?page=${index}&per_page=100`)
      return { items: r.data ?? [], more: index < (r.pagination?.total_pages ?? 1) }
    })
  }

  /** A zone's id is `<account id>/<zone name>`: a user token may reach two accounts holding a zone of
   * one name, and the id tells the copies apart (an id without an account, stored by an earlier
   * release, is the zone name: its account is looked up). */
  async listZones(): Promise<Zone[]> {
    const out: Zone[] = []
    for (const account of await this.accountIds()) {
      for (const z of await this.paged(account, '/zones')) {
        const name = canonicalName(z.name)
        this.accountOf.set(name, account)
        out.push({ id: `${account}/${name}`, name })
      }
    }
    return out
  }

  private async prefix(zone: Zone): Promise<string> {
    const at = zone.id.indexOf('/')
    if (at !== -1) return `/${encodeURIComponent(zone.id.slice(0, at))}`
    const ids = await this.accountIds()
    if (!this.accountOf.has(zone.id) && ids.length > 1) await this.listZones()
    return `/${encodeURIComponent(this.accountOf.get(zone.id) ?? ids[0] ?? '')}`
  }

  /** The zone's name as DNSimple's paths take it. */
  private zonePath(zone: Zone): string {
    return `/zones/${encodeURIComponent(zone.id.slice(zone.id.indexOf('/') + 1))}`
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const account = (await this.prefix(zone)).slice(1)
    return (await this.paged(decodeURIComponent(account), `${this.zonePath(zone)}/records`))
      .filter((r) => !r.system_record)
      .map((r) => {
        const regions = Array.isArray(r.regions) ? (r.regions as string[]) : ['global']
        const locked = !KNOWN.has(r.type) ? `a DNSimple ${r.type} record (its fields apart)` : r.parent_id != null ? 'a record DNSimple keeps with another (parent_id: an ALIAS\'s descriptive TXT)' : regions.length !== 1 || regions[0] !== 'global' ? `a DNSimple regional record (served from ${regions.join(', ')})` : undefined
        const value = KNOWN.has(r.type) ? fromFields(r.type, r.content, r.priority, zone.name, unquoteTxt, true) : `${r.priority ?? 0} ${r.content}`
        return { id: String(r.id), name: absoluteName(r.name, zone.name), type: r.type, ttl: r.ttl, value, ...(locked ? { locked } : {}) }
      })
  }

  protected override diff(items: ProviderRecord[], changes: RRsetChange[]) {
    // ALIAS answers with another name's addresses; DNSimple refuses a CNAME beside it, and an A beside it
    // would answer in its stead.
    refuseBesideFlattened('DNSimple', items.map((i) => ({ name: i.name, type: i.type, values: [i.value] })), changes, ['ALIAS'])
    return super.diff(items, changes)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.api.call('POST', `${await this.prefix(zone)}${this.zonePath(zone)}/records`, { name: name === zone.name ? '' : relativeName(name, zone.name), type, content: f.data, ttl, ...(f.priority !== undefined ? { priority: f.priority } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `${await this.prefix(zone)}${this.zonePath(zone)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'dnsimple',
  defaultBase: DNSIMPLE_API,
  make: (s, o) => new DnsimpleProvider(s, o.base),
  token_url: 'https://dnsimple.com/user',
  token_scopes: ['Account access token'],
  credential: 'Access token',
}
