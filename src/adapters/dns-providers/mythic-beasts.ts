// Mythic Beasts DNS API v2 (https://www.mythic-beasts.com/support/api/dnsv2): HTTP Basic with an API
// key's `id:secret` (the credential as given). Zones: GET /dns/v2/zones (`{zones: [names]}`); records:
// GET /dns/v2/zones/{zone}/records (`{records: [{host, ttl, type, data, mx_priority?}]}`); a set is
// replaced with PUT /dns/v2/zones/{zone}/records/{host}/{type} `{records: [...]}` and removed with
// DELETE on the same path. Hosts are relative (`@` the apex); data holds hostnames with the trailing
// dot and TXT as the text itself; MX priority is its own field. Errors are `{error}`: 401, 403 "Key
// not authorised for zone" (which is also the answer for a zone the account does not have, so it is
// read as a zone the credential does not reach), 400, 429.
import { RestClient } from './rest.ts'
import { absoluteName, fromFields, relativeName, toFields } from './record-based.ts'
import { RRsetBasedProvider } from './rrset-based.ts'
import { canonicalName, unquoteTxt, type RRset, type RRsetChange, type Zone } from './types.ts'

export const MYTHIC_BEASTS_API = 'https://api.mythic-beasts.com'

export class MythicBeastsProvider extends RRsetBasedProvider {
  readonly id = 'mythic-beasts'
  private readonly api: RestClient
  constructor(idSecret: string, base = MYTHIC_BEASTS_API) {
    super()
    this.api = new RestClient({ name: 'Mythic Beasts', base, headers: { authorization: `Basic ${Buffer.from(idSecret).toString('base64')}` }, message: (b) => b?.error, kind: (r) => (r.status === 403 && /zone/i.test(r.body?.error ?? '') ? 'zone_not_found' : undefined) })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/dns/v2/zones')).zones as string[]).map((n) => ({ id: canonicalName(n), name: canonicalName(n) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const sets = new Map<string, RRset>()
    for (const r of (await this.api.call('GET', `/dns/v2/zones/${encodeURIComponent(zone.id)}/records`)).records as any[]) {
      const name = absoluteName(r.host, zone.name)
      const k = `${name}|${r.type}`
      const s: RRset = sets.get(k) ?? { name, type: r.type, ttl: r.ttl, values: [] }
      s.values.push(fromFields(r.type, r.data, r.mx_priority, zone.name, unquoteTxt))
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  private path(zone: Zone, name: string, type: string) {
    return `/dns/v2/zones/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(relativeName(name, zone.name))}/${type}`
  }

  protected async putSet(zone: Zone, c: RRsetChange): Promise<void> {
    const host = relativeName(c.name, zone.name)
    const records = c.values.map((v) => {
      const f = toFields(c.type, v, { dot: true })
      return { host, ttl: c.ttl, type: c.type, data: f.data, ...(f.priority !== undefined ? { mx_priority: f.priority } : {}) }
    })
    await this.api.call('PUT', this.path(zone, c.name, c.type), { records })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', this.path(zone, cur.name, cur.type))
  }
}
