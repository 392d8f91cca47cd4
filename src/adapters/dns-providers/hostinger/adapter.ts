// Hostinger API (https://developers.hostinger.com/#tag/dns-zone): `Authorization: Bearer <API token>`.
// Zones: GET /api/domains/v1/portfolio (one list); record sets: GET /api/dns/v1/zones/{domain} (one
// list of `{name, type, ttl, records: [{content}]}`); a set is written with PUT /api/dns/v1/zones/{domain}
// `{overwrite: true, zone: [set]}` (replacing the set of that name and type) and removed with DELETE
// /api/dns/v1/zones/{domain} `{filters: [{name, type}]}`. Names are relative (`@` the apex); content is
// zone-file text (hostnames with the trailing dot, TXT quoted). Errors are `{message, correlation_id,
// errors?}`: 401 "Unauthenticated", 403, 404, 422 (validation), 429 (Retry-After). A set holding a
// record switched off (`is_disabled`) is read as locked (src/adapters/dns-providers/hostinger/card.ts).
import { RestClient } from '../rest.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { RRsetBasedProvider } from '../rrset-based.ts'
import { fromZoneFile, toZoneFile } from '../hetzner/adapter.ts'
import { canonicalName, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const HOSTINGER_API = 'https://developers.hostinger.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "zone-file text with the trailing dot",
  txt: "quoted zone-file strings",
  ttl: "any",
  temporary: "429 with Retry-After waited out when short",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "Hostinger OpenAPI (test/fixtures/provider-openapi/hostinger.json)",
    hostnames: "Hostinger OpenAPI",
    txt: "Hostinger OpenAPI",
    ttl: "Hostinger OpenAPI",
    temporary: "the reference card (src/adapters/dns-providers/hostinger/card.ts)",
  },
}

export class HostingerProvider extends RRsetBasedProvider {
  readonly id = 'hostinger'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(token: string, base = HOSTINGER_API) {
    super()
    this.api = new RestClient({ name: 'Hostinger', base, headers: { authorization: `Bearer ${token}` }, message: (b) => b?.message })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/api/domains/v1/portfolio')) as { domain: string | null; type: string }[])
      .filter((d) => d.domain && d.type === 'domain')
      .map((d) => ({ id: canonicalName(d.domain!), name: canonicalName(d.domain!) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return ((await this.api.call('GET', `/api/dns/v1/zones/${encodeURIComponent(zone.id)}`)) as any[]).map((s) => ({
      name: absoluteName(s.name, zone.name),
      type: s.type,
      ttl: s.ttl,
      values: (s.records as { content: string }[]).map((r) => fromZoneFile(s.type, r.content, zone.name)),
      // A record switched off cannot be written back as such (the update takes content only): the set is left alone.
      ...((s.records as { is_disabled?: boolean }[]).some((r) => r.is_disabled) ? { locked: 'a Hostinger record switched off (is_disabled)' } : {}),
    }))
  }

  protected async putSet(zone: Zone, c: RRsetChange): Promise<void> {
    const set = { name: relativeName(c.name, zone.name), type: c.type, ttl: c.ttl, records: c.values.map((v) => ({ content: toZoneFile(c.type, v) })) }
    await this.api.call('PUT', `/api/dns/v1/zones/${encodeURIComponent(zone.id)}`, { overwrite: true, zone: [set] })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', `/api/dns/v1/zones/${encodeURIComponent(zone.id)}`, { filters: [{ name: relativeName(cur.name, zone.name), type: cur.type }] })
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'hostinger',
  defaultBase: HOSTINGER_API,
  make: (s, o) => new HostingerProvider(s, o.base),
  token_url: 'https://hpanel.hostinger.com/profile/api',
  token_scopes: ['DNS zone read and write'],
  credential: 'API token',
}
