// deSEC DNS API v1 (https://desec.readthedocs.io/en/latest/dns/rrsets.html and …/dns/domains.html):
// `Authorization: Token <token>`. Zones: GET /api/v1/domains/; record sets: GET
// /api/v1/domains/{name}/rrsets/, each `{subname, type, ttl, records}` (subname "" is the apex). Both
// lists page by cursor: asking with `?cursor=` gives the first page and a `Link` header names the
// `next` one (without the parameter a long list is refused with 400). A set is written whole with
// PUT …/rrsets/{subname}/{type}/ (`@` for the apex) and removed with DELETE. Records are zone-file
// text (TXT quoted, hostnames with the trailing dot); the TTL may not go below the domain's
// `minimum_ttl`, 3600 by default. Errors are `{detail}`: 401 "Invalid token.", 404 "Not found.",
// 429 with Retry-After.
import { paginate } from './paging.ts'
import { RestClient } from './rest.ts'
import { exchange, failureOf } from './http.ts'
import { absoluteName, relativeName } from './record-based.ts'
import { RRsetBasedProvider } from './rrset-based.ts'
import { fromZoneFile, toZoneFile } from './hetzner.ts'
import { canonicalName, type RRset, type RRsetChange, type Zone } from './types.ts'

export const DESEC_API = 'https://desec.io/api/v1'

/** The `next` address of an RFC 8288 Link header, or null. */
function nextLink(link: string | null): string | null {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part)
    if (m) return m[1]!
  }
  return null
}

export class DesecProvider extends RRsetBasedProvider {
  readonly id = 'desec'
  readonly minTtl = 3600
  private readonly api: RestClient
  constructor(token: string, private readonly base = DESEC_API) {
    super()
    this.api = new RestClient({ name: 'deSEC', base, headers: { authorization: `Token ${token}` }, message: (b) => b?.detail })
  }

  /** Every item of a cursor-paged list (the Link header is needed, so this reads the raw exchange). */
  private async paged(path: string): Promise<any[]> {
    let url: string | null = `${this.base}${path}?cursor=`
    return paginate<any>({ provider: 'deSEC', what: path }, async () => {
      if (!url) return { items: [] }
      const r = await exchange('GET', url, this.api.opts.headers, undefined)
      if (r.status >= 300) throw failureOf('deSEC', r, r.body?.detail || `HTTP ${r.status}`)
      url = nextLink(r.headers.get('link'))
      return { items: Array.isArray(r.body) ? r.body : [], more: url !== null }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/domains/')).map((d) => ({ id: canonicalName(d.name), name: canonicalName(d.name) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.paged(`/domains/${encodeURIComponent(zone.id)}/rrsets/`)).map((s) => ({
      name: absoluteName(s.subname || '@', zone.name),
      type: s.type,
      ttl: s.ttl,
      values: (s.records as string[]).map((v) => fromZoneFile(s.type, v, zone.name)),
    }))
  }

  private path(zone: Zone, name: string, type: string) {
    return `/domains/${encodeURIComponent(zone.id)}/rrsets/${encodeURIComponent(relativeName(name, zone.name))}/${type}/`
  }

  protected async putSet(zone: Zone, c: RRsetChange): Promise<void> {
    await this.api.call('PUT', this.path(zone, c.name, c.type), { subname: relativeName(c.name, zone.name).replace(/^@$/, ''), type: c.type, ttl: c.ttl, records: c.values.map((v) => toZoneFile(c.type, v)) })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', this.path(zone, cur.name, cur.type))
  }
}
