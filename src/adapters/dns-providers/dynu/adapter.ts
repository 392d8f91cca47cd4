// Dynu API v2 (https://www.dynu.com/Support/API): header `API-Key`. Zones: GET /v2/dns (`{domains:
// [{id, name}]}`, one list); records: GET /v2/dns/{id}/record (`{dnsRecords}`, one list), POST
// /v2/dns/{id}/record, DELETE /v2/dns/{id}/record/{recordId}. A record is `{nodeName, recordType,
// ttl, state}` plus its type's own fields: A `ipv4Address`, AAAA `ipv6Address`, CNAME/NS `host`, MX
// `host` and `priority`, TXT `textData`, CAA `flags`, `tag`, `value`. `nodeName` is relative (`` the
// apex). Errors are `{statusCode, type, message}`: 401 "Authentication Exception", 404, 400, 429; the
// body's statusCode is the outcome (lego reads it, not the HTTP status), so a 200 carrying an error
// statusCode is a failure too.
// Do no harm (src/adapters/dns-providers/dynu/card.ts): records of a type this adapter does not write (SRV,
// SPF, LOC, …) are read as locked sets instead of being left out, so the planner sees them and never
// writes over them; a switched-off record (state false) is restored switched off. Web redirects (GET
// /v2/dns/{id}/webredirect) are read as locked sets of type WEBREDIRECT at their node, so a plan that
// would write where one answers is refused before anything is written.
import { RestClient } from '../rest.ts'
import { absoluteName, RecordBasedProvider, relativeName, type ProviderRecord } from '../record-based.ts'
import { canonicalName, canonicalValue, ProviderError, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

const WRITTEN = new Set(['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA'])

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

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative (`nodeName`, empty the apex)",
  hostnames: "absolute without the trailing dot",
  txt: "bare text (`textData`); the zone-file `content` Dynu adds is not read",
  ttl: "any",
  temporary: "the body's statusCode decides; 429 waited out when signalled",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/dynu/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/dynu/) (host `test.example.com`)",
    txt: "test/fixtures/provider-recordings/dynu.json (lexicon: textData `challengetoken`, content `… IN TXT \"challengetoken\"`)",
    ttl: "the reference card (src/adapters/dns-providers/dynu/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/dynu/card.ts)",
  },
}

export class DynuProvider extends RecordBasedProvider {
  readonly id = 'dynu'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(key: string, base = DYNU_API) {
    super()
    this.api = new RestClient({
      name: 'Dynu',
      base,
      headers: { 'api-key': key },
      message: (b) => (b?.message ? `${b.type ?? ''}: ${b.message}` : undefined),
      failed: (r) => typeof r.body?.statusCode === 'number' && r.body.statusCode >= 300,
      kind: (r) => {
        const code = Number(r.body?.statusCode ?? r.status)
        return code === 401 || /Authentication/i.test(r.body?.type ?? '') ? 'auth' : code === 404 ? 'zone_not_found' : code === 429 ? 'rate_limited' : code >= 500 && r.status < 300 ? 'write_failed' : undefined
      },
    })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/v2/dns')).domains as { id: number; name: string }[]).map((d) => ({ id: String(d.id), name: canonicalName(d.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (((await this.api.call('GET', `/v2/dns/${encodeURIComponent(zone.id)}/record`)).dnsRecords ?? []) as any[])
      .filter((r) => r.recordType !== 'SOA')
      .map((r) => ({
        id: String(r.id),
        name: absoluteName(r.nodeName ?? '', zone.name),
        type: r.recordType,
        ttl: r.ttl,
        value: WRITTEN.has(r.recordType) ? valueOf(r) : String(r.content ?? ''),
        ...(r.state === false ? { native: { state: false } } : {}),
        ...(WRITTEN.has(r.recordType) ? {} : { locked: `a Dynu ${r.recordType} record, which Portico does not write` }),
      }))
  }

  /** Web redirects, as locked sets at their nodes (Portico never writes where one answers). */
  private async redirects(zone: Zone): Promise<RRset[]> {
    let rows: any[]
    try {
      rows = (await this.api.call('GET', `/v2/dns/${encodeURIComponent(zone.id)}/webredirect`)).webRedirects ?? []
    } catch (e) {
      // The domain answered its records: a 404 here is no redirect resource, not an unknown domain.
      if (e instanceof ProviderError && e.kind === 'zone_not_found') return []
      throw e
    }
    return rows.map((w) => ({ name: absoluteName(w.nodeName ?? '', zone.name), type: 'WEBREDIRECT', ttl: 0, values: [String(w.url ?? '')], locked: `a Dynu web redirect to ${w.url}` }))
  }

  override async readRecords(zone: Zone): Promise<RRset[]> {
    return [...(await super.readRecords(zone)), ...(await this.redirects(zone))]
  }

  override async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    const w = changes.find((c) => c.type === 'WEBREDIRECT')
    if (w) throw new ProviderError('unrepresentable', `${w.name} WEBREDIRECT is a Dynu web redirect, which Portico does not change; nothing was written`)
    await super.writeChanges(zone, changes)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const state = (native as { state?: boolean } | undefined)?.state ?? true
    await this.api.call('POST', `/v2/dns/${encodeURIComponent(zone.id)}/record`, { nodeName: name === zone.name ? '' : relativeName(name, zone.name), recordType: type, ttl, state, ...fields(type, value) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/v2/dns/${encodeURIComponent(zone.id)}/record/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'dynu',
  defaultBase: DYNU_API,
  make: (s, o) => new DynuProvider(s, o.base),
  token_url: 'https://www.dynu.com/ControlPanel/APICredentials',
  token_scopes: ['API key'],
  credential: 'API key',
}
