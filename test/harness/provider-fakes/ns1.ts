// IBM NS1 Connect API v1, the parts the adapter uses (https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/):
// `X-NSONE-Key`; errors `{message}` (401 "Unauthorized", 404 "zone not found" / "record not found",
// 400 "record already exists" on PUT of an existing set, 429 "rate limit exceeded" with Retry-After).
// GET /v1/zones is one unpaged list; GET /v1/zones/{zone} lists its sets `{domain, type, ttl,
// short_answers}`; a record holds `answers: [{answer: [rdata fields]}]`. NS1 pages none of these.
import { json, nextId, startFake, type Fake } from './common.ts'

export interface Ns1Record {
  domain: string
  type: string
  ttl: number
  answers: { answer: (string | number)[] }[]
}

export function startNs1Fake(key = 'ns1key' + nextId()): Fake<Ns1Record> {
  const err = (status: number, message: string, headers: Record<string, string> = {}) => json(status, { message }, headers)
  return startFake<Ns1Record>({
    credential: key,
    zoneId: (name) => name,
    retryAfter: 2,
    throttled: () => err(429, 'rate limit exceeded', { 'retry-after': '2', 'x-ratelimit-by': 'customer' }),
    async handle(req, url, f) {
      if (req.headers.get('x-nsone-key') !== key) return err(401, 'Unauthorized')
      if (req.method === 'GET' && url.pathname === '/v1/zones') return json(200, f.zones.map((z) => ({ zone: z.name, id: nextId(), ttl: 3600, primary: { enabled: false } })))
      const m = /^\/v1\/zones\/([^/]+)(?:\/([^/]+)\/([A-Z]+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'zone not found')
      if (req.method === 'GET' && !m[2]) {
        return json(200, { zone: zone.name, ttl: 3600, records: zone.records.map((r) => ({ domain: r.domain, type: r.type, ttl: r.ttl, short_answers: r.answers.map((a) => a.answer.join(' ')) })) })
      }
      const domain = decodeURIComponent(m[2]!)
      const i = zone.records.findIndex((r) => r.domain === domain && r.type === m[3])
      if (req.method === 'GET') return i === -1 ? err(404, 'record not found') : json(200, { zone: zone.name, ...zone.records[i] })
      if (req.method === 'PUT' || req.method === 'POST') {
        const b = (await req.json()) as Partial<Ns1Record>
        if (!Array.isArray(b.answers) || b.answers.length === 0 || b.answers.some((a) => !Array.isArray(a.answer) || a.answer.length === 0)) return err(400, 'Input validation failed (Value None for field \'answers\')')
        if (domain !== zone.name && !domain.endsWith(`.${zone.name}`)) return err(400, 'record is not in this zone')
        if (req.method === 'PUT' && i !== -1) return err(400, 'record already exists')
        if (req.method === 'POST' && i === -1) return err(404, 'record not found')
        const others = zone.records.filter((r) => r.domain === domain && r.type !== m[3])
        if ((m[3] === 'CNAME' && others.length) || others.some((r) => r.type === 'CNAME')) return err(400, 'CNAME records cannot coexist with other record types')
        const rec: Ns1Record = { domain, type: m[3]!, ttl: b.ttl ?? 3600, answers: b.answers }
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
}
