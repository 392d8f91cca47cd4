// PowerDNS Authoritative HTTP API (https://doc.powerdns.com/authoritative/http-api/): the integrator's
// own server, reached at the API URL they give (`…/api/v1/servers/<server_id>`) with `X-API-Key`.
// Zones: GET /zones; records: GET /zones/{zone_id} (rrsets with zone-file content); writes: one
// PATCH /zones/{zone_id} with `changetype: REPLACE` / `DELETE` per RRset (atomic, 204). A wrong key is
// 401; an unknown zone 404; a refused change 422 with `{"error": …}`.
// The API URL comes from the integrator, so the caller checks it through the SSRF guard and hands the
// checked address in as `pin` (src/domain/provider-accounts.ts `openProvider`).
import { exchange, reasonOf, type ProviderHttp } from './http.ts'
import { canonicalName, canonicalValue, ProviderError, quoteTxt, readTxtSet, unquoteTxt, writeTxt, type DnsProvider, type RRset, type RRsetChange, type Zone, type HostConventions } from './types.ts'

const fq = (name: string) => `${canonicalName(name)}.`

function toContent(type: string, value: string): string {
  switch (type) {
    case 'CNAME':
    case 'NS':
      return fq(value)
    case 'MX': {
      const [prio, host] = value.split(/\s+/)
      return `${prio} ${fq(host ?? '')}`
    }
    case 'TXT':
    case 'SPF':
      return quoteTxt(value)
    default:
      return value
  }
}

function fromContent(type: string, content: string): string {
  if (type === 'TXT' || type === 'SPF') return unquoteTxt(content)
  return canonicalValue(type, content)
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "absolute with the trailing dot",
  hostnames: "zone-file text with the trailing dot",
  txt: "quoted zone-file strings",
  ttl: "any",
  temporary: "none: an error is reported",
  sources: {
    apex: "catalogue: no apex record offered (ALIAS needs expand-alias on the server: doc.powerdns.com guides/alias)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/powerdns/) (PATCH name `docs.sometestdomain.com.`)",
    hostnames: "doc.powerdns.com http-api (content is zone-file text)",
    txt: "doc.powerdns.com http-api",
    ttl: "doc.powerdns.com http-api",
    temporary: "doc.powerdns.com http-api",
  },
}

export class PowerDnsProvider implements DnsProvider {
  readonly id = 'powerdns'
  readonly conventions = CONVENTIONS
  private readonly base: string

  constructor(
    apiUrl: string,
    private readonly apiKey: string,
    private readonly http: ProviderHttp = {},
  ) {
    this.base = apiUrl.replace(/\/+$/, '')
  }

  private async call(method: string, path: string, body?: unknown) {
    const r = await exchange(method, this.base + path, { 'X-API-Key': this.apiKey }, body, this.http)
    if (r.status === 401 || r.status === 403) throw new ProviderError('auth', 'PowerDNS refused the API key', r.status)
    if (r.status === 429) throw new ProviderError('rate_limited', 'PowerDNS rate limit', r.status)
    if (r.status === 404) throw new ProviderError('zone_not_found', reasonOf(r, (b) => b?.error), r.status)
    if (r.status >= 300) throw new ProviderError(r.status >= 500 ? 'temporary' : 'write_failed', reasonOf(r, (b) => b?.error), r.status)
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    const zones = (await this.call('GET', '/zones')) as { id: string; name: string }[]
    if (!Array.isArray(zones)) throw new ProviderError('unreachable', 'PowerDNS answered something that is not a zone list')
    return zones.map((z) => ({ id: z.id, name: canonicalName(z.name) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const z = (await this.call('GET', `/zones/${encodeURIComponent(zone.id)}`)) as { rrsets: { name: string; type: string; ttl: number; records: { content: string; disabled?: boolean }[] }[] }
    return z.rrsets
      .map((s) => {
        const contents = s.records.filter((r) => !r.disabled).map((r) => r.content)
        // A TXT value held as several strings keeps them (readTxtSet): restored byte-identical.
        return { name: canonicalName(s.name), type: s.type, ttl: s.ttl, ...(s.type === 'TXT' || s.type === 'SPF' ? readTxtSet(contents) : { values: contents.map((c) => fromContent(s.type, c)) }) }
      })
      .filter((s) => s.values.length > 0)
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    // Values a set keeps go back as PowerDNS held them (a TXT of several strings): the current sets' strings.
    const held = changes.some((c) => (c.type === 'TXT' || c.type === 'SPF') && c.values.length) ? await this.readRecords(zone) : []
    const content = (c: RRsetChange, v: string) =>
      c.type === 'TXT' || c.type === 'SPF' ? writeTxt(v, { ...held.find((s) => s.name === canonicalName(c.name) && s.type === c.type)?.native, ...c.native }) : toContent(c.type, v)
    const rrsets = changes.map((c) =>
      c.values.length === 0
        ? { name: fq(c.name), type: c.type, changetype: 'DELETE' }
        : { name: fq(c.name), type: c.type, ttl: c.ttl, changetype: 'REPLACE', records: c.values.map((v) => ({ content: content(c, v), disabled: false })) },
    )
    await this.call('PATCH', `/zones/${encodeURIComponent(zone.id)}`, { rrsets })
  }
}
