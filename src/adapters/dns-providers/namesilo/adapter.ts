// NameSilo API (https://www.namesilo.com/api-reference): GET /api/{operation}?version=1&type=json&key=…
// (the key travels in the query string, so no URL is ever put in an error or a log line). Zones:
// listDomains, paged by `page` and `pageSize` (`reply.pager.total`); records: dnsListRecords (the whole
// zone: `reply.resource_record`, fully qualified `host`, MX priority in `distance`); dnsAddRecord
// `rrtype, rrhost (relative, empty for the apex), rrvalue, rrttl, rrdistance`; dnsDeleteRecord `rrid`.
// The answers are converted from XML: a list of one comes as the item itself. The lowest TTL is 3600.
// Every answer is HTTP 200 with `reply.code`: 300 success; 110 an invalid key; 111/112/113 a key that
// may not do this (a sub-account, an address not allowed); 200 a domain not in the account; 280 a
// refused record; 115/201 NameSilo's own trouble (unreachable); HTTP 429 when rate limited. Do no
// harm (card: src/adapters/dns-providers/namesilo/card.ts): SRV (its priority in `distance`) and the types
// Portico does not write are read as locked sets instead of being hidden from the planner.
import { paginate } from '../paging.ts'
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, ProviderError, type ProviderErrorKind, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const NAMESILO_API = 'https://www.namesilo.com/api'

const TYPES = new Set(['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA'])
const KINDS: Record<number, ProviderErrorKind> = { 109: 'auth', 110: 'auth', 111: 'permission', 112: 'permission', 113: 'permission', 115: 'temporary', 200: 'zone_not_found', 201: 'temporary', 280: 'write_failed' }

/** A list from XML-shaped JSON: absent, one item, or many. */
const many = <T>(v: T | T[] | undefined | null): T[] => (v == null ? [] : Array.isArray(v) ? v : [v])

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "absolute when read; relative (empty the apex) when written",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "at least 3600",
  temporary: "115/201 (NameSilo's own trouble) reported unreachable; 429 waited out when signalled",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namesilo/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namesilo/)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namesilo/)",
    ttl: "the reference card (src/adapters/dns-providers/namesilo/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/namesilo/card.ts)",
  },
}

export class NamesiloProvider extends RecordBasedProvider {
  readonly id = 'namesilo'
  readonly conventions = CONVENTIONS
  readonly minTtl = 3600
  constructor(
    private readonly key: string,
    private readonly base = NAMESILO_API,
  ) {
    super()
  }

  private async call(operation: string, params: Record<string, string>): Promise<any> {
    const q = new URLSearchParams({ version: '1', type: 'json', key: this.key, ...params })
    let r: HttpResult
    try {
      r = await exchange('GET', `${this.base}/${operation}?${q}`, {}, undefined)
    } catch (e) {
      // The message of a failed exchange never carries the URL, so the key stays out of it.
      throw e instanceof ProviderError ? e : new ProviderError('unreachable', 'NameSilo could not be reached')
    }
    const reply = r.body?.reply
    const code = Number(reply?.code)
    if (r.status >= 300 || code !== 300) {
      const detail = typeof reply?.detail === 'string' ? `${code}: ${reply.detail}` : `HTTP ${r.status}`
      throw failureOf('NameSilo', r, detail.split(this.key).join('…'), r.status >= 300 ? undefined : (KINDS[code] ?? 'write_failed'))
    }
    return reply
  }

  async listZones(): Promise<Zone[]> {
    const names = await paginate<string>({ provider: 'NameSilo', what: 'domains', pageSize: 100 }, async ({ index, offset }) => {
      const reply = await this.call('listDomains', { page: String(index), pageSize: '100' })
      const items = many<string | { domain?: string }>(reply.domains?.domain ?? reply.domains).map((d) => (typeof d === 'string' ? d : (d.domain ?? ''))).filter(Boolean)
      const total = reply.pager?.total === undefined ? undefined : Number(reply.pager.total)
      return { items, more: total === undefined ? undefined : offset + items.length < total }
    })
    return names.map((n) => ({ id: canonicalName(n), name: canonicalName(n) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const reply = await this.call('dnsListRecords', { domain: zone.id })
    return many<any>(reply.resource_record).map((r) => {
      const known = TYPES.has(r.type)
      return {
        id: String(r.record_id),
        name: absoluteName(r.host, zone.name),
        type: r.type,
        ttl: Number(r.ttl),
        value: known ? fromFields(r.type, String(r.value), Number(r.distance ?? 0), zone.name, (t) => t, true) : `${Number(r.distance ?? 0)} ${r.value}`,
        ...(known ? {} : { locked: `a NameSilo ${r.type} record (its fields apart)` }),
      }
    })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    const f = toFields(type, value)
    await this.call('dnsAddRecord', { domain: zone.id, rrtype: type, rrhost: name === zone.name ? '' : relativeName(name, zone.name), rrvalue: f.data, rrttl: String(ttl), ...(f.priority !== undefined ? { rrdistance: String(f.priority) } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('dnsDeleteRecord', { domain: zone.id, rrid: item.id })
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'namesilo',
  defaultBase: NAMESILO_API,
  make: (s, o) => new NamesiloProvider(s, o.base),
  token_url: 'https://www.namesilo.com/account/api-manager',
  token_scopes: ['API key'],
  credential: 'API key',
}
