// bunny.net DNS API (https://docs.bunny.net/reference/dnszonepublic_index): header `AccessKey: <account
// API key>`. Zones: GET /dnszone (paged: `page`, `perPage`, `HasMoreItems`), each with its `Records`;
// one zone: GET /dnszone/{id}; a record is added with PUT /dnszone/{id}/records `{Type, Name, Value,
// Ttl, Priority?, Flags?, Tag?}` (201) and removed with DELETE /dnszone/{id}/records/{recordId} (204).
// `Type` is a number (0 A, 1 AAAA, 2 CNAME, 3 TXT, 4 MX, 9 CAA, 12 NS; others are bunny's own kinds).
// Names are relative (`` the apex); MX priority and CAA flags/tag are their own fields. Errors are
// `{ErrorKey, Field, Message}`: 401, 404 `dnszone.not_found`, 400 `validation_error`, 429. Do no harm
// (card: src/adapters/dns-providers/bunny/card.ts): bunny.net's own kinds (Redirect, Flatten, Pull Zone,
// Script) and the records with fields apart (SRV, SVCB, HTTPS, TLSA, PTR) are read as locked sets, as
// is a set holding a switched-off record; an A, AAAA or CNAME beside a Redirect, Flatten, Pull Zone
// or Script record is refused before anything is written; a record's own settings (weight,
// acceleration, monitoring, geolocation, comment…) go back with it when it is restored.
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import { refuseBesideFlattened } from '../flattened.ts'
import type { HostedProvider } from '../hosted.ts'

export const BUNNY_API = 'https://api.bunny.net'
const TYPES: Record<number, string> = { 0: 'A', 1: 'AAAA', 2: 'CNAME', 3: 'TXT', 4: 'MX', 9: 'CAA', 12: 'NS' }
/** bunny.net's numbers for the kinds Portico reads but never writes. */
const OTHER: Record<number, string> = { 5: 'REDIRECT', 6: 'FLATTEN', 7: 'PULLZONE', 8: 'SRV', 10: 'PTR', 11: 'SCRIPT', 13: 'SVCB', 14: 'HTTPS', 15: 'TLSA' }
const CODES = Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [v, Number(k)]))
/** Kinds that answer for the whole name (an address, a redirect, a CDN pull zone, a script). */
const FLATTENED = ['REDIRECT', 'FLATTEN', 'PULLZONE', 'SCRIPT']
/** Fields of a record that are its value or its identity; the rest are its own settings, kept. */
const CORE = new Set(['Id', 'Type', 'Name', 'Value', 'Ttl', 'Priority', 'Flags', 'Tag'])
/** A setting at its default is not worth carrying. */
const isDefault = (v: unknown) => v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0)

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "CNAME",
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "dnscontrol providers/bunnydns/records.go (StackExchange/dnscontrol@7a079bc): ALIAS sent as CNAME (\"Bunny flattens CNAME records into A/AAAA records dynamically\")",
    names: "the reference card (src/adapters/dns-providers/bunny/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/bunny/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/bunny/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/bunny/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/bunny/card.ts)",
  },
}

export class BunnyProvider extends RecordBasedProvider {
  readonly id = 'bunny'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(key: string, base = BUNNY_API) {
    super()
    this.api = new RestClient({ name: 'bunny.net', base, headers: { accesskey: key }, message: (b) => (b?.Message ? `${b.ErrorKey ?? ''} ${b.Message}`.trim() : undefined) })
  }

  async listZones(): Promise<Zone[]> {
    const rows = await paginate<{ Id: number; Domain: string }>({ provider: 'bunny.net', what: 'DNS zones', pageSize: 1000 }, async ({ index }) => {
      const r = await this.api.call('GET', `/dnszone?page=${index}&perPage=1000`)
      return { items: r.Items ?? [], more: !!r.HasMoreItems }
    })
    return rows.map((z) => ({ id: String(z.Id), name: canonicalName(z.Domain) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const z = await this.api.call('GET', `/dnszone/${encodeURIComponent(zone.id)}`)
    return (z.Records as any[]).map((r) => {
      const type = TYPES[r.Type] ?? OTHER[r.Type] ?? `TYPE${r.Type}`
      const known = TYPES[r.Type] !== undefined
      const value = !known ? `${r.Value}${r.LinkName ? ` ${r.LinkName}` : ''}` : type === 'CAA' ? `${r.Flags ?? 0} ${r.Tag} "${r.Value}"` : fromFields(type, r.Value, r.Priority, zone.name, unquoteTxt, true)
      const settings = Object.fromEntries(Object.entries(r).filter(([k, v]) => !CORE.has(k) && !isDefault(v)))
      const locked = !known ? `a bunny.net ${type} record` : r.Disabled === true ? 'a bunny.net record that is switched off' : undefined
      return { id: String(r.Id), name: absoluteName(r.Name ?? '', zone.name), type, ttl: r.Ttl, value, ...(Object.keys(settings).length ? { native: settings } : {}), ...(locked ? { locked } : {}) }
    })
  }

  protected override diff(items: ProviderRecord[], changes: RRsetChange[]) {
    refuseBesideFlattened('bunny.net', items.map((i) => ({ name: i.name, type: i.type, values: [i.value] })), changes, FLATTENED)
    return super.diff(items, changes)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const body: Record<string, unknown> = { ...(native && typeof native === 'object' ? (native as Record<string, unknown>) : {}), Type: CODES[type], Name: name === zone.name ? '' : relativeName(name, zone.name), Ttl: ttl }
    const caa = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
    if (type === 'CAA' && caa) Object.assign(body, { Flags: Number(caa[1]), Tag: caa[2], Value: caa[3] })
    else {
      const f = toFields(type, value)
      Object.assign(body, { Value: f.data, ...(f.priority !== undefined ? { Priority: f.priority } : {}) })
    }
    await this.api.call('PUT', `/dnszone/${encodeURIComponent(zone.id)}/records`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.api.call('DELETE', `/dnszone/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'bunny',
  defaultBase: BUNNY_API,
  make: (s, o) => new BunnyProvider(s, o.base),
  token_url: 'https://dash.bunny.net/account/api-key',
  token_scopes: ['Account API key'],
  credential: 'API key',
}
