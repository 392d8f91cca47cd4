// IBM NS1 Connect API v1 (https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/;
// src/adapters/dns-providers/ns1/card.ts is the card): header `X-NSONE-Key: <API key>`. Zones: GET
// /v1/zones; a zone's record sets: GET /v1/zones/{zone} → `records: [{domain, type, ttl,
// short_answers, link, tier}]`. Both lists follow a `Link: <…>; rel="next"` header when NS1 sends one
// (NS1's Go SDK follows it), through the bounded pager and only on NS1's own base. A set's full rdata
// comes from GET /v1/zones/{zone}/{domain}/{type}; a set is created with PUT on that path `{zone,
// domain, type, ttl, answers: [{answer: [rdata…]}]}`, replaced with POST and removed with DELETE.
// Names are absolute; each answer's rdata is a list of fields (MX `[10, "mx.example.com"]`, CAA `[0,
// "issue", "ca"]`, TXT `[text]`). What Portico cannot write back as it is, it reads as locked and
// never writes: a record with a filter chain (traffic steering), answers carrying metadata or
// regions, and a linked record (it takes its answers from another). Errors are `{message}`: 401
// "Unauthorized", 403 a key without the zone permissions, 404 "zone not found", 429 with NS1's token
// bucket in X-Ratelimit-Limit / -Remaining / -Period: a refill of one token takes Period / Limit
// seconds, which is waited out.
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { nextPageUrl, paginate } from '../paging.ts'
import { RRsetBasedProvider } from '../rrset-based.ts'
import { canonicalName, canonicalValue, ProviderError, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'

export const NS1_API = 'https://api.nsone.net/v1'

export function toAnswer(type: string, v: string): (string | number)[] {
  if (type === 'MX') {
    const [p, h] = v.split(' ')
    return [Number(p), h!]
  }
  const caa = type === 'CAA' ? /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(v) : null
  if (caa) return [Number(caa[1]), caa[2]!, caa[3]!]
  return [v]
}

export function fromAnswer(type: string, a: (string | number)[]): string {
  if (type === 'MX') return `${Number(a[0])} ${canonicalName(String(a[1]))}`
  if (type === 'CAA') return `${a[0]} ${a[1]} "${a[2]}"`
  return type === 'TXT' ? a.map(String).join('') : canonicalValue(type, String(a[0]))
}

/** Seconds until NS1's token bucket holds a token again: Period / Limit (at least a tenth of a second). */
export function ns1Wait(h: Headers): number | undefined {
  const limit = Number(h.get('x-ratelimit-limit'))
  const period = Number(h.get('x-ratelimit-period'))
  if (!(limit > 0) || !(period > 0)) return undefined
  return Math.max(0.1, period / limit)
}

const ns1Temporary = (r: HttpResult) => (r.status === 429 ? (ns1Wait(r.headers) ?? 1) : undefined)

function failure(r: HttpResult): ProviderError | null {
  if (r.status < 300) return null
  const e = failureOf('NS1', r, r.body?.message ?? `HTTP ${r.status}`)
  if (e.kind === 'rate_limited' && e.retryAfter === undefined) {
    const w = ns1Wait(r.headers)
    if (w !== undefined) return new ProviderError('rate_limited', e.message, r.status, Math.ceil(w))
  }
  return e
}

/** The `rel="next"` target of a Link header, if any. */
export function nextLink(link: string | null): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part)
    if (m) return m[1]
  }
  return undefined
}

interface Ns1Full {
  ttl?: number
  answers?: { answer: (string | number)[]; meta?: Record<string, unknown>; region?: string }[]
  filters?: unknown[]
  regions?: Record<string, unknown>
  meta?: Record<string, unknown>
  link?: string | null
}

