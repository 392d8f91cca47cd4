// IBM NS1 Connect API v1, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/ns1/card.ts): `X-NSONE-Key`; errors `{message}` (401 "Unauthorized", 404
// "zone not found" / "record not found", 400 "record already exists" on PUT of an existing set, 429
// with the token bucket in X-Ratelimit-Limit / -Remaining / -Period). GET /v1/zones and GET
// /v1/zones/{zone} answer whole lists unless `pageSize` is set, when they page with a `Link: <…>;
// rel="next"` header as NS1's Go SDK expects. A zone lists its sets `{domain, type, ttl,
// short_answers, link, tier}`; a record holds `answers: [{answer: [rdata fields], meta?}]` and may
// carry `filters` (a filter chain), `regions`, `meta` or `link` (a linked record, no answers).
import { ns1 as card } from './card.ts'
import { cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface Ns1Record {
  domain: string
  type: string
  ttl: number
  answers: { answer: (string | number)[]; meta?: Record<string, unknown> }[]
  filters?: { filter: string; config?: Record<string, unknown> }[]
  regions?: Record<string, unknown>
  meta?: Record<string, unknown>
  link?: string | null
}

export type Ns1Fake = Fake<Ns1Record> & { pageSize: number | null }

export function startNs1Fake(key = 'ns1key' + nextId()): Ns1Fake {
  const err = (status: number, message: string, headers: Record<string, string> = {}) => json(status, { message }, headers)
  const paged = (f: Ns1Fake, url: URL, list: 'zones' | 'records', rows: unknown[], wrap: (rows: unknown[]) => unknown) => {
    if (!f.pageSize) return json(200, wrap(rows))
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1))
    f.deepest[list] = Math.max(f.deepest[list], page)
    const items = rows.slice((page - 1) * f.pageSize, page * f.pageSize)
    const more = page * f.pageSize < rows.length
    // NS1 names its own origin in the Link header (its base, https://api.nsone.net/v1, as the card cites it).
    return json(200, wrap(items), more ? { link: `<https://api.nsone.net${url.pathname}?page=${page + 1}>; rel="next"` } : {})
  }
  const fake = startFake<Ns1Record>({
    credential: key,
    zoneId: (name) => name,
    retryAfter: 2,
    throttled: cardThrottle(card, 2),
    async handle(req, url, f) {
      const self = f as Ns1Fake
      if (req.headers.get('x-nsone-key') !== key) return err(401, 'Unauthorized')
      if (req.method === 'GET' && url.pathname === '/v1/zones') return paged(self, url, 'zones', f.zones.map((z) => ({ zone: z.name, id: z.id, ttl: 3600, primary: { enabled: false } })), (rows) => rows)
      const m = /^\/v1\/zones\/([^/]+)(?:\/([^/]+)\/([A-Z]+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'zone not found')
      if (req.method === 'GET' && !m[2]) {
        const rows = zone.records.map((r) => ({ domain: r.domain, type: r.type, ttl: r.ttl, short_answers: r.answers.map((a) => a.answer.join(' ')), link: r.link ?? null, tier: r.filters?.length ? 3 : 1 }))
        return paged(self, url, 'records', rows, (records) => ({ zone: zone.name, ttl: 3600, records }))
      }
      const domain = decodeURIComponent(m[2]!)
      const i = zone.records.findIndex((r) => r.domain === domain && r.type === m[3])
      if (req.method === 'GET') return i === -1 ? err(404, 'record not found') : json(200, { zone: zone.name, filters: [], meta: {}, regions: {}, link: null, ...zone.records[i] })
      if (req.method === 'PUT' || req.method === 'POST') {
        const b = (await req.json()) as Partial<Ns1Record>
        if (!Array.isArray(b.answers) || b.answers.length === 0 || b.answers.some((a) => !Array.isArray(a.answer) || a.answer.length === 0)) return err(400, 'Input validation failed (Value None for field \'answers\')')
        if (domain !== zone.name && !domain.endsWith(`.${zone.name}`)) return err(400, 'record is not in this zone')
        if (req.method === 'PUT' && i !== -1) return err(400, 'record already exists')
        if (req.method === 'POST' && i === -1) return err(404, 'record not found')
        const others = zone.records.filter((r) => r.domain === domain && r.type !== m[3])
        if ((m[3] === 'CNAME' && others.length) || others.some((r) => r.type === 'CNAME')) return err(400, 'CNAME records cannot coexist with other record types')
        // A POST changes the fields it carries; the rest of the record (filters, meta) stays.
        const rec: Ns1Record = i === -1 ? { domain, type: m[3]!, ttl: b.ttl ?? 3600, answers: b.answers } : { ...zone.records[i]!, ttl: b.ttl ?? zone.records[i]!.ttl, answers: b.answers }
        if (i === -1) zone.records.push(rec)
        else zone.records[i] = rec
        return json(200, { zone: zone.name, id: nextId(), ...rec })
      }
      if (req.method === 'DELETE') {
        if (i === -1) return err(404, 'record not found')
        zone.records.splice(i, 1)
        return json(200, {})
      }
      return err(405, 'method not allowed')
    },
  })
  return Object.assign(fake, { pageSize: null as number | null })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'ns1',
  reference: 'https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/',
  unpaged: { lists: ['zones', 'records'], why: 'GET /v1/zones and GET /v1/zones/{zone} answer whole lists' },
  start: () => startNs1Fake(),
  base: (f) => f.url + '/v1',
  badCredential: 'wrong-key',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // A key NS1 refuses is tried at Netlify (the same fleet); here nothing answers there.
  extraBases: { netlify: 'http://127.0.0.1:9/api/v1' },
}
