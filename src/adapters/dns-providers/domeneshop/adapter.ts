// Domeneshop API v0 (https://api.domeneshop.no/docs/): HTTP Basic with `token:secret` (the credential
// as given). Zones: GET /v0/domains (one list; only domains with `services.dns`); records: GET
// /v0/domains/{id}/dns (one list), POST /v0/domains/{id}/dns `{host, ttl, type, data, priority?,
// flags?, tag?}` (201), DELETE /v0/domains/{id}/dns/{recordId} (204). `host` is relative (`@` the
// apex); hostnames in `data` are absolute without the trailing dot; MX priority and CAA flags/tag are
// their own fields. Errors are `{help, code, message}`: 401, 403, 404 `domain:notFound`, 400
// `record:collision` (a clashing record), 429.
// Do no harm (src/adapters/dns-providers/domeneshop/card.ts): the fields SRV (weight, port), TLSA (usage,
// selector, dtype) and DS (tag, alg, digest) keep beside `data` go back with a restored record; ANAME
// is written back as it is. HTTP forwards (GET /v0/domains/{id}/forwards) are read as locked sets of
// type FORWARD at their host, so a plan that would put a record where a forward answers is refused
// before anything is written.
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, ProviderError, unquoteTxt, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

/** The fields of a record besides host, ttl, type and data (and MX's priority, CAA's flags and tag, which the value carries). */
function extraFields(r: Record<string, unknown>): Record<string, unknown> | undefined {
  const skip = new Set(['id', 'host', 'ttl', 'type', 'data', ...(r.type === 'MX' ? ['priority'] : []), ...(r.type === 'CAA' ? ['flags', 'tag'] : [])])
  const extra = Object.fromEntries(Object.entries(r).filter(([k, v]) => !skip.has(k) && v !== undefined && v !== null))
  return Object.keys(extra).length ? extra : undefined
}

export const DOMENESHOP_API = 'https://api.domeneshop.no'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "catalogue: no apex record offered (ANAME read and written back as it is)",
    names: "the reference card (src/adapters/dns-providers/domeneshop/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/domeneshop/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/domeneshop/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/domeneshop/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/domeneshop/card.ts)",
  },
}

export class DomeneshopProvider extends RecordBasedProvider {
  readonly id = 'domeneshop'
  readonly conventions = CONVENTIONS
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
    return ((await this.api.call('GET', `/v0/domains/${encodeURIComponent(zone.id)}/dns`)) as any[]).map((r) => {
      const native = extraFields(r)
      return {
        id: String(r.id),
        name: absoluteName(r.host, zone.name),
        type: r.type,
        ttl: r.ttl,
        value: r.type === 'CAA' ? `${r.flags ?? 0} ${r.tag} "${r.data}"` : r.type === 'ANAME' ? String(r.data) : fromFields(r.type, r.data, r.priority, zone.name, unquoteTxt, true),
        ...(native ? { native } : {}),
      }
    })
  }

  /** HTTP forwards, as locked sets at their hosts (Portico never writes where one answers). */
  private async forwards(zone: Zone): Promise<RRset[]> {
    const rows = (await this.api.call('GET', `/v0/domains/${encodeURIComponent(zone.id)}/forwards`)) as { host: string; frame?: boolean; url: string }[]
    return (Array.isArray(rows) ? rows : []).map((f) => ({ name: absoluteName(f.host, zone.name), type: 'FORWARD', ttl: 0, values: [f.url], locked: `a Domeneshop HTTP forward to ${f.url}${f.frame ? ' (framed)' : ''}` }))
  }

  override async readRecords(zone: Zone): Promise<RRset[]> {
    return [...(await super.readRecords(zone)), ...(await this.forwards(zone))]
  }

  override async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    const f = changes.find((c) => c.type === 'FORWARD')
    if (f) throw new ProviderError('unrepresentable', `${f.name} FORWARD is a Domeneshop HTTP forward, which Portico does not change; nothing was written`)
    await super.writeChanges(zone, changes)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const body: Record<string, unknown> = { host: relativeName(name, zone.name), ttl, type, ...(native as object | undefined) }
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

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'domeneshop',
  defaultBase: DOMENESHOP_API,
  make: (s, o) => new DomeneshopProvider(s, o.base),
  token_url: 'https://domene.shop/admin?view=api',
  token_scopes: ['API token and secret'],
  credential: 'API token and secret (token:secret)',
}
