// Name.com API v4 (https://docs.name.com/docs/api-reference/dns): HTTP Basic with `username:token`
// (the credential as given). Zones: GET /v4/domains (paged: `nextPage`); records: GET
// /v4/domains/{domain}/records (paged the same way), POST …/records `{host, type, answer, ttl,
// priority?}`, DELETE …/records/{id}. `host` is relative (`` the apex); `answer` holds hostnames
// without the trailing dot; MX priority is its own field; TTL at least 300. Errors are `{message,
// details?}`: 401 "Unauthenticated", 403 "Permission Denied", 404 "Not Found", 429. Do no harm (card:
// src/adapters/dns-providers/namecom/card.ts): SRV (priority apart from its answer) is read as a locked
// set; an A, AAAA or CNAME beside an ANAME is refused before anything is written.
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { refuseBesideFlattened } from '../flattened.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

/** Types whose whole value is `answer` (MX with its priority): written back as they are. */
const KNOWN = new Set(['A', 'AAAA', 'ANAME', 'CNAME', 'MX', 'NS', 'TXT', 'CAA'])

export const NAMECOM_API = 'https://api.name.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ANAME",
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "at least 300",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "dnscontrol providers/namedotcom/records.go (StackExchange/dnscontrol@7a079bc): ALIAS written as ANAME",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namecom/)",
    hostnames: "test/fixtures/provider-recordings/namecom.json (lexicon: answer `docs.example.com` in and out)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namecom/)",
    ttl: "the reference card (src/adapters/dns-providers/namecom/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/namecom/card.ts)",
  },
}

export class NamecomProvider extends RecordBasedProvider {
  readonly id = 'namecom'
  readonly conventions = CONVENTIONS
  /** Name.com refuses a TTL under 300. */
  readonly minTtl = 300
  private readonly api: RestClient
  constructor(userToken: string, base = NAMECOM_API) {
    super()
    this.api = new RestClient({ name: 'Name.com', base, headers: { authorization: `Basic ${Buffer.from(userToken).toString('base64')}` }, message: (b) => (b?.message ? `${b.message}${b.details ? `: ${b.details}` : ''}` : undefined) })
  }

  private async paged(path: string, key: string): Promise<any[]> {
    let page: number | undefined = 1
    return paginate<any>({ provider: 'Name.com', what: path, pageSize: 1000 }, async () => {
      if (!page) return { items: [] }
      const r = await this.api.call('GET', `${path}?page=${page}&perPage=1000`)
      page = r.nextPage || undefined
      return { items: r[key] ?? [], more: page !== undefined }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/v4/domains', 'domains')).map((d) => ({ id: canonicalName(d.domainName), name: canonicalName(d.domainName) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/v4/domains/${encodeURIComponent(zone.id)}/records`, 'records')).map((r) => ({
      id: String(r.id),
      name: absoluteName(r.host ?? '', zone.name),
      type: r.type,
      ttl: r.ttl,
      value: r.type === 'SRV' ? `${Number(r.priority ?? 0)} ${r.answer}` : fromFields(r.type, r.answer, r.priority, zone.name, unquoteTxt, true),
      ...(KNOWN.has(r.type) ? {} : { locked: `a Name.com ${r.type} record (its fields apart)` }),
    }))
  }

  protected override diff(items: ProviderRecord[], changes: RRsetChange[]) {
    refuseBesideFlattened('Name.com', items.map((i) => ({ name: i.name, type: i.type, values: [i.value] })), changes, ['ANAME'])
    return super.diff(items, changes)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.api.call('POST', `/v4/domains/${encodeURIComponent(zone.id)}/records`, { host: name === zone.name ? '' : relativeName(name, zone.name), type, answer: f.data, ttl, ...(f.priority !== undefined ? { priority: f.priority } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/v4/domains/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'namecom',
  defaultBase: NAMECOM_API,
  make: (s, o) => new NamecomProvider(s, o.base),
  token_url: 'https://www.name.com/account/settings/api',
  token_scopes: ['Production API token (username:token)'],
  credential: 'API token (username:token)',
}
