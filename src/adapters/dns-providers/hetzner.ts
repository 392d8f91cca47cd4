// Hetzner DNS API (https://dns.hetzner.com/api-docs): header `Auth-API-Token`. Zones: GET /zones
// (paged: `meta.pagination.last_page`); records: GET /records?zone_id= , POST /records
// `{zone_id, type, name, value, ttl}`, DELETE /records/{id}. Names are relative (`@` for the apex);
// values as in a zone file (MX `10 mx.example.com.`, CNAME with the trailing dot, CAA
// `0 issue "ca"`, TXT possibly quoted). A bad token is 401 `{"message": …}`; other errors are
// `{"error": {"message", "code"}}`: 404 zone not found, 429 rate limited, 422 invalid.
import { exchange, type HttpResult } from './http.ts'
import { absoluteName, hostValue, RecordBasedProvider, relativeName, type ProviderRecord } from './record-based.ts'
import { canonicalName, canonicalValue, ProviderError, quoteTxt, unquoteTxt, type Zone } from './types.ts'

export const HETZNER_API = 'https://dns.hetzner.com/api/v1'

function failure(r: HttpResult): ProviderError | null {
  if (r.status < 300) return null
  const msg = r.body?.error?.message ?? r.body?.message ?? `HTTP ${r.status}`
  if (r.status === 401 || r.status === 403) return new ProviderError('auth', `Hetzner refused the token (${msg})`, r.status)
  if (r.status === 429) return new ProviderError('rate_limited', `Hetzner rate limit (${msg})`, r.status)
  if (r.status === 404) return new ProviderError('zone_not_found', `Hetzner: ${msg}`, r.status)
  return new ProviderError(r.status >= 500 ? 'unreachable' : 'write_failed', `Hetzner: ${msg}`, r.status)
}

export class HetznerProvider extends RecordBasedProvider {
  readonly id = 'hetzner'
  constructor(
    private readonly token: string,
    private readonly base = HETZNER_API,
  ) {
    super()
  }

  private async call(method: string, path: string, body?: unknown) {
    const r = await exchange(method, this.base + path, { 'Auth-API-Token': this.token }, body)
    const f = failure(r)
    if (f) throw f
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    const out: Zone[] = []
    for (let page = 1; ; page++) {
      const r = await this.call('GET', `/zones?page=${page}&per_page=100`)
      out.push(...(r.zones as { id: string; name: string }[]).map((z) => ({ id: z.id, name: canonicalName(z.name) })))
      if (page >= (r.meta?.pagination?.last_page ?? 1)) return out
    }
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    // The zone is read first so an unknown zone id is a 404 rather than an empty list.
    const z = await this.call('GET', `/zones/${encodeURIComponent(zone.id)}`)
    const zoneTtl = z.zone?.ttl ?? 86400
    const r = await this.call('GET', `/records?zone_id=${encodeURIComponent(zone.id)}`)
    return (r.records as any[])
      .filter((x) => x.type !== 'SOA')
      .map((x) => {
        const type = x.type as string
        const host = (v: string) => hostValue(v, zone.name)
        let value: string
        if (type === 'MX') {
          const [p, h] = String(x.value).split(/\s+/)
          value = `${Number(p)} ${host(h ?? '')}`
        } else if (type === 'CNAME' || type === 'NS') value = host(x.value)
        else if (type === 'TXT') value = unquoteTxt(x.value)
        else value = canonicalValue(type, x.value)
        return { id: x.id, name: absoluteName(x.name, zone.name), type, ttl: x.ttl ?? zoneTtl, value }
      })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    let v = value
    if (type === 'CNAME' || type === 'NS') v = `${value}.`
    else if (type === 'MX') {
      const [p, h] = value.split(' ')
      v = `${p} ${h}.`
    } else if (type === 'TXT') v = quoteTxt(value)
    await this.call('POST', '/records', { zone_id: zone.id, type, name: relativeName(name, zone.name), value: v, ttl })
  }

  protected async deleteItem(_zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/records/${encodeURIComponent(item.id)}`)
  }
}
