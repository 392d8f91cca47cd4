// ClouDNS API (https://www.cloudns.net/wiki/article/42/): every call carries `auth-id` (an API user)
// or `sub-auth-id` (an API sub-user) and `auth-password` as parameters (the credential is
// `auth_id:auth_password`, or names its parts: `sub-auth-id` for a sub-user). Zones: GET
// /dns/list-zones.json (paged: `page`, `rows-per-page` 100; a short page is the last); records: GET
// /dns/records.json (`{id: record}` for the whole zone), POST /dns/add-record.json (`record-type`,
// `host`, `record`, `ttl`, `priority`, CAA `caa_flag`/`caa_type`/`caa_value`, web redirects their
// frame fields), POST /dns/delete-record.json (`record-id`). Hosts are relative (`` the apex). A TTL
// must be one of ClouDNS's values, so a planned TTL is written as the next one up. Failures come with
// HTTP 200 as `{status: "Failed", statusDescription}`: a bad auth-id or password, a domain not in the
// account, and the rate limit (20 a second per IP, no wait given), which is called again after 1, 2,
// 4, 8 s. Do no harm (src/adapters/dns-providers/cloudns/card.ts): GeoDNS, failover, dynamic-DNS and
// switched-off records are read as locked; web redirects (WR) are restored with their frame settings;
// ALIAS is written back as it is.
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { backoffWhileThrottled, exchange, failureOf, type HttpResult } from '../http.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type ProviderErrorKind, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const CLOUDNS_API = 'https://api.cloudns.net'
const TTLS = [60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000]
/** The next TTL ClouDNS accepts, never lower than planned. */
const acceptedTtl = (t: number) => TTLS.find((x) => t <= x) ?? TTLS[TTLS.length - 1]!

/** Web redirects' own fields, sent back when one is restored. */
const WR_FIELDS = ['redirect-type', 'frame', 'frame-title', 'frame-keywords', 'frame-description', 'mobile-meta', 'save-path']

const isRateLimit = (d: string) => /limit/i.test(d) && /request/i.test(d)

/** Why Portico cannot write a record back as it is (its set is then locked), or undefined. */
function lockOf(r: any): string | undefined {
  if (r['geodns-location'] !== undefined && !['', '0', 0, '-1', -1].includes(r['geodns-location'])) return `a ClouDNS GeoDNS record (${r['geodns-code'] ?? r['geodns-location']})`
  if (String(r.failover ?? '0') === '1') return 'a ClouDNS record under DNS failover'
  if (String(r.dynamicurl_status ?? '0') === '1') return 'a ClouDNS record with a dynamic-DNS URL'
  if (String(r.status ?? '1') === '0') return 'a switched-off ClouDNS record'
  return undefined
}

function kindOf(r: HttpResult): ProviderErrorKind | undefined {
  const d = String(r.body?.statusDescription ?? '')
  if (isRateLimit(d)) return 'rate_limited'
  if (/auth/i.test(d)) return 'auth'
  if (/domain|zone/i.test(d) && /not|invalid|missing/i.test(d)) return 'zone_not_found'
  return r.status < 300 ? 'write_failed' : undefined
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "only ClouDNS's values (60, 300, 900, 1800, 3600, …): rounded up",
  temporary: "its \"Failed\" rate-limit answer retried after 1, 2, 4, 8 s",
  sources: {
    apex: "dnscontrol providers/cloudns (StackExchange/dnscontrol@7a079bc): CanUseAlias Can",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/cloudns/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/cloudns/) (record `docs.example.com`)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/cloudns/)",
    ttl: "cloudns.net/wiki/article/58 (TTL values); the reference card (src/adapters/dns-providers/cloudns/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/cloudns/card.ts)",
  },
}

