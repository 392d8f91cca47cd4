// Simply.com API v2, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/simply-com/card.ts; https://www.simply.com/en/docs/api/, lego's fixtures): HTTP
// Basic `account:api_key`; errors `{error}` (401 "Invalid account authorization", 404 "Unknown or
// invalid product reference", 400 "Invalid record", 429 with Retry-After); both lists are whole.
// Records `{record_id, name, ttl, data, type, priority}` with relative names (`@` the apex); SRV keeps
// its priority apart from its data.
import { simply as card } from './card.ts'
import { cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

const TYPES = new Set(card.records.types)

export interface SimplyRecord {
  record_id: number
  name: string
  ttl: number
  data: string
  type: string
  priority: number
}

export function startSimplyFake(account = 'S' + String(Math.floor(Math.random() * 900000) + 100000), key = nextId('key').padEnd(32, 'k')) {
  let ids = 9000
  const err = (status: number, error: string, headers: Record<string, string> = {}) => json(status, { error }, headers)
  return startRowFake<SimplyRecord>({
    credential: `${account}:${key}`,
    authorized: (req) => req.headers.get('authorization') === `Basic ${btoa(`${account}:${key}`)}`,
    errors: { unauthorized: () => err(401, 'Invalid account authorization'), notFound: () => err(404, 'Unknown or invalid product reference'), invalid: (m) => err(400, `Invalid record: ${m}`), throttled: cardThrottle(card, 11) },
    retryAfter: 11,
    zoneId: () => nextId('obj'),
    routes: { zones: /^\/2\/my\/products$/, records: /^\/2\/my\/products\/(?<zone>[^/]+)\/dns\/records$/, record: /^\/2\/my\/products\/(?<zone>[^/]+)\/dns\/records\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ object: z.id, name: z.name, domain: { name: z.name, name_idn: z.name } }),
    list: (_f, kind, rows) => json(200, kind === 'zones' ? { products: rows } : { records: rows }),
    create(b) {
      if (typeof b.name !== 'string' || typeof b.type !== 'string' || typeof b.data !== 'string' || !b.data) return 'name, type and data are required'
      if (!TYPES.has(b.type)) return `type ${b.type} is not supported`
      if ((b.type === 'MX' || b.type === 'SRV') && typeof b.priority !== 'number') return `${b.type} records need a priority`
      if (typeof b.ttl === 'number' && b.ttl < card.ttl.min) return `ttl must be at least ${card.ttl.min}`
      return { record_id: ++ids, name: b.name, ttl: b.ttl ?? 3600, data: b.data, type: b.type, priority: b.priority ?? 0 }
    },
    created: (row) => json(200, { status: 200, message: 'OK', record: { id: row.record_id } }),
    deleted: () => json(200, { status: 200, message: 'OK' }),
    key: (r, z) => ({ name: r.name === '@' ? z.name : `${r.name}.${z.name}`, type: r.type, id: String(r.record_id) }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'simply-com',
  reference: 'https://www.simply.com/en/docs/api/',
  unpaged: { lists: ['zones', 'records'], why: 'products and a product\'s records come as whole lists' },
  start: () => startSimplyFake(),
  base: (f) => f.url,
  badCredential: 'S1:wrong',
  foreignZone: { id: 'objnotmine', name: 'not-mine.example' },
  seedRow: (z, row) => z.records.push({ record_id: 60000 + parseInt(nextId().slice(-4), 16), ...row }),
}
