// Cloudflare API v4 (https://developers.cloudflare.com/api/): `Authorization: Bearer <API token>`.
// Zones: GET /zones (paged: `result_info.total_pages`); records: GET /zones/{zone_id}/dns_records
// (paged), POST …/dns_records, DELETE …/dns_records/{id}. Bodies are `{success, errors: [{code,
// message}], result}`. A bad token is 401/403 (code 10000 "Authentication error"), a rate limit 429
// (code 971), an unknown zone 404 (code 7003 / 1001). MX priority is its own field; CAA is written
// through `data: {flags, tag, value}`; TXT content may come back quoted. TTL 1 means "automatic".
import { exchange, type HttpResult } from './http.ts'
import { absoluteName, RecordBasedProvider, type ProviderRecord } from './record-based.ts'
import { canonicalName, canonicalValue, ProviderError, unquoteTxt, type Zone } from './types.ts'

export const CLOUDFLARE_API = 'https://api.cloudflare.com/client/v4'

function failure(r: HttpResult): ProviderError | null {
  if (r.status < 300 && r.body?.success !== false) return null
  const msg = (r.body?.errors as { code: number; message: string }[] | undefined)?.map((e) => `${e.code}: ${e.message}`).join('; ') || `HTTP ${r.status}`
  if (r.status === 401 || r.status === 403) return new ProviderError('auth', `Cloudflare refused the token (${msg})`, r.status)
  if (r.status === 429) return new ProviderError('rate_limited', `Cloudflare rate limit (${msg})`, r.status)
  if (r.status === 404) return new ProviderError('zone_not_found', `Cloudflare: ${msg}`, r.status)
  return new ProviderError(r.status >= 500 ? 'unreachable' : 'write_failed', `Cloudflare: ${msg}`, r.status)
}

export class CloudflareProvider extends RecordBasedProvider {
  readonly id = 'cloudflare'
  constructor(
    private readonly token: string,
    private readonly base = CLOUDFLARE_API,
  ) {
    super()
  }

  private async call(method: string, path: string, body?: unknown) {
    const r = await exchange(method, this.base + path, { authorization: `Bearer ${this.token}` }, body)
    const f = failure(r)
    if (f) throw f
    return r.body as { result: any; result_info?: { page: number; total_pages: number } }
  }

  /** `perPage`: zones allow at most 50 a page, DNS records more. */
  private async paged(path: string, perPage: number): Promise<any[]> {
    const out: any[] = []
    for (let page = 1; ; page++) {
      const r = await this.call('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}&per_page=${perPage}`)
      out.push(...r.result)
      if (!r.result_info || page >= r.result_info.total_pages) return out
    }
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/zones', 50)).map((z) => ({ id: z.id, name: canonicalName(z.name) }))
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
      return { id: r.id, name: absoluteName(r.name, zone.name), type, ttl: r.ttl, value }
    })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const body: Record<string, unknown> = { type, name, ttl, proxied: false }
    if (type === 'MX') {
      const [prio, host] = value.split(' ')
      Object.assign(body, { content: host, priority: Number(prio) })
    } else if (type === 'CAA') {
      const m = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
      Object.assign(body, { data: { flags: Number(m?.[1] ?? 0), tag: m?.[2] ?? 'issue', value: m?.[3] ?? '' } })
    } else {
      body.content = value
    }
    if (type !== 'A' && type !== 'AAAA' && type !== 'CNAME') delete body.proxied
    await this.call('POST', `/zones/${encodeURIComponent(zone.id)}/dns_records`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/zones/${encodeURIComponent(zone.id)}/dns_records/${encodeURIComponent(item.id)}`)
  }
}
