// Gandi LiveDNS v5, the parts the adapter uses (https://api.gandi.net/docs/livedns/): Bearer token;
// errors `{code, message, object, cause}` (401 Unauthorized, 404 "Domain not found" / "Record not
// found", 400 with `errors`, 429 "Too Many Requests" with Retry-After); lists are bare arrays paged
// by `page`/`per_page` with a Total-Count header. Record sets `{rrset_name, rrset_type, rrset_ttl,
// rrset_values, rrset_href}`; PUT on a set creates or replaces it (201), DELETE removes it (204).
// TXT values must be quoted character strings; TTL at least 300.
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export interface GandiRRset {
  rrset_name: string
  rrset_type: string
  rrset_ttl: number
  rrset_values: string[]
}

const err = (code: number, message: string, cause: string, headers: Record<string, string> = {}) => json(code, { code, message, object: 'HTTP' + cause.replace(/ /g, ''), cause }, headers)

export function startGandiFake(token = 'gandi-pat-' + nextId()): Fake<GandiRRset> {
  return startFake<GandiRRset>({
    credential: token,
    zoneId: (name) => name,
    retryAfter: 20,
    throttled: () => err(429, 'Too many requests', 'Too Many Requests', { 'retry-after': '20' }),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Bearer ${token}`) return err(401, 'The server could not verify that you authorized to access the document you requested.', 'Unauthorized')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const s = servePage(f, kind, rows, Number(url.searchParams.get('page') ?? 1), Number(url.searchParams.get('per_page') ?? 100))
        return json(200, s.items, { 'total-count': String(s.total) })
      }
      if (req.method === 'GET' && url.pathname === '/v5/livedns/domains') return list('zones', f.zones.map((z) => ({ fqdn: z.name, domain_href: `${f.url}/v5/livedns/domains/${z.name}`, automatic_snapshots: true })))
      const m = /^\/v5\/livedns\/domains\/([^/]+)\/records(?:\/([^/]+)\/([A-Z]+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'Domain not found', 'Not Found')
      if (req.method === 'GET' && !m[2]) return list('records', zone.records)
      const name = decodeURIComponent(m[2] ?? '')
      const i = zone.records.findIndex((s) => s.rrset_name === name && s.rrset_type === m[3])
      if (req.method === 'PUT' && m[2]) {
        const b = (await req.json()) as Partial<GandiRRset>
        const values = b.rrset_values
        if (!Array.isArray(values) || values.length === 0) return json(400, { code: 400, message: 'Bad Request', cause: 'Bad Request', errors: [{ location: 'body', name: 'rrset_values', description: 'required' }] })
        if (m[3] === 'TXT' && values.some((v) => !v.startsWith('"'))) return json(400, { code: 400, message: 'Bad Request', cause: 'Bad Request', errors: [{ location: 'body', name: 'rrset_values', description: 'TXT values must be quoted' }] })
        const ttl = b.rrset_ttl ?? 10800
        if (ttl < 300) return json(400, { code: 400, message: 'Bad Request', cause: 'Bad Request', errors: [{ location: 'body', name: 'rrset_ttl', description: 'must be at least 300' }] })
        const others = zone.records.filter((s) => s.rrset_name === name && s.rrset_type !== m[3])
        if ((m[3] === 'CNAME' && others.length) || others.some((s) => s.rrset_type === 'CNAME')) return err(409, 'A CNAME record cannot coexist with other records', 'Conflict')
        const set = { rrset_name: name, rrset_type: m[3]!, rrset_ttl: ttl, rrset_values: values }
        if (i === -1) zone.records.push(set)
        else zone.records[i] = set
        return json(201, { message: 'DNS Record Created' })
      }
      if (req.method === 'DELETE' && m[2]) {
        if (i === -1) return err(404, 'Record not found', 'Not Found')
        zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      return err(405, 'Method not allowed', 'Method Not Allowed')
    },
  })
}
