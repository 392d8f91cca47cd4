// deSEC DNS API v1 (https://desec.readthedocs.io/en/latest/dns/rrsets.html and …/dns/domains.html):
// `Authorization: Token <token>`. Zones: GET /api/v1/domains/; record sets: GET
// /api/v1/domains/{name}/rrsets/, each `{subname, type, ttl, records}` (subname "" is the apex). Both
// lists page by cursor: asking with `?cursor=` gives the first page and a `Link` header names the
// `next` one (without the parameter a long list is refused with 400). Every change of a write goes in
// one bulk PATCH …/rrsets/ (a set with `records: []` is removed), which deSEC applies all or nothing
// and counts as one request against its per-domain write limit (15 a minute, 100 an hour): a refused
// set leaves the zone as it was. Records are zone-file text (TXT quoted, hostnames with the trailing
// dot); the TTL may not go below the domain's `minimum_ttl`, 3600 by default. Errors are `{detail}`
// (a 400 names each refused field, per set for a bulk write): 401 "Invalid token.", 404 "Not found.",
// 429 with Retry-After (card: src/adapters/dns-providers/desec/card.ts).
import { nextPageUrl, paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { exchange, failureOf } from '../http.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { fromZoneFile, toZoneFile } from '../hetzner/adapter.ts'
import { canonicalName, readTxtSet, writeTxt, type DnsProvider, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const DESEC_API = 'https://desec.io/api/v1'

/** The `next` address of an RFC 8288 Link header, or null. */
function nextLink(link: string | null): string | null {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part)
    if (m) return m[1]!
  }
  return null
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative (`subname`, empty the apex)",
  hostnames: "zone-file text with the trailing dot",
  txt: "quoted zone-file strings",
  ttl: "at least the domain's minimum_ttl (3600 by default)",
  temporary: "429 with Retry-After waited out when short",
  sources: {
    apex: "dnscontrol providers/desec (StackExchange/dnscontrol@7a079bc): ALIAS unimplemented (deSEC offers HTTPS/SVCB at the apex)",
    names: "desec.readthedocs.io dns/rrsets",
    hostnames: "desec.readthedocs.io dns/rrsets",
    txt: "desec.readthedocs.io dns/rrsets",
    ttl: "desec.readthedocs.io dns/domains (minimum_ttl)",
    temporary: "the reference card (src/adapters/dns-providers/desec/card.ts)",
  },
}

export class DesecProvider implements DnsProvider {
  readonly id = 'desec'
  readonly conventions = CONVENTIONS
  readonly minTtl = 3600
  private readonly api: RestClient
  constructor(
    token: string,
    private readonly base = DESEC_API,
  ) {
    // A 400 names each refused field, per set for a bulk write.
    const detail = (b: any): string | undefined => b?.detail ?? (Array.isArray(b) ? JSON.stringify(b.filter((e) => e && Object.keys(e).length)) : b && typeof b === 'object' ? JSON.stringify(b) : undefined)
    this.api = new RestClient({ name: 'deSEC', base, headers: { authorization: `Token ${token.trim().replace(/^token\s+/i, '')}` }, message: detail })
  }

  /** Every item of a cursor-paged list (the Link header is needed, so this reads the raw exchange). */
  private async paged(path: string): Promise<any[]> {
    let url: string | null = `${this.base}${path}?cursor=`
    return paginate<any>({ provider: 'deSEC', what: path }, async () => {
      if (!url) return { items: [] }
      const r = await exchange('GET', url, this.api.opts.headers, undefined)
      if (r.status >= 300) throw failureOf('deSEC', r, r.body?.detail || `HTTP ${r.status}`)
      // deSEC names desec.io in the Link header, whatever base Portico is configured with (paging.ts).
      url = nextPageUrl(nextLink(r.headers.get('link')), this.base, DESEC_API, 'deSEC')
      return { items: Array.isArray(r.body) ? r.body : [], more: url !== null }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/domains/')).map((d) => ({ id: canonicalName(d.name), name: canonicalName(d.name) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.paged(`/domains/${encodeURIComponent(zone.id)}/rrsets/`)).map((s: any) => ({
      name: absoluteName(s.subname || '@', zone.name),
      type: s.type,
      ttl: s.ttl,
      // A TXT value held as several strings keeps them (readTxtSet): restored byte-identical.
      ...(s.type === 'TXT' ? readTxtSet(s.records as string[]) : { values: (s.records as string[]).map((v) => fromZoneFile(s.type, v, zone.name)) }),
    }))
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    // Values a set keeps (Portico adds one beside them) go back as deSEC held them: their strings come
    // with the change (the planner passes the set's native map on; a restore its prior's).
    const body = changes.map((c) => ({
      subname: c.name === zone.name ? '' : relativeName(c.name, zone.name),
      type: c.type,
      ttl: c.ttl,
      records: c.values.map((v) => (c.type === 'TXT' ? writeTxt(v, c.native) : toZoneFile(c.type, v))),
    }))
    await this.api.call('PATCH', `/domains/${encodeURIComponent(zone.id)}/rrsets/`, body)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'desec',
  defaultBase: DESEC_API,
  make: (s, o) => new DesecProvider(s, o.base),
  token_url: 'https://desec.io/tokens',
  token_scopes: ['Token with write permission for the domain'],
  credential: 'API token',
}
