// Dynu API v2 (https://www.dynu.com/Support/API): header `API-Key`. Zones: GET /v2/dns (`{domains:
// [{id, name}]}`, one list); records: GET /v2/dns/{id}/record (`{dnsRecords}`, one list), POST
// /v2/dns/{id}/record, DELETE /v2/dns/{id}/record/{recordId}. A record is `{nodeName, recordType,
// ttl, state}` plus its type's own fields: A `ipv4Address`, AAAA `ipv6Address`, CNAME/NS `host`, MX
// `host` and `priority`, TXT `textData`, CAA `flags`, `tag`, `value`. `nodeName` is relative (`` the
// apex). Errors are `{statusCode, type, message}`: 401 "Authentication Exception", 404, 400, 429.
import { RestClient } from './rest.ts'
import { absoluteName, RecordBasedProvider, relativeName, type ProviderRecord } from './record-based.ts'
import { canonicalName, canonicalValue, type Zone } from './types.ts'

export const DYNU_API = 'https://api.dynu.com'

function fields(type: string, v: string): Record<string, unknown> {
  switch (type) {
    case 'A':
      return { ipv4Address: v }
    case 'AAAA':
      return { ipv6Address: v }
    case 'MX': {
      const [p, h] = v.split(' ')
      return { host: h, priority: Number(p) }
    }
    case 'TXT':
      return { textData: v }
    case 'CAA': {
      const m = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(v)
      return { flags: Number(m?.[1] ?? 0), tag: m?.[2] ?? 'issue', value: m?.[3] ?? '' }
    }
    default:
      return { host: v }
  }
}

function valueOf(r: any): string {
  switch (r.recordType) {
    case 'A':
      return r.ipv4Address
    case 'AAAA':
      return canonicalValue('AAAA', r.ipv6Address)
    case 'MX':
      return `${r.priority} ${canonicalName(r.host)}`
    case 'TXT':
      return r.textData
    case 'CAA':
      return `${r.flags} ${r.tag} "${r.value}"`
    default:
      return canonicalName(r.host ?? r.content ?? '')
  }
}

export class DynuProvider extends RecordBasedProvider {
  readonly id = 'dynu'
  private readonly api: RestClient
  constructor(key: string, base = DYNU_API) {
    super()
    this.api = new RestClient({ name: 'Dynu', base, headers: { 'api-key': key }, message: (b) => (b?.message ? `${b.type ?? ''}: ${b.message}` : undefined) })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/v2/dns')).domains as { id: number; name: string }[]).map((d) => ({ id: String(d.id), name: canonicalName(d.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return ((await this.api.call('GET', `/v2/dns/${encodeURIComponent(zone.id)}/record`)).dnsRecords as any[])
      .filter((r) => ['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA'].includes(r.recordType))
      .map((r) => ({ id: String(r.id), name: absoluteName(r.nodeName ?? '', zone.name), type: r.recordType, ttl: r.ttl, value: valueOf(r) }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    await this.api.call('POST', `/v2/dns/${encodeURIComponent(zone.id)}/record`, { nodeName: name === zone.name ? '' : relativeName(name, zone.name), recordType: type, ttl, state: true, ...fields(type, value) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/v2/dns/${encodeURIComponent(zone.id)}/record/${encodeURIComponent(item.id)}`)
  }
}
