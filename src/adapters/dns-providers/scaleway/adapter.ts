// Scaleway Domains and DNS API v2beta1 (https://www.scaleway.com/en/developers/api/domains-and-dns/):
// header `X-Auth-Token: <API secret key>`. Zones: GET /domain/v2beta1/dns-zones (paged: `page`,
// `page_size`, `total_count`; a zone's name is `subdomain.domain`); records: GET
// /domain/v2beta1/dns-zones/{zone}/records (paged the same way). Every change goes in one PATCH
// /domain/v2beta1/dns-zones/{zone}/records `{changes: [{set: {id_fields: {name, type}, records}} |
// {delete: {id_fields: {name, type}}}]}`, which Scaleway applies all or nothing. Names are relative
// (`` the apex); data is zone-file text (hostnames with the trailing dot, TXT quoted); MX priority is
// its own field. Errors are `{message, type}`: 401 `denied_authentication`, 403
// `permissions_denied`, 404 `not_found`, 409 `conflict`, 429 `quotas_exceeded`/too many requests.
// Do no harm (card: src/adapters/dns-providers/scaleway/card.ts): a record's comment, and its data as
// Scaleway holds it, go back with it when its set is rewritten or restored; dynamic records
// (geo-IP, HTTP health-checked, weighted, view) are read as locked sets; an A, AAAA or CNAME beside
// an ALIAS is refused before anything is written.
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { fromZoneFile, toZoneFile } from '../hetzner/adapter.ts'
import { canonicalName, ProviderError, type DnsProvider, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import { onceMoreIfZoneChanged } from '../zone-changed.ts'
import { refuseBesideFlattened } from '../flattened.ts'
import type { HostedProvider } from '../hosted.ts'
import type { HttpResult } from '../http.ts'

/**
 * Scaleway's "busy" answer (issue 46): a write on a zone still applying an earlier change is 409
 * `{"type": "transient_state", "resource": "dns_zone", "current_state": "pending", …}`, which
 * scaleway-sdk-go (scw/errors.go) types as its own TransientStateError, apart from 409 `conflict`.
 * Nothing was written; the same write goes through once the zone is `active` again.
 */
/** Scaleway's 404 `not_found` of resource `dns_record` on a PATCH deleting a set by id_fields: the set was removed meanwhile. */
const isStaleDelete = (e: unknown) => e instanceof ProviderError && e.status === 404 && /not_found: .*\(dns_record/.test(e.message)
const isTransient = (r: HttpResult) => r.status === 409 && r.body?.type === 'transient_state'
/** Seconds to wait before sending a write refused as transient again: Scaleway sends no hint; a zone's change applies in seconds. */
export const TRANSIENT_WAIT = 2

/** A record answered by one of Scaleway's dynamic configurations, which a plain write would drop. */
const DYNAMIC = ['geo_ip_config', 'http_service_config', 'weighted_config', 'view_config']

export const SCALEWAY_API = 'https://api.scaleway.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, empty the apex",
  hostnames: "zone-file text with the trailing dot",
  txt: "quoted zone-file strings",
  ttl: "any",
  temporary: "429 waited out when signalled; 409 transient_state (the zone still applying an earlier change) waited out, then temporary",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "Scaleway OpenAPI (test/fixtures/provider-openapi/scaleway.json)",
    hostnames: "Scaleway OpenAPI",
    txt: "Scaleway OpenAPI",
    ttl: "Scaleway OpenAPI",
    temporary: "the reference card (src/adapters/dns-providers/scaleway/card.ts); scaleway-sdk-go scw/errors.go (TransientStateError)",
  },
}

export class ScalewayProvider implements DnsProvider {
  readonly id = 'scaleway'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(secretKey: string, base = SCALEWAY_API) {
    this.api = new RestClient({ name: 'Scaleway', base, headers: { 'x-auth-token': secretKey }, message: (b) => (b?.message ? `${b.type ?? ''}: ${b.message}${b.resource ? ` (${b.resource}${b.current_state ? ` ${b.current_state}` : ''})` : ''}` : undefined),
      // The zone still applying an earlier change: waited out within the retry budget, then temporary
      // (503 provider_temporary with Retry-After), never a clashing record.
      http: { temporary: (r) => (isTransient(r) ? TRANSIENT_WAIT : undefined) },
      kind: (r) => (isTransient(r) ? 'temporary' : undefined),
    })
  }