export class CloudnsProvider extends RecordBasedProvider {
  readonly id = 'cloudns'
  readonly conventions = CONVENTIONS
  readonly minTtl = 60
  readonly allowedTtls = TTLS
  private readonly auth: Record<string, string>
  constructor(
    credential: string,
    private readonly base = CLOUDNS_API,
  ) {
    super()
    // A sub-user's id goes as sub-auth-id (a credential that names it so); an API user's as auth-id.
    const [sub] = credentialParts(credential, [{ name: 'sub-auth-id', aliases: ['sub_auth_id', 'CLOUDNS_SUB_AUTH_ID'] }, { name: 'auth-password', aliases: ['password', 'auth_password', 'CLOUDNS_AUTH_PASSWORD'] }])
    const named = /sub[-_ ]?auth[-_ ]?id/i.test(credential)
    const [id, password] = credentialParts(credential, [{ name: 'auth-id', aliases: ['auth_id', 'sub-auth-id', 'sub_auth_id', 'CLOUDNS_AUTH_ID', 'CLOUDNS_SUB_AUTH_ID'] }, { name: 'auth-password', aliases: ['password', 'auth_password', 'CLOUDNS_AUTH_PASSWORD'] }])
    this.auth = named && sub ? { 'sub-auth-id': sub, 'auth-password': password! } : { 'auth-id': id!, 'auth-password': password! }
  }

  private async call(method: 'GET' | 'POST', path: string, params: Record<string, string>): Promise<any> {
    const q = new URLSearchParams({ ...this.auth, ...params }).toString()
    // The rate limit is a Failed answer with HTTP 200 and no wait: called again after a backoff.
    const r = await backoffWhileThrottled(
      () => (method === 'GET' ? exchange('GET', `${this.base}${path}?${q}`, {}, undefined) : exchange('POST', this.base + path, { 'content-type': 'application/x-www-form-urlencoded' }, q)),
      (x) => x.body?.status === 'Failed' && isRateLimit(String(x.body?.statusDescription ?? '')),
    )
    if (r.status >= 300 || r.body?.status === 'Failed') throw failureOf('ClouDNS', r, r.body?.statusDescription ?? `HTTP ${r.status}`, kindOf(r))
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    const rows = await paginate<{ name: string; type: string }>({ provider: 'ClouDNS', what: 'zones', pageSize: 100 }, async ({ index }) => {
      const r = await this.call('GET', '/dns/list-zones.json', { page: String(index), 'rows-per-page': '100' })
      return { items: Array.isArray(r) ? r : [] }
    })
    return rows.filter((z) => z.type === 'master').map((z) => ({ id: canonicalName(z.name), name: canonicalName(z.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const body = await this.call('GET', '/dns/records.json', { 'domain-name': zone.id })
    return (Array.isArray(body) ? body : Object.values(body ?? {}))
      .filter((r: any) => r.type !== 'SOA')
      .map((r: any) => {
        const locked = lockOf(r)
        const native = r.type === 'WR' ? Object.fromEntries(WR_FIELDS.filter((f) => r[f] !== undefined).map((f) => [f, String(r[f])])) : undefined
        return {
          id: String(r.id),
          name: absoluteName(r.host ?? '', zone.name),
          type: r.type,
          ttl: Number(r.ttl),
          value: r.type === 'CAA' ? `${r.caa_flag} ${r.caa_type} "${r.caa_value}"` : r.type === 'WR' ? String(r.record) : fromFields(r.type, r.record, r.priority === undefined ? undefined : Number(r.priority), zone.name, unquoteTxt, true),
          ...(native ? { native } : {}),
          ...(locked ? { locked } : {}),
        }
      })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const p: Record<string, string> = { 'domain-name': zone.id, 'record-type': type, host: name === zone.name ? '' : relativeName(name, zone.name), ttl: String(acceptedTtl(ttl)), ...(type === 'WR' ? ((native as Record<string, string> | undefined) ?? { 'redirect-type': '301' }) : {}) }
    const caa = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
    if (type === 'CAA' && caa) Object.assign(p, { caa_flag: caa[1], caa_type: caa[2], caa_value: caa[3] })
    else {
      const f = toFields(type, value)
      Object.assign(p, { record: f.data, ...(f.priority !== undefined ? { priority: String(f.priority) } : {}) })
    }
    await this.call('POST', '/dns/add-record.json', p)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('POST', '/dns/delete-record.json', { 'domain-name': zone.id, 'record-id': item.id })
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'cloudns',
  defaultBase: CLOUDNS_API,
  make: (s, o) => new CloudnsProvider(s, o.base),
  token_url: 'https://www.cloudns.net/api-settings/',
  token_scopes: ['API user (auth-id and password)'],
  credential: 'API user and password (auth_id:auth_password)',
}
