// Gcore DNS API v2 (https://api.gcore.com/docs/dns): `Authorization: APIKey <permanent API token>`.
// Zones: GET /dns/v2/zones (paged: `limit`, `offset`, `total_amount`); record sets: GET
// /dns/v2/zones/{zone}/rrsets (paged the same way), each `{name, type, ttl, resource_records:
// [{content: [rdata fields]}]}`; a set is created with POST /dns/v2/zones/{zone}/{name}/{type},
// replaced with PUT and removed with DELETE on the same path. Names are absolute; rdata fields as NS1
// takes them (MX `[10, "mx."]`, CAA `[0, "issue", "ca"]`, TXT `[text]`). Errors are `{error}`: 401,
// 403, 404 "zone not found", 409 "rrset already exists", 429. Do no harm (card:
// src/adapters/dns-providers/gcore/card.ts): a set with Gcore's own routing (its `filters` pickers, set
// `meta` such as failover health checks, a record's `meta` such as geo or ASN targeting) or a record
// switched off (`enabled: false`) is read as a locked set: a rewrite would drop that routing.
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { RRsetBasedProvider } from '../rrset-based.ts'
import { fromAnswer, toAnswer } from '../ns1/ns1-api.ts'
import { canonicalName, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const GCORE_API = 'https://api.gcore.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "CNAME",
  names: "absolute",
  hostnames: "rdata fields, absolute",
  txt: "one rdata field, the text itself",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "dnscontrol commit 5dfc8ca (\"Gcore auto uses ALIAS for apex zone CNAME records, just like CloudFlare\")",
    names: "the reference card (src/adapters/dns-providers/gcore/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/gcore/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/gcore/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/gcore/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/gcore/card.ts)",
  },
}

export class GcoreProvider extends RRsetBasedProvider {
  readonly id = 'gcore'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(token: string, base = GCORE_API) {
    super()
    this.api = new RestClient({ name: 'Gcore', base, headers: { authorization: `APIKey ${token}` }, message: (b) => b?.error })
  }

  private async paged(path: string, key: string): Promise<any[]> {
    return paginate<any>({ provider: 'Gcore', what: path, pageSize: 1000 }, async ({ offset }) => {
      const r = await this.api.call('GET', `${path}?limit=1000&offset=${offset}`)
      const rows = (r[key] ?? []) as any[]
      return { items: rows, more: r.total_amount === undefined ? undefined : offset + rows.length < Number(r.total_amount) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/dns/v2/zones', 'zones')).map((z) => ({ id: canonicalName(z.name), name: canonicalName(z.name) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.paged(`/dns/v2/zones/${encodeURIComponent(zone.id)}/rrsets`, 'rrsets')).map((s) => {
      const records = s.resource_records as { content: (string | number)[]; meta?: Record<string, unknown>; enabled?: boolean }[]
      const set: RRset = { name: canonicalName(s.name), type: s.type, ttl: s.ttl, values: records.map((r) => fromAnswer(s.type, r.content)) }
      const filled = (o: unknown) => !!o && typeof o === 'object' && Object.keys(o).length > 0
      const routing = (Array.isArray(s.filters) && s.filters.length > 0) || filled(s.meta) || records.some((r) => filled(r.meta))
      if (routing) set.locked = 'a Gcore set with its own routing (filters or meta)'
      else if (records.some((r) => r.enabled === false)) set.locked = 'a Gcore set holding a record that is switched off'
      return set
    })
  }

  private path(zone: Zone, name: string, type: string) {
    return `/dns/v2/zones/${encodeURIComponent(zone.id)}/${encodeURIComponent(name)}/${type}`
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur: RRset | undefined): Promise<void> {
    await this.api.call(cur ? 'PUT' : 'POST', this.path(zone, c.name, c.type), { ttl: c.ttl, resource_records: c.values.map((v) => ({ content: toAnswer(c.type, v), enabled: true })) })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', this.path(zone, cur.name, cur.type))
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'gcore',
  defaultBase: GCORE_API,
  make: (s, o) => new GcoreProvider(s, o.base),
  token_url: 'https://accounts.gcore.com/profile/api-tokens',
  token_scopes: ['Permanent API token with DNS read and write'],
  credential: 'Permanent API token',
}
