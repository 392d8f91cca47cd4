// Porkbun API v3 (https://porkbun.com/api/json/v3/documentation, OpenAPI at /api/json/v3/spec): every
// call is a POST of JSON carrying `apikey` and `secretapikey` (the credential is `apikey:secretapikey`).
// Zones: /domain/listAll `{start}` (up to 1000 a call; the next call starts after the last one seen,
// and an empty list ends it); records: /dns/retrieve/{domain} (the whole zone: `{records: [{id, name,
// type, content, ttl, prio}]}`, names fully qualified, numbers as strings); /dns/create/{domain}
// `{name, type, content, ttl, prio}` with the name relative (empty for the apex); /dns/delete/{domain}/{id}.
// TXT content is the text itself; MX keeps its priority in `prio`; the lowest TTL is 600. Errors are
// `{status: "ERROR", message}`: "Invalid API key." is a refused credential, a domain "not opted in to
// API access" a missing permission (the person switches API access on per domain), "Invalid domain." a
// zone the account does not hold; 429 is the rate limit.
import { credentialParts } from './credentials.ts'
import { paginate } from './paging.ts'
import { RestClient } from './rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, type ProviderErrorKind, type Zone } from './types.ts'

export const PORKBUN_API = 'https://api.porkbun.com/api/json/v3'

const TYPES = new Set(['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA', 'ALIAS'])

function kindOf(message: string | undefined): ProviderErrorKind | undefined {
  const m = (message ?? '').toLowerCase()
  if (m.includes('invalid api key') || m.includes('authentication')) return 'auth'
  if (m.includes('opted in to api access') || m.includes('not authorized')) return 'permission'
  if (m.includes('invalid domain') || m.includes('domain not found')) return 'zone_not_found'
  return undefined
}

export class PorkbunProvider extends RecordBasedProvider {
  readonly id = 'porkbun'
  readonly minTtl = 600
  private readonly api: RestClient
  private readonly auth: { apikey: string; secretapikey: string }
  constructor(credential: string, base = PORKBUN_API) {
    super()
    const [apikey, secretapikey] = credentialParts(credential, [{ name: 'apikey', aliases: ['api_key', 'PORKBUN_API_KEY'] }, { name: 'secretapikey', aliases: ['secret_api_key', 'secret', 'PORKBUN_SECRET_API_KEY'] }])
    this.auth = { apikey: apikey!, secretapikey: secretapikey! }
    this.api = new RestClient({
      name: 'Porkbun',
      base,
      headers: {},
      message: (b) => b?.message,
      kind: (r) => (r.status === 429 ? 'rate_limited' : kindOf(r.body?.message)),
      failed: (r) => r.body?.status === 'ERROR',
    })
  }

  private post(path: string, body: Record<string, unknown> = {}) {
    return this.api.call('POST', path, { ...this.auth, ...body })
  }

  async listZones(): Promise<Zone[]> {
    // listAll answers up to 1000 domains from `start`; the reference says to read on until an empty answer.
    const rows = await paginate<{ domain: string }>({ provider: 'Porkbun', what: 'domains' }, async ({ offset }) => ({
      items: ((await this.post('/domain/listAll', { start: String(offset) })).domains ?? []) as { domain: string }[],
    }))
    return rows.map((d) => ({ id: canonicalName(d.domain), name: canonicalName(d.domain) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return ((await this.post(`/dns/retrieve/${encodeURIComponent(zone.id)}`)).records as any[])
      .filter((r) => TYPES.has(r.type))
      .map((r) => ({ id: String(r.id), name: absoluteName(r.name, zone.name), type: r.type, ttl: Number(r.ttl), value: fromFields(r.type, r.content, Number(r.prio ?? 0), zone.name, (t) => t, true) }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.post(`/dns/create/${encodeURIComponent(zone.id)}`, { name: name === zone.name ? '' : relativeName(name, zone.name), type, content: f.data, ttl: String(ttl), ...(f.priority !== undefined ? { prio: String(f.priority) } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.post(`/dns/delete/${encodeURIComponent(zone.id)}/${encodeURIComponent(item.id)}`)
  }
}
