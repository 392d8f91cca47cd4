// Domeneshop API v0 (https://api.domeneshop.no/docs/): HTTP Basic with `token:secret` (the credential
// as given). Zones: GET /v0/domains (one list; only domains with `services.dns`); records: GET
// /v0/domains/{id}/dns (one list), POST /v0/domains/{id}/dns `{host, ttl, type, data, priority?,
// flags?, tag?}` (201), DELETE /v0/domains/{id}/dns/{recordId} (204). `host` is relative (`@` the
// apex); hostnames in `data` are absolute without the trailing dot; MX priority and CAA flags/tag are
// their own fields. Errors are `{help, code, message}`: 401, 403, 404 `domain:notFound`, 400
// `record:collision` (a clashing record), 429.
import { RestClient } from './rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from './record-based.ts'
import { canonicalName, unquoteTxt, type Zone } from './types.ts'

export const DOMENESHOP_API = 'https://api.domeneshop.no'

export class DomeneshopProvider extends RecordBasedProvider {
  readonly id = 'domeneshop'
  private readonly api: RestClient
  constructor(tokenSecret: string, base = DOMENESHOP_API) {
    super()
    this.api = new RestClient({
      name: 'Domeneshop',
      base,
      headers: { authorization: `Basic ${Buffer.from(tokenSecret).toString('base64')}` },
      message: (b) => (b?.code ? `${b.code}: ${b.message}` : undefined),
      kind: (r) => (r.body?.code === 'record:collision' ? 'conflict' : undefined),
    })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/v0/domains')) as { id: number; domain: string; services?: { dns?: boolean } }[])
      .filter((d) => d.services?.dns !== false)
      .map((d) => ({ id: String(d.id), name: canonicalName(d.domain) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return ((await this.api.call('GET', `/v0/domains/${encodeURIComponent(zone.id)}/dns`)) as any[]).map((r) => ({
      id: String(r.id),
      name: absoluteName(r.host, zone.name),
      type: r.type,
      ttl: r.ttl,
      value: r.type === 'CAA' ? `${r.flags ?? 0} ${r.tag} "${r.data}"` : fromFields(r.type, r.data, r.priority, zone.name, unquoteTxt, true),
    }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const body: Record<string, unknown> = { host: relativeName(name, zone.name), ttl, type }
    const caa = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
    if (type === 'CAA' && caa) Object.assign(body, { flags: Number(caa[1]), tag: caa[2], data: caa[3] })
    else {
      const f = toFields(type, value)
      Object.assign(body, { data: f.data, ...(f.priority !== undefined ? { priority: f.priority } : {}) })
    }
    await this.api.call('POST', `/v0/domains/${encodeURIComponent(zone.id)}/dns`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/v0/domains/${encodeURIComponent(zone.id)}/dns/${encodeURIComponent(item.id)}`)
  }
}
