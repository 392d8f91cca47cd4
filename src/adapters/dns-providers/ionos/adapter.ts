// IONOS DNS API v1 (https://developer.hosting.ionos.com/docs/dns): header `X-API-Key: <prefix>.<secret>`.
// Zones: GET /dns/v1/zones (one list); a zone with its records: GET /dns/v1/zones/{id} (one list);
// records are added with POST /dns/v1/zones/{id}/records `[{name, type, content, ttl, prio?}]` and
// removed with DELETE /dns/v1/zones/{id}/records/{recordId}. Names are absolute; MX priority is its
// own field (`prio`); TXT content is the text itself. Errors are a list `[{code, message}]`: 401
// UNAUTHORIZED, 403, 404 ZONE_NOT_FOUND / RECORD_NOT_FOUND, 400 INVALID_RECORD, 429. Do no harm (card:
// src/adapters/dns-providers/ionos/card.ts): a record switched off (`disabled`) is not served, so the
// planner never sees it and no write touches it (a CNAME beside one is refused before writing); SRV (priority apart) and the other types with
// fields apart are read as locked sets.
import { RestClient } from '../rest.ts'
import { fromFields, RecordBasedProvider, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, ProviderError, unquoteTxt, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const IONOS_API = 'https://api.hosting.ionos.com'

/** Types whose whole value is `content` (MX with `prio`): written back as they are. */
const KNOWN = new Set(['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'CAA'])

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "absolute",
  hostnames: "absolute without the trailing dot",
  txt: "written bare; IONOS answers it quoted, read unquoted",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/ionos/) (POST name `docs.example.com`)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/ionos/) (content `docs.example.com`)",
    txt: "test/fixtures/provider-recordings/ionos.json (lexicon: TXT `challengetoken` written, `\"challengetoken\"` answered)",
    ttl: "the reference card (src/adapters/dns-providers/ionos/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/ionos/card.ts)",
  },
}

export class IonosProvider extends RecordBasedProvider {
  readonly id = 'ionos'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  /** The switched-off records of each zone as last read (names are absolute, so one lookup serves all). */
  private readonly disabled = new Map<string, { name: string; type: string }[]>()
  constructor(key: string, base = IONOS_API) {
    super()
    this.api = new RestClient({ name: 'IONOS', base, headers: { 'x-api-key': key }, message: (b) => (Array.isArray(b) ? b.map((e) => `${e.code}: ${e.message}`).join('; ') : undefined) })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/dns/v1/zones')) as { id: string; name: string; type: string }[]).filter((z) => z.type !== 'SLAVE').map((z) => ({ id: z.id, name: canonicalName(z.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const z = await this.api.call('GET', `/dns/v1/zones/${encodeURIComponent(zone.id)}`)
    this.disabled.set(zone.id, (z.records as any[]).filter((r) => r.disabled === true).map((r) => ({ name: canonicalName(r.name), type: r.type })))
    return (z.records as any[])
      .filter((r) => r.type !== 'SOA' && r.disabled !== true)
      .map((r) => ({
        id: r.id,
        name: canonicalName(r.name),
        type: r.type,
        ttl: r.ttl,
        value: KNOWN.has(r.type) ? fromFields(r.type, r.content, r.prio, zone.name, unquoteTxt, true) : `${Number(r.prio ?? 0)} ${r.content}`,
        ...(KNOWN.has(r.type) ? {} : { locked: `an IONOS ${r.type} record (its fields apart)` }),
      }))
  }

  /** A CNAME cannot stand beside any record of its name, switched off or not: refused before writing. */
  protected override diff(items: ProviderRecord[], changes: RRsetChange[]) {
    for (const c of changes) {
      const off = [...this.disabled.values()].flat().find((d) => d.name === c.name)
      if (c.type === 'CNAME' && c.values.length && off) throw new ProviderError('unrepresentable', `IONOS: ${c.name} holds a ${off.type} record that is switched off; a CNAME cannot stand beside it, so nothing was written. Delete the switched-off record at IONOS first.`)
    }
    return super.diff(items, changes)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.api.call('POST', `/dns/v1/zones/${encodeURIComponent(zone.id)}/records`, [{ name, type, content: f.data, ttl, ...(f.priority !== undefined ? { prio: f.priority } : {}), disabled: false }])
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/dns/v1/zones/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'ionos',
  defaultBase: IONOS_API,
  make: (s, o) => new IonosProvider(s, o.base),
  token_url: 'https://developer.hosting.ionos.com/keys',
  token_scopes: ['DNS API key (prefix.secret)'],
  credential: 'API key (prefix.secret)',
}
