// Domeneshop API v0, the parts the adapter uses (https://api.domeneshop.no/docs/#tag/dns): HTTP
// Basic `token:secret`; errors `{help, code, message}` (401 `auth:invalid`, 404 `domain:notFound` /
// `record:notFound`, 400 `record:collision` / `record:invalid`, 429 with Retry-After). Both lists are
// whole. Records `{id, host, ttl, type, data, priority?, flags?, tag?}`; `host` relative, `@` the apex.
import { json, nextId } from './common.ts'
import { startRowFake } from './rest.ts'

export interface DomeneshopRecord {
  id: number
  host: string
  ttl: number
  type: string
  data: string
  priority?: number
  flags?: number
  tag?: string
}

export function startDomeneshopFake(token = nextId('ds'), secret = nextId('dss').padEnd(40, 'q')) {
  let ids = 1000
  const err = (status: number, code: string, message: string, headers: Record<string, string> = {}) => json(status, { help: 'https://api.domeneshop.no/docs/', code, message }, headers)
  return startRowFake<DomeneshopRecord>({
    credential: `${token}:${secret}`,
    authorized: (req) => req.headers.get('authorization') === `Basic ${btoa(`${token}:${secret}`)}`,
    errors: { unauthorized: () => err(401, 'auth:invalid', 'Invalid credentials'), notFound: () => err(404, 'domain:notFound', 'Domain not found'), invalid: (m) => err(400, m.includes('CNAME') ? 'record:collision' : 'record:invalid', m), throttled: () => err(429, 'rate:limited', 'Too many requests', { 'retry-after': '60' }) },
    retryAfter: 60,
    zoneId: () => String(++ids),
    routes: { zones: /^\/v0\/domains$/, records: /^\/v0\/domains\/(?<zone>\d+)\/dns$/, record: /^\/v0\/domains\/(?<zone>\d+)\/dns\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ id: Number(z.id), domain: z.name, status: 'active', services: { registrar: true, dns: true, email: false, webhotel: 'none' } }),
    list: (_f, _kind, rows) => json(200, rows),
    create(b) {
      if (typeof b.host !== 'string' || typeof b.type !== 'string' || typeof b.data !== 'string' || !b.data) return 'host, type and data are required'
      if (b.type === 'CAA' && (b.flags === undefined || !b.tag)) return 'CAA records need flags and tag'
      return { id: ++ids, host: b.host, ttl: b.ttl ?? 3600, type: b.type, data: b.data, ...(b.priority !== undefined ? { priority: b.priority } : {}), ...(b.type === 'CAA' ? { flags: b.flags, tag: b.tag } : {}) }
    },
    created: (row) => json(201, { id: row.id }, { location: `/v0/domains/0/dns/${row.id}` }),
    deleted: () => new Response(null, { status: 204 }),
    key: (r, z) => ({ name: r.host === '@' ? z.name : `${r.host}.${z.name}`, type: r.type, id: String(r.id) }),
  })
}
