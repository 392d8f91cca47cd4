// DigitalOcean API v2 domains and domain records, the parts the adapter uses
// (https://docs.digitalocean.com/reference/api/api-reference/#tag/Domain-Records): Bearer token;
// errors `{id, message}` with 401 `unauthorized`, 404 `not_found`, 429 `too_many_requests` (with
// ratelimit headers), 422 `unprocessable_entity`; lists paged with `links.pages.next` and `meta.total`.
// Record `name` is relative (`@`); CNAME/MX `data` keep the trailing dot as given; CAA `flags`/`tag`.
import { json, nextId, startFake, type Fake } from './common.ts'

export interface DoRecord {
  id: number
  type: string
  name: string
  data: string
  priority: number | null
  port: null
  ttl: number
  weight: null
  flags: number | null
  tag: string | null
}

const err = (status: number, id: string, message: string, headers: Record<string, string> = {}) => json(status, { id, message }, headers)

function paged<T>(key: string, items: T[], url: URL, base: string) {
  const per = Number(url.searchParams.get('per_page') ?? 20)
  const p = Number(url.searchParams.get('page') ?? 1)
  const last = Math.max(1, Math.ceil(items.length / per))
  const link = (n: number) => `${base}${url.pathname}?page=${n}&per_page=${per}`
  return { [key]: items.slice((p - 1) * per, p * per), links: p < last ? { pages: { last: link(last), next: link(p + 1) } } : {}, meta: { total: items.length } }
}

export function startDigitalOceanFake(token = 'dop_v1_' + nextId()): Fake<DoRecord> {
  let seq = 1000
  const fake: Fake<DoRecord> = startFake<DoRecord>({
    credential: token,
    zoneId: (name) => name,
    throttled: () => err(429, 'too_many_requests', 'API Rate limit exceeded.', { 'ratelimit-limit': '5000', 'ratelimit-remaining': '0' }),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Bearer ${token}`) return err(401, 'unauthorized', 'Unable to authenticate you')
      const path = url.pathname.replace(/^\/v2/, '')
      if (req.method === 'GET' && path === '/domains') return json(200, paged('domains', f.zones.map((z) => ({ name: z.name, ttl: 1800, zone_file: '' })), url, f.url))
      const m = /^\/domains\/([^/]+)\/records(?:\/(\d+))?$/.exec(path)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'not_found', 'The resource you were accessing could not be found.')
      if (req.method === 'GET' && !m[2]) return json(200, paged('domain_records', zone.records, url, f.url))
      if (req.method === 'POST' && !m[2]) {
        const b = (await req.json()) as Partial<DoRecord>
        if (!b.type || b.name === undefined || b.data === undefined) return err(422, 'unprocessable_entity', 'Data needs to be a valid value')
        const rec: DoRecord = { id: ++seq, type: b.type, name: b.name, data: b.data, priority: b.priority ?? null, port: null, ttl: b.ttl ?? 1800, weight: null, flags: b.flags ?? null, tag: b.tag ?? null }
        zone.records.push(rec)
        return json(201, { domain_record: rec })
      }
      if (req.method === 'DELETE' && m[2]) {
        const i = zone.records.findIndex((r) => r.id === Number(m[2]))
        if (i === -1) return err(404, 'not_found', 'The resource you were accessing could not be found.')
        zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      return err(405, 'method_not_allowed', 'Method not allowed')
    },
  })
  return fake
}
