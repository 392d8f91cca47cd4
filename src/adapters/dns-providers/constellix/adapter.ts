// Constellix DNS API v4 (https://api.dns.constellix.com/v4/docs, Domains and Records; the provider's
// SDK digicert/dnstrust-constellix-php-sdk): every request is signed: `Authorization: Bearer
// <apiKey>:<hmac>:<timestamp>`, where the timestamp is milliseconds since the epoch and the hmac is
// base64 HMAC-SHA1 of the timestamp under the secret key (the credential is `api_key:secret_key`).
// Zones: GET /v4/domains; records: GET /v4/domains/{id}/records; both paged (`page`, `perPage`,
// `meta.pagination.totalPages`). A record is a whole set of one name and type: `{id, name, type, ttl,
// mode, value, region, ipfilter, geoproximity, enabled, notes, contacts}` with a relative name (empty
// for the apex), an upper-case type and, in standard mode, values by type (`{value}` for A, AAAA,
// ANAME and TXT, `{hostname}` for CNAME and NS, `{server, priority}` for MX, `{flag, tag, data}` for
// CAA); HTTP redirection's value is one object. POST …/records creates one, PUT …/records/{id}
// replaces it whole, DELETE removes it. Rate limits: 429 with X-RateLimit-Reset (seconds).
// Do no harm (src/adapters/dns-providers/constellix/card.ts): a record in failover, pools or round-robin
// failover mode, in a GTD region other than the default, behind an IP filter or geo proximity, or
// switched off (or with a value switched off) is read as locked: the planner never changes it. HTTP
// redirection is kept and written back whole; a record's notes and contact lists go back with every
// PUT of its set and with a restored set.
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { createHmac } from 'node:crypto'
import { RestClient } from '../rest.ts'
import { hostValue, relativeName } from '../record-based.ts'
import { RRsetBasedProvider } from '../rrset-based.ts'
import { canonicalName, ProviderError, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const CONSTELLIX_API = 'https://api.dns.constellix.com'

/** One value of a set as v4 takes it. */
function toItem(type: string, v: string): Record<string, unknown> {
  if (type === 'MX') {
    const [p, h] = v.split(' ')
    return { server: `${h}.`, priority: Number(p), enabled: true }
  }
  if (type === 'CNAME' || type === 'NS') return { hostname: `${v}.`, enabled: true }
  // ANAME (the apex record) holds a hostname in `value`, fully qualified as CNAME's is.
  if (type === 'ANAME') return { value: `${v}.`, enabled: true }
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
  if (type === 'ANAME') return hostValue(String(i.value), zone)
  return String(i.value)
}

/** Why Portico cannot write a record back as it is (the set is then locked), or undefined. */
function lockOf(r: any): string | undefined {
  const mode = r.mode ?? 'standard'
  if (mode !== 'standard') return `a Constellix record in ${mode} mode`
  if (r.region && r.region !== 'default') return `a Constellix record for the GTD region ${r.region}`
  if (r.ipfilter) return 'a Constellix record behind an IP filter'
  if (r.geoproximity) return 'a Constellix geo-proximity record'
  if (r.enabled === false || (Array.isArray(r.value) && r.value.some((v: any) => v?.enabled === false))) return 'a switched-off Constellix record'
  return undefined
}

/** A record's own fields a write sends back (notes, contact lists): kept on every value as `native`. */
interface ConstellixNative {
  notes?: string
  contacts?: number[]
  /** HTTP redirection's value object. */
  http?: Record<string, unknown>
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ANAME",
  names: "relative, empty the apex",
  hostnames: "with the trailing dot (CNAME `hostname`, MX `server`, ANAME `value`)",
  txt: "bare text (`value`)",
  ttl: "any",
  temporary: "429 with X-RateLimit-Reset waited out when short",
  sources: {
    apex: "api.dns.constellix.com/v4/docs (ANAME records)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/constellix/)",
    hostnames: "the reference card (src/adapters/dns-providers/constellix/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/constellix/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/constellix/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/constellix/card.ts)",
  },
}

export class ConstellixProvider extends RRsetBasedProvider {
  readonly id = 'constellix'
  readonly conventions = CONVENTIONS
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
    return new RestClient({ name: 'Constellix', base: this.base, headers: { authorization: `Bearer ${this.key}:${hmac}:${ts}` }, message: (b) => b?.message ?? (Array.isArray(b?.errors) ? b.errors.join('; ') : undefined) })
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

  /** Record sets, each with Constellix's id and own fields, so a write can address it and keep them. */
  private async sets(zone: Zone): Promise<(RRset & { rid: string; own: ConstellixNative })[]> {
    return (await this.paged(`/v4/domains/${encodeURIComponent(zone.id)}/records`)).map((r) => {
      const type = String(r.type).toUpperCase()
      const name = r.name ? `${canonicalName(r.name)}.${zone.name}` : zone.name
      const locked = lockOf(r)
      const own: ConstellixNative = {
        ...(r.notes ? { notes: String(r.notes) } : {}),
        ...(Array.isArray(r.contacts) && r.contacts.length ? { contacts: r.contacts.map((c: any) => Number(c?.id ?? c)) } : {}),
      }
      let values: string[]
      let native: Record<string, unknown> | undefined
      if (locked) {
        // Read for what it is, never written: a summary of the answer it gives.
        values = [JSON.stringify(r.value)]
      } else if (type === 'HTTP' && r.value && !Array.isArray(r.value)) {
        values = [String(r.value.url)]
        native = { [values[0]!]: { ...own, http: r.value } }
      } else {
        values = ((r.value ?? []) as any[]).map((i) => fromItem(type, i, zone.name))
      }
      if (!native && (own.notes || own.contacts)) native = Object.fromEntries(values.map((v) => [v, own]))
      return { rid: String(r.id), own, name, type, ttl: r.ttl, values, ...(native ? { native } : {}), ...(locked ? { locked } : {}) }
    })
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.sets(zone)).map(({ rid: _, own: __, ...s }) => s)
  }

  private current = new Map<string, { rid: string; own: ConstellixNative }>()

  override async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const sets = await this.sets(zone)
    for (const c of changes) {
      const s = sets.find((x) => x.name === c.name && x.type === c.type)
      if (s?.locked) throw new ProviderError('unrepresentable', `${c.name} ${c.type} holds ${s.locked}, which Portico cannot write back exactly as it is; nothing was written`)
    }
    this.current = new Map(sets.map((s) => [`${s.name}|${s.type}`, { rid: s.rid, own: s.own }]))
    await super.writeChanges(zone, changes)
  }

  private path(zone: Zone, rid?: string) {
    return `/v4/domains/${encodeURIComponent(zone.id)}/records${rid ? `/${encodeURIComponent(rid)}` : ''}`
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur: RRset | undefined): Promise<void> {
    const at = cur && this.current.get(`${cur.name}|${cur.type}`)
    const name = c.name === zone.name ? '' : relativeName(c.name, zone.name)
    // The set's own fields: as it stands (a replaced set), or as it was (a restored one).
    const restored = c.values.map((v) => c.native?.[v] as ConstellixNative | undefined).find(Boolean)
    const own = at?.own ?? restored ?? {}
    const http = c.type === 'HTTP' ? (restored?.http ?? { url: c.values[0], redirectType: 301, hard: true }) : undefined
    const body = {
      name,
      type: c.type,
      ttl: c.ttl,
      mode: 'standard',
      value: http ?? c.values.map((v) => toItem(c.type, v)),
      ...(own.notes ? { notes: own.notes } : {}),
      ...(own.contacts ? { contacts: own.contacts } : {}),
    }
    await this.api().call(at ? 'PUT' : 'POST', this.path(zone, at?.rid), body)
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api().call('DELETE', this.path(zone, this.current.get(`${cur.name}|${cur.type}`)?.rid))
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'constellix',
  defaultBase: CONSTELLIX_API,
  make: (s, o) => new ConstellixProvider(s, o.base),
  token_url: 'https://dns.constellix.com/settings/security',
  token_scopes: ['API key and secret'],
  credential: 'API key and secret key (api_key:secret_key)',
}
