// Cloudflare API v4 (https://developers.cloudflare.com/api/resources/dns/subresources/records/):
// `Authorization: Bearer <API token>`. Zones: GET /zones (paged: `result_info.total_pages`); records:
// GET /zones/{zone_id}/dns_records (paged); a change set is one POST …/dns_records/batch
// `{deletes: [{id}], posts: [record]}`, which Cloudflare applies in that order, all or nothing. Bodies
// are `{success, errors: [{code, message}], result}`. A bad token is 401, or 403 with code 10000
// "Authentication error" / 9109 "Invalid access token"; a 403 10000 to a token that
// /user/tokens/verify still calls active is a token without the permission (DNS:Edit), and another 403
// likewise; a rate limit 429 (code 971, Retry-After); an unknown or removed zone 400/404 (code 7003,
// 7000, 1001); a
// clashing record 400 (81053 / 81057). MX priority is its own field; CAA is written through `data:
// {flags, tag, value}`; TXT content is written as quoted character strings, as the reference asks.
// TTL 1 means "automatic" and is kept as 1, so a revert puts "automatic" back. A record's own
// attributes (proxy status, comment, tags) are kept as its `native` part, so a record Portico removed
// (a proxied `www` A under the CNAME it writes) comes back proxied, with its comment and tags; records
// whose content is structured `data` Portico does not model (SRV, HTTPS, SVCB, LOC, URI, …) are read as
// locked sets (src/adapters/dns-providers/cloudflare/card.ts).
import { paginate } from '../paging.ts'
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { absoluteName, RecordBasedProvider, type NewRecord, type ProviderRecord } from '../record-based.ts'
import { canonicalName, canonicalValue, ProviderError, readTxt, unquoteTxt, writeTxt, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import { onceMoreIfZoneChanged } from '../zone-changed.ts'
import type { HostedProvider } from '../hosted.ts'

export const CLOUDFLARE_API = 'https://api.cloudflare.com/client/v4'

const codesOf = (r: HttpResult) => ((r.body?.errors as { code: number }[] | undefined) ?? []).map((e) => e.code)

function failure(r: HttpResult) {
  if (r.status < 300 && r.body?.success !== false) return null
  const errors = (r.body?.errors as { code: number; message: string }[] | undefined) ?? []
  const msg = errors.map((e) => `${e.code}: ${e.message}`).join('; ') || `HTTP ${r.status}`
  const has = (...codes: number[]) => errors.some((e) => codes.includes(e.code))
  // 7003/7000 "Could not route to /zones/{id}…": the zone id is not (any longer) one this token reaches
  // (cloudflare/cloudflare-go#118); 1001 "Invalid zone identifier" likewise.
  const kind = has(9109, 10000) ? 'auth' : has(7003, 7000, 1001) ? 'zone_not_found' : has(81053, 81057, 81058) ? 'conflict' : undefined
  return failureOf('Cloudflare', r, msg, kind)
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "CNAME",
  names: "absolute (`name` is the FQDN)",
  hostnames: "absolute, no trailing dot; MX priority its own field",
  txt: "written as quoted character strings (255-byte pieces), read unquoted; Cloudflare also takes and answers a bare value",
  ttl: "TTL 1 is \"automatic\" and kept as 1; 60–86400 otherwise",
  temporary: "429 with Retry-After waited out; 403 10000 to a still-active token is a missing permission; 7003/7000 a zone not reached",
  sources: {
    apex: "CNAME flattening at the apex: developers.cloudflare.com/dns/cname-flattening (default for a CNAME at @)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/cloudflare/): POST name `docs.pacalis.net`",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/cloudflare/)",
    txt: "test/fixtures/provider-recordings/cloudflare.json (lexicon: a bare TXT taken and answered as written); developers.cloudflare.com/api dns records: TXT content in quotes",
    ttl: "developers.cloudflare.com/api dns records: ttl 1 = automatic",
    temporary: "cloudflare/terraform-provider-cloudflare#913, #1533 (10000 to a token lacking DNS:Edit); cloudflare/cloudflare-go#118 (7003/7000)",
  },
}

/** Cloudflare's 81044 "Record does not exist." on a batch deleting a record by id: it was removed meanwhile. */
const isStaleDelete = (e: unknown) => e instanceof ProviderError && e.status === 404 && /\b81044:/.test(e.message)

export class CloudflareProvider extends RecordBasedProvider {
  readonly id = 'cloudflare'
  readonly conventions = CONVENTIONS
  constructor(
    private readonly token: string,
    private readonly base = CLOUDFLARE_API,
  ) {
    super()
  }

  private async call(method: string, path: string, body?: unknown) {
    const r = await exchange(method, this.base + path, { authorization: `Bearer ${this.token}` }, body)
    const f = failure(r)
    if (f) throw f.kind === 'auth' && codesOf(r).includes(10000) ? await this.authOrPermission(f, r) : f
    return r.body as { result: any; result_info?: { page: number; total_pages: number } }
  }