/** Why a record cannot be written back from its plain answers, if it cannot. */
function lockedReason(r: Ns1Full): string | undefined {
  if (r.link) return `an NS1 linked record (answers from ${r.link})`
  if (Array.isArray(r.filters) && r.filters.length > 0) return 'an NS1 filter chain (traffic steering)'
  if (r.regions && Object.keys(r.regions).length > 0) return 'NS1 answer regions'
  if (r.answers?.some((a) => (a.meta && Object.keys(a.meta).length > 0) || a.region)) return 'NS1 answer metadata'
  if (r.meta && Object.keys(r.meta).length > 0) return 'NS1 record metadata'
  return undefined
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "absolute",
  hostnames: "absolute (rdata fields)",
  txt: "one rdata field, the text itself",
  ttl: "any",
  temporary: "429: a token refill (Period / Limit) waited out",
  sources: {
    apex: "dnscontrol providers/ns1 (StackExchange/dnscontrol@7a079bc): CanUseAlias Can",
    names: "the reference card (src/adapters/dns-providers/ns1/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/ns1/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/ns1/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/ns1/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/ns1/card.ts)",
  },
}

export class Ns1Provider extends RRsetBasedProvider {
  readonly id = 'ns1'
  readonly conventions = CONVENTIONS
  constructor(
    private readonly key: string,
    private readonly base = NS1_API,
  ) {
    super()
  }

  private async send(method: string, pathOrUrl: string, body?: unknown): Promise<HttpResult> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : this.base + pathOrUrl
    const r = await exchange(method, url, { 'x-nsone-key': this.key }, body, { temporary: ns1Temporary })
    const f = failure(r)
    if (f) throw f
    return r
  }

  /** A list, following `Link: rel="next"` while NS1 sends one on its own base. */
  private async pages<T>(path: string, items: (body: any) => T[]): Promise<{ first: any; items: T[] }> {
    let next: string | undefined = path
    let first: any
    const all = await paginate<T>({ provider: 'NS1', what: path }, async () => {
      if (!next) return { items: [] }
      const r = await this.send('GET', next)
      first ??= r.body
      const link = nextLink(r.headers.get('link'))
      // NS1 names api.nsone.net in the Link header, whatever base Portico is configured with (paging.ts).
      next = nextPageUrl(link, this.base, NS1_API, 'NS1') ?? undefined
      return { items: items(r.body), more: next !== undefined }
    })
    return { first, items: all }
  }

  async listZones(): Promise<Zone[]> {
    const { items } = await this.pages<{ zone: string }>('/zones', (b) => (Array.isArray(b) ? b : []))
    return items.map((z) => ({ id: canonicalName(z.zone), name: canonicalName(z.zone) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const { items } = await this.pages<{ domain: string; type: string; ttl: number; link?: string | null }>(`/zones/${encodeURIComponent(zone.id)}`, (b) => (Array.isArray(b?.records) ? b.records : []))
    const out: RRset[] = []
    for (const r of items) {
      // The zone lists sets with short answers; the full rdata (and what steers it) comes from the record.
      const full = (await this.send('GET', `/zones/${encodeURIComponent(zone.id)}/${encodeURIComponent(r.domain)}/${r.type}`)).body as Ns1Full
      const locked = lockedReason({ ...full, link: full.link ?? r.link })
      const values = (full.answers ?? []).map((a) => fromAnswer(r.type, a.answer))
      out.push({ name: canonicalName(r.domain), type: r.type, ttl: full.ttl ?? r.ttl, values: locked && values.length === 0 ? [`linked to ${full.link ?? r.link}`] : values, ...(locked ? { locked } : {}) })
    }
    return out
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur: RRset | undefined): Promise<void> {
    const body = { zone: zone.name, domain: c.name, type: c.type, ttl: c.ttl, answers: c.values.map((v) => ({ answer: toAnswer(c.type, v) })) }
    await this.send(cur ? 'POST' : 'PUT', `/zones/${encodeURIComponent(zone.id)}/${encodeURIComponent(c.name)}/${c.type}`, body)
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.send('DELETE', `/zones/${encodeURIComponent(zone.id)}/${encodeURIComponent(cur.name)}/${cur.type}`)
  }
}
