// Constellix DNS API v4 (https://api.dns.constellix.com/v4/docs, Domains and Records): every
// request is signed: `Authorization: Bearer <apiKey>:<hmac>:<timestamp>`, where the timestamp is
// milliseconds since the epoch and the hmac is base64 HMAC-SHA1 of the timestamp under the secret
// key (the credential is `api_key:secret_key`). Zones: GET /v4/domains; records: GET
// /v4/domains/{id}/records; both paged (`page`, `perPage`, `meta.pagination.totalPages`). A record
// is a whole set of one name and type: `{id, name, type, ttl, mode: "standard", value: [...]}` with
// a relative name (empty for the apex), a lowercase type and values by type (`{value}` for A, AAAA
// and TXT, `{hostname}` for CNAME and NS, `{server, priority}` for MX, `{flag, tag, data}` for CAA);
// POST …/records creates one, PUT …/records/{id} replaces it, DELETE removes it. Errors are
// `{message}` with 401, 404, 422 and 429.
import { credentialParts } from './credentials.ts'
import { paginate } from './paging.ts'
import { createHmac } from 'node:crypto'
import { RestClient } from './rest.ts'
import { hostValue, relativeName } from './record-based.ts'
import { RRsetBasedProvider } from './rrset-based.ts'
import { canonicalName, ProviderError, type RRset, type RRsetChange, type Zone } from './types.ts'

export const CONSTELLIX_API = 'https://api.dns.constellix.com'

/** One value of a set as v4 takes it. */
function toItem(type: string, v: string): Record<string, unknown> {
  if (type === 'MX') {
    const [p, h] = v.split(' ')
    return { server: `${h}.`, priority: Number(p), enabled: true }
  }
  if (type === 'CNAME' || type === 'NS') return { hostname: `${v}.`, enabled: true }
  if (type === 'CAA') {
    const m = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(v)
    return { flag: Number(m?.[1] ?? 0), tag: m?.[2] ?? '', data: m?.[3] ?? '', enabled: true }
  }
  return { value: v, enabled: true }
}

function fromItem(type: string, i: any, zone: string): string {
  if (type === 'MX') return `${Number(i.priority)} ${hostValue(i.server, zone)}`
  if (type === 'CNAME' || type === 'NS') return hostValue(i.hostname, zone)
  if (type === 'CAA') return `${i.flag} ${i.tag} "${i.data}"`
  return String(i.value)
}

export class ConstellixProvider extends RRsetBasedProvider {
  readonly id = 'constellix'
  private readonly key: string
  private readonly secret: string
  constructor(
    credential: string,
    private readonly base = CONSTELLIX_API,
  ) {
    super()
    const [key, secret] = credentialParts(credential, [{ name: 'api_key', aliases: ['apiKey', 'key', 'CONSTELLIX_API_KEY'] }, { name: 'secret_key', aliases: ['secretKey', 'secret', 'CONSTELLIX_SECRET_KEY'] }])
    if (!key) throw new ProviderError('auth', 'Constellix credential must be api_key:secret_key')
    this.key = key
    this.secret = secret!
  }

  /** A client whose signature is made now (Constellix refuses a stale timestamp). */
  private api(): RestClient {
    const ts = String(Date.now())
    const hmac = createHmac('sha1', this.secret).update(ts).digest('base64')
    return new RestClient({ name: 'Constellix', base: this.base, headers: { authorization: `Bearer ${this.key}:${hmac}:${ts}` }, message: (b) => b?.message })
  }

  private async paged(path: string): Promise<any[]> {
    return paginate<any>({ provider: 'Constellix', what: path, pageSize: 100 }, async ({ index }) => {
      const r = await this.api().call('GET', `${path}?page=${index}&perPage=100`)
      return { items: r.data ?? [], more: index < Number(r.meta?.pagination?.totalPages ?? 1) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/v4/domains')).map((d) => ({ id: String(d.id), name: canonicalName(d.name) }))
  }

  /** Record sets, each with Constellix's id, so a write can address it. */
  private async sets(zone: Zone): Promise<(RRset & { rid: string })[]> {
    return (await this.paged(`/v4/domains/${encodeURIComponent(zone.id)}/records`)).map((r) => {
      const type = String(r.type).toUpperCase()
      const name = r.name ? `${canonicalName(r.name)}.${zone.name}` : zone.name
      return { rid: String(r.id), name, type, ttl: r.ttl, values: (r.value as any[]).map((i) => fromItem(type, i, zone.name)) }
    })
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.sets(zone)).map(({ rid: _, ...s }) => s)
  }

  private ids = new Map<string, string>()

  override async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    this.ids = new Map((await this.sets(zone)).map((s) => [`${s.name}|${s.type}`, s.rid]))
    await super.writeChanges(zone, changes)
  }

  private path(zone: Zone, rid?: string) {
    return `/v4/domains/${encodeURIComponent(zone.id)}/records${rid ? `/${encodeURIComponent(rid)}` : ''}`
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur: RRset | undefined): Promise<void> {
    const rid = cur && this.ids.get(`${cur.name}|${cur.type}`)
    const name = c.name === zone.name ? '' : relativeName(c.name, zone.name)
    await this.api().call(rid ? 'PUT' : 'POST', this.path(zone, rid), { name, type: c.type.toLowerCase(), ttl: c.ttl, mode: 'standard', value: c.values.map((v) => toItem(c.type, v)) })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api().call('DELETE', this.path(zone, this.ids.get(`${cur.name}|${cur.type}`)))
  }
}