  /** `filter` is the list's name filter, sent empty (every item) as Scaleway's SDKs send it. */
  private async paged(path: string, key: string, filter: string): Promise<any[]> {
    return paginate<any>({ provider: 'Scaleway', what: path, pageSize: 1000 }, async ({ index, offset }) => {
      const r = await this.api.call('GET', `${path}?${filter}=&page=${index}&page_size=1000`)
      const rows = (r[key] ?? []) as any[]
      return { items: rows, more: offset + rows.length < Number(r.total_count ?? 0) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/domain/v2beta1/dns-zones', 'dns_zones', 'domain')).map((z) => {
      const name = canonicalName(z.subdomain ? `${z.subdomain}.${z.domain}` : z.domain)
      return { id: name, name }
    })
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const sets = new Map<string, RRset>()
    for (const r of await this.paged(`/domain/v2beta1/dns-zones/${encodeURIComponent(zone.id)}/records`, 'records', 'name')) {
      const name = absoluteName(r.name ?? '', zone.name)
      const value = fromZoneFile(r.type, r.type === 'MX' ? `${r.priority ?? 0} ${r.data}` : r.data, zone.name)
      const k = `${name}|${r.type}`
      const s: RRset = sets.get(k) ?? { name, type: r.type, ttl: r.ttl, values: [] }
      s.values.push(value)
      // What a rewrite must send back as it was: the comment, the data as Scaleway holds it.
      const keep: { comment?: string; data?: string } = {}
      if (typeof r.comment === 'string' && r.comment !== '') keep.comment = r.comment
      if (r.type !== 'MX' && toZoneFile(r.type, value) !== r.data) keep.data = r.data
      if (Object.keys(keep).length) s.native = { ...s.native, [value]: keep }
      const dynamic = DYNAMIC.find((d) => r[d] !== undefined && r[d] !== null)
      if (dynamic) s.locked = `a Scaleway dynamic record (${dynamic})`
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    // A set the PATCH deletes was removed between this read and the PATCH (issue 46): all or nothing,
    // so nothing was written. Read the zone again and send it once more (a set already gone is not
    // deleted); changed again, the zone is busy: 409 conflict (zone_changed), retry later.
    await onceMoreIfZoneChanged('Scaleway', 404, isStaleDelete, () => this.sendChanges(zone, changes))
  }

  private async sendChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    const current = await this.readRecords(zone)
    refuseBesideFlattened('Scaleway', current, changes, ['ALIAS'])
    const rel = (n: string) => (n === zone.name ? '' : relativeName(n, zone.name))
    // A deletion of a set that is not there is nothing to do (Scaleway answers it 404 dns_record).
    const live = changes.filter((c) => c.values.length > 0 || current.some((s) => s.name === c.name && s.type === c.type))
    if (live.length === 0) return
    const ordered = [...live].sort((a, b) => Number(a.values.length > 0) - Number(b.values.length > 0))
    const body = ordered.map((c) => {
      const id_fields = { name: rel(c.name), type: c.type }
      if (c.values.length === 0) return { delete: { id_fields } }
      const cur = current.find((s) => s.name === c.name && s.type === c.type)
      const records = c.values.map((v) => {
        const keep = (cur?.native?.[v] ?? c.native?.[v]) as { comment?: string; data?: string } | undefined
        const data = keep?.data ?? toZoneFile(c.type, v)
        const comment = keep?.comment ? { comment: keep.comment } : {}
        if (c.type !== 'MX') return { name: id_fields.name, type: c.type, ttl: c.ttl, data, ...comment }
        const [p, h] = data.split(' ')
        return { name: id_fields.name, type: c.type, ttl: c.ttl, data: h, priority: Number(p), ...comment }
      })
      return { set: { id_fields, records } }
    })
    await this.api.call('PATCH', `/domain/v2beta1/dns-zones/${encodeURIComponent(zone.id)}/records`, { changes: body, return_all_records: false })
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'scaleway',
  defaultBase: SCALEWAY_API,
  make: (s, o) => new ScalewayProvider(s, o.base),
  token_url: 'https://console.scaleway.com/iam/api-keys',
  token_scopes: ['DomainsDNSFullAccess'],
  credential: 'API secret key',
}