  /**
   * Cloudflare answers 403 {10000 "Authentication error"} both to a token it refuses and to a valid
   * token that lacks the permission the request needs (DNS:Edit for a write: cloudflare/terraform-provider-cloudflare
   * #913, #1533). The token's own verify endpoint tells them apart: an active token is a missing
   * permission, never a credential to reconnect.
   */
  private async authOrPermission(f: ProviderError, r: HttpResult): Promise<ProviderError> {
    const v = await exchange('GET', `${this.base}/user/tokens/verify`, { authorization: `Bearer ${this.token}` }, undefined, { once: true }).catch(() => null)
    if (v && v.status < 300 && v.body?.success !== false && v.body?.result?.status === 'active') {
      return new ProviderError('permission', `Cloudflare: the token is valid but lacks a permission this request needs (DNS:Edit on the zone; Cloudflare answered HTTP ${r.status} 10000)`, f.status)
    }
    return f
  }

  /** `perPage`: zones allow at most 50 a page, DNS records more. */
  private async paged(path: string, perPage: number): Promise<any[]> {
    return paginate<any>({ provider: 'Cloudflare', what: path, pageSize: perPage }, async ({ index }) => {
      const r = await this.call('GET', `${path}${path.includes('?') ? '&' : '?'}page=${index}&per_page=${perPage}`)
      return { items: r.result ?? [], more: !!r.result_info && index < r.result_info.total_pages }
    })
  }

  async listZones(): Promise<Zone[]> {
    // Its status and assigned name servers tell copies of one name apart (another account's, a `moved`
    // or `pending` one): src/adapters/dns-providers/types.ts `chooseZone`.
    return (await this.paged('/zones', 50)).map((z) => ({
      id: z.id,
      name: canonicalName(z.name),
      ...(typeof z.status === 'string' ? { status: z.status } : {}),
      ...(Array.isArray(z.name_servers) ? { nameServers: [...z.name_servers, ...(Array.isArray(z.vanity_name_servers) ? z.vanity_name_servers : [])].map(String) } : {}),
    }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const rows = await this.paged(`/zones/${encodeURIComponent(zone.id)}/dns_records`, 500)
    return rows.map((r) => {
      const type = r.type as string
      let value: string
      if (type === 'MX') value = canonicalValue('MX', `${r.priority ?? 0} ${r.content}`)
      else if (type === 'TXT') value = unquoteTxt(r.content)
      else if (type === 'CAA' && r.data) value = `${r.data.flags} ${r.data.tag} "${r.data.value}"`
      else value = canonicalValue(type, r.content)
      const native: Record<string, unknown> = {}
      // A TXT held as several strings keeps them (readTxt): restored byte-identical.
      if (type === 'TXT' && typeof r.content === 'string') Object.assign(native, readTxt(r.content).native)
      if (r.proxied) native.proxied = true
      if (r.comment) native.comment = r.comment
      if (Array.isArray(r.tags) && r.tags.length) native.tags = r.tags
      if (r.settings && Object.keys(r.settings).length) native.settings = r.settings
      const structured = r.data && type !== 'CAA'
      return {
        id: r.id,
        name: absoluteName(r.name, zone.name),
        type,
        ttl: r.ttl,
        value,
        ...(Object.keys(native).length ? { native } : {}),
        ...(structured ? { locked: `a Cloudflare ${type} record with structured data` } : {}),
      }
    })
  }

  private body(r: NewRecord): Record<string, unknown> {
    const { name, type, ttl, value } = r
    const native = (r.native ?? {}) as { proxied?: boolean; comment?: string; tags?: string[]; settings?: object }
    const body: Record<string, unknown> = { type, name, ttl }
    if (type === 'MX') {
      const [prio, host] = value.split(' ')
      Object.assign(body, { content: host, priority: Number(prio) })
    } else if (type === 'CAA') {
      const m = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
      Object.assign(body, { data: { flags: Number(m?.[1] ?? 0), tag: m?.[2] ?? 'issue', value: m?.[3] ?? '' } })
    } else body.content = type === 'TXT' ? writeTxt(value, r.native) : value
    if (type === 'A' || type === 'AAAA' || type === 'CNAME') body.proxied = native.proxied ?? false
    if (native.comment) body.comment = native.comment
    if (native.tags) body.tags = native.tags
    if (native.settings) body.settings = native.settings
    return body
  }

  override async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    // A record the batch deletes by id was removed between this read and the batch (issue 46): the
    // batch is all or nothing, so nothing was written. Read the zone again and send it once more;
    // changed again, the zone is busy: 409 conflict (zone_changed), retry later.
    await onceMoreIfZoneChanged('Cloudflare', 404, isStaleDelete, () => super.writeChanges(zone, changes))
  }

  protected override async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    if (deletes.length === 0 && creates.length === 0) return
    await this.call('POST', `/zones/${encodeURIComponent(zone.id)}/dns_records/batch`, { deletes: deletes.map((d) => ({ id: d.id })), posts: creates.map((c) => this.body(c)) })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    await this.call('POST', `/zones/${encodeURIComponent(zone.id)}/dns_records`, this.body({ name, type, ttl, value, native }))
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/zones/${encodeURIComponent(zone.id)}/dns_records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'cloudflare',
  defaultBase: CLOUDFLARE_API,
  make: (s, o) => new CloudflareProvider(s, o.base),
  token_url: 'https://dash.cloudflare.com/profile/api-tokens',
  token_scopes: ['Zone:Read', 'DNS:Edit'],
  credential: 'API token',
}
