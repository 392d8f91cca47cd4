// Gandi LiveDNS API v5 (https://api.gandi.net/docs/livedns/): `Authorization: Bearer <personal access
// token or OAuth token>`. Zones: GET /livedns/domains (a bare array, paged by `page`/`per_page`, read
// until an empty page); record sets: GET /livedns/domains/{fqdn}/records (paged the same way), each
// `{rrset_name, rrset_type, rrset_ttl, rrset_values}`; a set is written whole with PUT
// …/records/{name}/{type} `{rrset_values, rrset_ttl}` and removed with DELETE on the same path. Names
// are relative (`@` the apex); values are zone-file text (TXT quoted, hostnames with the trailing
// dot); TTL at least 300. Errors are `{code, message, object, cause}`: 401, 403 (a token without the
// domain's DNS permission), 404 "Domain not found", 409, 429.
import { paginate } from './paging.ts'
import { RestClient } from './rest.ts'
import { absoluteName, relativeName } from './record-based.ts'
import { RRsetBasedProvider } from './rrset-based.ts'
import { fromZoneFile, toZoneFile } from './hetzner.ts'
import { canonicalName, type RRset, type RRsetChange, type Zone } from './types.ts'

export const GANDI_API = 'https://api.gandi.net/v5'

export class GandiProvider extends RRsetBasedProvider {
  readonly id = 'gandi'
  private readonly api: RestClient
  constructor(token: string, base = GANDI_API) {
    super()
    this.api = new RestClient({ name: 'Gandi', base, headers: { authorization: `Bearer ${token}` }, message: (b) => (b?.message ? `${b.cause ?? b.code}: ${b.message}` : undefined) })
  }

  private async paged(path: string): Promise<any[]> {
    return paginate<any>({ provider: 'Gandi', what: path }, async ({ index }) => ({ items: (await this.api.call('GET', `${path}?page=${index}&per_page=500`)) as any[] }))
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/livedns/domains')).map((d) => ({ id: canonicalName(d.fqdn), name: canonicalName(d.fqdn) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.paged(`/livedns/domains/${encodeURIComponent(zone.id)}/records`)).map((s) => ({
      name: absoluteName(s.rrset_name, zone.name),
      type: s.rrset_type,
      ttl: s.rrset_ttl,
      values: (s.rrset_values as string[]).map((v) => fromZoneFile(s.rrset_type, v, zone.name)),
    }))
  }

  private path(zone: Zone, name: string, type: string) {
    return `/livedns/domains/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(relativeName(name, zone.name))}/${type}`
  }

  protected async putSet(zone: Zone, c: RRsetChange): Promise<void> {
    await this.api.call('PUT', this.path(zone, c.name, c.type), { rrset_values: c.values.map((v) => toZoneFile(c.type, v)), rrset_ttl: c.ttl })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', this.path(zone, cur.name, cur.type))
  }
}
