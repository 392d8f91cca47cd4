// Gandi LiveDNS API v5 (https://api.gandi.net/docs/livedns/; card: src/adapters/dns-providers/gandi/card.ts):
// `Authorization: Bearer <personal access token>` (or `Apikey <key>`, deprecated). Zones: GET
// /livedns/domains (a bare array, paged by `page`/`per_page`, `Total-Count` the whole count); record
// sets: GET /livedns/domains/{fqdn}/records (paged the same way), each
// `{rrset_name, rrset_type, rrset_ttl, rrset_values}`; a set is written whole with PUT
// …/records/{name}/{type} `{rrset_values, rrset_ttl}` and removed with DELETE on the same path. Names
// are relative (`@` the apex); values are zone-file text (TXT quoted, hostnames with the trailing
// dot); TTL 300 to 2592000. Values Portico does not change go back byte for byte as Gandi holds
// them; an A, AAAA or CNAME beside an ALIAS is refused before anything is written. Errors are
// `{code, message, object, cause}` (400 with `errors`): 401, 403 (a token without the domain's DNS
// permission), 404 "Domain not found", 409, 429.
import { paginate } from '../paging.ts'
import { exchange, failureOf, reasonOf } from '../http.ts'
import { refuseBesideFlattened } from '../flattened.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { RRsetBasedProvider, writeSets } from '../rrset-based.ts'
import { fromZoneFile, toZoneFile } from '../hetzner/adapter.ts'
import { canonicalName, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const GANDI_API = 'https://api.gandi.net/v5'

/** Gandi's own kinds that answer for a name's addresses (an A, AAAA or CNAME beside them clashes). */
const FLATTENED = ['ALIAS']

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "relative, `@` the apex",
  hostnames: "zone-file text: with the trailing dot absolute, without it relative to the zone",
  txt: "quoted zone-file strings (Gandi answers a bare value quoted)",
  ttl: "300 to 2592000",
  temporary: "429 waited out when signalled; a 5xx temporary (503 with Retry-After), and what a refused write had done put back",
  sources: {
    apex: "dnscontrol providers/gandiv5 (StackExchange/dnscontrol@7a079bc): CanUseAlias Can (\"Only on the bare domain\")",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/gandi/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/gandi/) (REST-IntegrationTests: `docs.example.com` kept as sent, a relative target)",
    txt: "test/fixtures/provider-recordings/gandi.json (lexicon: TXT written `challengetoken`, listed `\"challengetoken\"`)",
    ttl: "api.gandi.net/docs/livedns: rrset_ttl 300–2592000",
    temporary: "the reference card (src/adapters/dns-providers/gandi/card.ts)",
  },
}

export class GandiProvider extends RRsetBasedProvider {
  readonly id = 'gandi'
  readonly conventions = CONVENTIONS
  /** rrset_ttl: minimum 300, maximum 2592000. */
  readonly minTtl = 300
  private readonly api: RestClient
  constructor(token: string, base = GANDI_API) {
    super()
    // A personal access token is sent as `Bearer`; the legacy API key (deprecated) as `Apikey`.
    const t = token.trim()
    const authorization = /^(Bearer|Apikey)\s+\S/i.test(t) ? t.replace(/^bearer/i, 'Bearer').replace(/^apikey/i, 'Apikey') : `Bearer ${t}`
    this.api = new RestClient({ name: 'Gandi', base, headers: { authorization }, message: (b) => (b?.message ? `${b.cause ?? b.code}: ${b.message}${Array.isArray(b.errors) ? ` (${b.errors.map((e: any) => `${e.name}: ${e.description}`).join('; ')})` : ''}` : undefined) })
  }

  /** Every item of a list Gandi pages (`page`, `per_page`; `Total-Count` says how many there are). */
  private async paged(path: string): Promise<any[]> {
    return paginate<any>({ provider: 'Gandi', what: path, pageSize: 500 }, async ({ index, offset }) => {
      const r = await exchange('GET', `${this.api.opts.base}${path}?page=${index}&per_page=500`, this.api.opts.headers, undefined)
      if (r.status >= 300) throw failureOf('Gandi', r, reasonOf(r, (b) => (b?.message ? `${b.cause ?? b.code}: ${b.message}` : undefined)))
      const items = Array.isArray(r.body) ? r.body : []
      const total = Number(r.headers.get('total-count'))
      return { items, more: Number.isFinite(total) && r.headers.has('total-count') ? offset + items.length < total : undefined }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/livedns/domains')).map((d) => ({ id: canonicalName(d.fqdn), name: canonicalName(d.fqdn) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.paged(`/livedns/domains/${encodeURIComponent(zone.id)}/records`)).map((s) => {
      const set: RRset = { name: absoluteName(s.rrset_name, zone.name), type: s.rrset_type, ttl: s.rrset_ttl, values: [] }
      for (const raw of s.rrset_values as string[]) {
        const v = fromZoneFile(s.rrset_type, raw, zone.name)
        set.values.push(v)
        // A value Portico would write differently (a TXT split where Gandi's owner split it, a relative
        // target) goes back as Gandi holds it.
        if (toZoneFile(s.rrset_type, v) !== raw) set.native = { ...set.native, [v]: { raw } }
      }
      return set
    })
  }

  private path(zone: Zone, name: string, type: string) {
    return `/livedns/domains/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(relativeName(name, zone.name))}/${type}`
  }

  override async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const sets = await this.readRecords(zone)
    refuseBesideFlattened('Gandi', sets, changes, FLATTENED)
    await writeSets(sets, changes, (c, cur) => this.putSet(zone, c, cur), (cur) => this.deleteSet(zone, cur))
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur?: RRset): Promise<void> {
    const raw = (v: string) => ((cur?.native?.[v] ?? c.native?.[v]) as { raw?: string } | undefined)?.raw ?? toZoneFile(c.type, v)
    await this.api.call('PUT', this.path(zone, c.name, c.type), { rrset_values: c.values.map(raw), rrset_ttl: c.ttl })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', this.path(zone, cur.name, cur.type))
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'gandi',
  defaultBase: GANDI_API,
  make: (s, o) => new GandiProvider(s, o.base),
  token_url: 'https://admin.gandi.net/organizations/account/pat',
  token_scopes: ['Manage domain name technical configurations'],
  credential: 'Personal access token',
}
