// IBM NS1 Connect API v1 (https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/api/API--ns1--ibm-ns1-connect-api):
// header `X-NSONE-Key: <API key>`. Zones: GET /v1/zones (one list, no paging); a zone's record sets:
// GET /v1/zones/{zone} → `records: [{domain, type, ttl, short_answers}]`; a set is created with PUT
// /v1/zones/{zone}/{domain}/{type} `{zone, domain, type, ttl, answers: [{answer: [rdata…]}]}`, replaced
// with POST on the same path and removed with DELETE. Names are absolute; each answer's rdata is a
// list of fields (MX `[10, "mx.example.com"]`, CAA `[0, "issue", "ca"]`, TXT `[text]`). Errors are
// `{message}`: 401 "Unauthorized", 403 a key without zone permissions, 404 "zone not found", 429
// with Retry-After (NS1's leaky-bucket limits).
import { RestClient } from './rest.ts'
import { RRsetBasedProvider } from './rrset-based.ts'
import { canonicalName, canonicalValue, type RRset, type RRsetChange, type Zone } from './types.ts'

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

export class Ns1Provider extends RRsetBasedProvider {
  readonly id = 'ns1'
  private readonly api: RestClient
  constructor(key: string, base = NS1_API) {
    super()
    this.api = new RestClient({ name: 'NS1', base, headers: { 'x-nsone-key': key }, message: (b) => b?.message })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/zones')) as { zone: string; primary?: { enabled?: boolean } }[]).map((z) => ({ id: canonicalName(z.zone), name: canonicalName(z.zone) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const z = await this.api.call('GET', `/zones/${encodeURIComponent(zone.id)}`)
    const out: RRset[] = []
    for (const r of z.records as { domain: string; type: string; ttl: number }[]) {
      // The zone lists sets with short answers; the full rdata of each comes from the record itself.
      const full = await this.api.call('GET', `/zones/${encodeURIComponent(zone.id)}/${encodeURIComponent(r.domain)}/${r.type}`)
      out.push({ name: canonicalName(r.domain), type: r.type, ttl: full.ttl ?? r.ttl, values: (full.answers as { answer: (string | number)[] }[]).map((a) => fromAnswer(r.type, a.answer)) })
    }
    return out
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur: RRset | undefined): Promise<void> {
    const body = { zone: zone.name, domain: c.name, type: c.type, ttl: c.ttl, answers: c.values.map((v) => ({ answer: toAnswer(c.type, v) })) }
    await this.api.call(cur ? 'POST' : 'PUT', `/zones/${encodeURIComponent(zone.id)}/${encodeURIComponent(c.name)}/${c.type}`, body)
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', `/zones/${encodeURIComponent(zone.id)}/${encodeURIComponent(cur.name)}/${cur.type}`)
  }
}
