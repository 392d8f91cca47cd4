// ClouDNS API (https://www.cloudns.net/wiki/article/42/): every call carries `auth-id` and
// `auth-password` as parameters (the credential is `auth_id:auth_password`). Zones: GET
// /dns/list-zones.json (paged: `page`, `rows-per-page`; read until an empty page); records: GET
// /dns/records.json (`{id: record}` for the whole zone), POST /dns/add-record.json (`record-type`,
// `host`, `record`, `ttl`, `priority`, CAA `caa_flag`/`caa_type`/`caa_value`), POST
// /dns/delete-record.json (`record-id`). Hosts are relative (`` the apex). A TTL must be one of
// ClouDNS's values, so a requested TTL is written as the nearest one. Failures come with HTTP 200 as
// `{status: "Failed", statusDescription}`: a bad auth-id or password, a domain not in the account;
// a rate limit is 429.
import { credentialParts } from './credentials.ts'
import { paginate } from './paging.ts'
import { exchange, failureOf, type HttpResult } from './http.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, unquoteTxt, type ProviderErrorKind, type Zone } from './types.ts'

export const CLOUDNS_API = 'https://api.cloudns.net'
const TTLS = [60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000]
const nearestTtl = (t: number) => TTLS.reduce((a, b) => (Math.abs(b - t) < Math.abs(a - t) ? b : a))

function kindOf(r: HttpResult): ProviderErrorKind | undefined {
  const d = String(r.body?.statusDescription ?? '')
  if (/auth/i.test(d)) return 'auth'
  if (/domain|zone/i.test(d) && /not|invalid|missing/i.test(d)) return 'zone_not_found'
  return r.status < 300 ? 'write_failed' : undefined
}

export class CloudnsProvider extends RecordBasedProvider {
  readonly id = 'cloudns'
  private readonly auth: Record<string, string>
  constructor(
    credential: string,
    private readonly base = CLOUDNS_API,
  ) {
    super()
    const [id, password] = credentialParts(credential, [{ name: 'auth-id', aliases: ['auth_id', 'sub-auth-id', 'CLOUDNS_AUTH_ID'] }, { name: 'auth-password', aliases: ['password', 'auth_password', 'CLOUDNS_AUTH_PASSWORD'] }])
    this.auth = { 'auth-id': id!, 'auth-password': password! }
  }

  private async call(method: 'GET' | 'POST', path: string, params: Record<string, string>): Promise<any> {
    const q = new URLSearchParams({ ...this.auth, ...params }).toString()
    const r = method === 'GET' ? await exchange('GET', `${this.base}${path}?${q}`, {}, undefined) : await exchange('POST', this.base + path, { 'content-type': 'application/x-www-form-urlencoded' }, q)
    if (r.status >= 300 || r.body?.status === 'Failed') throw failureOf('ClouDNS', r, r.body?.statusDescription ?? `HTTP ${r.status}`, kindOf(r))
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    const rows = await paginate<{ name: string; type: string }>({ provider: 'ClouDNS', what: 'zones' }, async ({ index }) => {
      const r = await this.call('GET', '/dns/list-zones.json', { page: String(index), 'rows-per-page': '100' })
      return { items: Array.isArray(r) ? r : [] }
    })
    return rows.filter((z) => z.type === 'master').map((z) => ({ id: canonicalName(z.name), name: canonicalName(z.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const body = await this.call('GET', '/dns/records.json', { 'domain-name': zone.id })
    return (Array.isArray(body) ? body : Object.values(body ?? {}))
      .filter((r: any) => r.type !== 'SOA')
      .map((r: any) => ({
        id: String(r.id),
        name: absoluteName(r.host ?? '', zone.name),
        type: r.type,
        ttl: Number(r.ttl),
        value: r.type === 'CAA' ? `${r.caa_flag} ${r.caa_type} "${r.caa_value}"` : fromFields(r.type, r.record, r.priority === undefined ? undefined : Number(r.priority), zone.name, unquoteTxt, true),
      }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const p: Record<string, string> = { 'domain-name': zone.id, 'record-type': type, host: name === zone.name ? '' : relativeName(name, zone.name), ttl: String(nearestTtl(ttl)) }
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
