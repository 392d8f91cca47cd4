// deSEC DNS API v1, the parts the adapter uses (https://desec.readthedocs.io/en/latest/dns/rrsets.html,
// …/dns/domains.html): `Authorization: Token …`; errors `{detail}` (401 "Invalid token.", 404 "Not
// found.", 400 with per-field lists, 429 with Retry-After). Lists page by cursor: `?cursor=` is the
// first page, a `Link` header carries `rel="next"`; a long list asked without the parameter is a 400.
// RRsets `{subname, type, ttl, records}`; PUT on …/rrsets/{subname}/{type}/ creates or replaces a set
// (`@` is the apex), DELETE removes it (204). TXT records must be quoted; TTL at least 3600.
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export interface DesecRRset {
  subname: string
  type: string
  ttl: number
  records: string[]
}

const detail = (status: number, text: string, headers: Record<string, string> = {}) => json(status, { detail: text }, headers)

export function startDesecFake(token = nextId('desec')): Fake<DesecRRset> {
  return startFake<DesecRRset>({
    credential: token,
    zoneId: (name) => name,
    retryAfter: 7,
    throttled: () => detail(429, 'Request was throttled. Expected available in 7 seconds.', { 'retry-after': '7' }),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Token ${token}`) return detail(401, 'Invalid token.')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const cursor = url.searchParams.get('cursor')
        if (cursor === null && rows.length > 3) return json(400, { detail: 'Pagination required. You can query up to 3 items at a time.' })
        const page = Number(cursor || 1)
        const s = servePage(f, kind, rows, page)
        const link = page < s.last ? `<${f.url}${url.pathname}?cursor=${page + 1}>; rel="next"` : ''
        return json(200, s.items, link ? { link } : {})
      }
      if (req.method === 'GET' && url.pathname === '/api/v1/domains/') return list('zones', f.zones.map((z) => ({ name: z.name, minimum_ttl: 3600 })))
      const m = /^\/api\/v1\/domains\/([^/]+)\/rrsets\/(?:([^/]+)\/([A-Z]+)\/)?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return detail(404, 'Not found.')
      if (req.method === 'GET' && !m[2]) return list('records', zone.records)
      const sub = m[2] === '@' ? '' : decodeURIComponent(m[2] ?? '')
      const i = zone.records.findIndex((s) => s.subname === sub && s.type === m[3])
      if (req.method === 'PUT' && m[2]) {
        const b = (await req.json()) as Partial<DesecRRset>
        const records = b.records
        if (!Array.isArray(records) || records.length === 0) return json(400, { records: ['This field is required.'] })
        if (m[3] === 'TXT' && records.some((v) => !v.startsWith('"'))) return json(400, { records: ['TXT records must be quoted.'] })
        if (typeof b.ttl !== 'number' || b.ttl < 3600) return json(400, { ttl: ['Ensure this value is greater than or equal to 3600.'] })
        const others = zone.records.filter((s) => s.subname === sub && s.type !== m[3])
        if ((m[3] === 'CNAME' && others.length) || others.some((s) => s.type === 'CNAME')) return json(400, { non_field_errors: ['RRset with conflicting type present: CNAME cannot stand beside other types.'] })
        const set = { subname: sub, type: m[3]!, ttl: b.ttl, records }
        if (i === -1) zone.records.push(set)
        else zone.records[i] = set
        return json(i === -1 ? 201 : 200, set)
      }
      if (req.method === 'DELETE' && m[2]) {
        if (i !== -1) zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      return detail(405, `Method "${req.method}" not allowed.`)
    },
  })
}
