// Simply.com API v2, the parts the adapter uses (https://www.simply.com/en/docs/api/): HTTP Basic
// `account:api_key`; errors `{status, message}` (401 "Authentication failed", 404 "Product not
// found", 400 "Invalid record", 429 with Retry-After); both lists are whole. Records `{record_id,
// name, ttl, data, type, priority}` with relative names (`@` the apex).
import { json, nextId } from './common.ts'
import { startRowFake } from './rest.ts'

export interface SimplyRecord {
  record_id: number
  name: string
  ttl: number
  data: string
  type: string
  priority: number | null
}

export function startSimplyFake(account = 'S' + String(Math.floor(Math.random() * 900000) + 100000), key = nextId('key').padEnd(32, 'k')) {
  let ids = 9000
  const err = (status: number, message: string, headers: Record<string, string> = {}) => json(status, { status, message }, headers)
  return startRowFake<SimplyRecord>({
    credential: `${account}:${key}`,
    authorized: (req) => req.headers.get('authorization') === `Basic ${btoa(`${account}:${key}`)}`,
    errors: { unauthorized: () => err(401, 'Authentication failed'), notFound: () => err(404, 'Product not found'), invalid: (m) => err(400, `Invalid record: ${m}`), throttled: () => err(429, 'Too many requests', { 'retry-after': '11' }) },
    retryAfter: 11,
    zoneId: () => nextId('obj'),
    routes: { zones: /^\/2\/my\/products$/, records: /^\/2\/my\/products\/(?<zone>[^/]+)\/dns\/records$/, record: /^\/2\/my\/products\/(?<zone>[^/]+)\/dns\/records\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ object: z.id, name: z.name, domain: { name: z.name, name_idn: z.name } }),
    list: (_f, kind, rows) => json(200, kind === 'zones' ? { products: rows } : { records: rows }),
    create(b) {
      if (typeof b.name !== 'string' || typeof b.type !== 'string' || typeof b.data !== 'string' || !b.data) return 'name, type and data are required'
      return { record_id: ++ids, name: b.name, ttl: b.ttl ?? 3600, data: b.data, type: b.type, priority: b.priority ?? null }
    },
    created: (row) => json(200, { status: 200, message: 'OK', record: { id: row.record_id } }),
    deleted: () => json(200, { status: 200, message: 'OK' }),
    key: (r, z) => ({ name: r.name === '@' ? z.name : `${r.name}.${z.name}`, type: r.type, id: String(r.record_id) }),
  })
}
