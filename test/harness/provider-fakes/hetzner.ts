// Hetzner DNS API, the parts the adapter uses (https://dns.hetzner.com/api-docs): `Auth-API-Token`
// header; a bad token is 401 `{"message": "Invalid authentication credentials"}`; other errors are
// `{"error": {"message", "code"}}` (404 zone not found, 429 rate limit, 422 invalid record). Zones
// are paged with `meta.pagination`; records carry `zone_id`, relative `name` and zone-file `value`.
import { json, nextId, startFake, type Fake } from './common.ts'

export interface HzRecord {
  id: string
  zone_id: string
  type: string
  name: string
  value: string
  ttl?: number
  created: string
  modified: string
}

const error = (code: number, message: string) => json(code, { error: { message, code } })

export function startHetznerFake(token = 'hz' + nextId().padEnd(30, 'x')): Fake<HzRecord> {
  return startFake<HzRecord>({
    credential: token,
    zoneId: () => nextId('HetzZone').padEnd(22, 'Q'),
    throttled: () => error(429, 'rate limit exceeded'),
    async handle(req, url, f) {
      if (req.headers.get('auth-api-token') !== token) return json(401, { message: 'Invalid authentication credentials' })
      const path = url.pathname.replace(/^\/api\/v1/, '')
      const now = new Date().toISOString()
      if (req.method === 'GET' && path === '/zones') {
        const per = Number(url.searchParams.get('per_page') ?? 100)
        const p = Number(url.searchParams.get('page') ?? 1)
        const zones = f.zones.map((z) => ({ id: z.id, name: z.name, ttl: 86400, records_count: z.records.length }))
        return json(200, { zones: zones.slice((p - 1) * per, p * per), meta: { pagination: { page: p, per_page: per, last_page: Math.max(1, Math.ceil(zones.length / per)), total_entries: zones.length } } })
      }
      const zm = /^\/zones\/([^/]+)$/.exec(path)
      if (req.method === 'GET' && zm) {
        const z = f.zones.find((x) => x.id === zm[1])
        return z ? json(200, { zone: { id: z.id, name: z.name, ttl: 86400 } }) : error(404, 'zone not found')
      }
      if (req.method === 'GET' && path === '/records') {
        const z = f.zones.find((x) => x.id === url.searchParams.get('zone_id'))
        if (!z) return error(404, 'zone not found')
        return json(200, { records: z.records, meta: { pagination: { page: 1, per_page: z.records.length, last_page: 1, total_entries: z.records.length } } })
      }
      if (req.method === 'POST' && path === '/records') {
        const b = (await req.json()) as Partial<HzRecord>
        const z = f.zones.find((x) => x.id === b.zone_id)
        if (!z) return error(404, 'zone not found')
        if (!b.type || b.name === undefined || !b.value) return error(422, 'invalid record')
        const rec: HzRecord = { id: nextId('r'), zone_id: z.id, type: b.type, name: b.name, value: b.value, ...(b.ttl !== undefined ? { ttl: b.ttl } : {}), created: now, modified: now }
        z.records.push(rec)
        return json(200, { record: rec })
      }
      const rm = /^\/records\/([^/]+)$/.exec(path)
      if (req.method === 'DELETE' && rm) {
        for (const z of f.zones) {
          const i = z.records.findIndex((r) => r.id === rm[1])
          if (i !== -1) {
            z.records.splice(i, 1)
            return new Response(null, { status: 200 })
          }
        }
        return error(404, 'record not found')
      }
      return error(405, 'method not allowed')
    },
  })
}
