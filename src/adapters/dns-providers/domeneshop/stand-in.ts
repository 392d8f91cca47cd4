// Domeneshop API v0, the parts the adapter uses (https://api.domeneshop.no/docs/#tag/dns): HTTP
// Basic `token:secret`; errors `{help, code, message}` (401 `auth:invalid`, 404 `domain:notFound` /
// `record:notFound`, 400 `record:collision` / `record:invalid`, 429 with Retry-After). Both lists are
// whole. Records `{id, host, ttl, type, data, priority?, flags?, tag?}` plus SRV `weight`, `port`, TLSA
// `usage`, `selector`, `dtype`, DS `tag`, `alg`, `digest`; `host` relative, `@` the apex. HTTP forwards
// `{host, frame, url}` are the zone's settings (`settings.forwards`), listed at GET …/forwards. Answers
// as the card says (src/adapters/dns-providers/domeneshop/card.ts).
import { domeneshop as card } from './card.ts'
import { cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

/** Fields each type needs beside host, ttl, type and data (python-domeneshop's VALID_KEYS). */
const EXTRA: Record<string, string[]> = { MX: ['priority'], SRV: ['priority', 'weight', 'port'], TLSA: ['usage', 'selector', 'dtype'], DS: ['tag', 'alg', 'digest'], CAA: ['flags', 'tag'] }
const TYPES = new Set(card.records.types)

export interface DomeneshopRecord {
  id: number
  host: string
  ttl: number
  type: string
  data: string
  priority?: number
  flags?: number
  tag?: string
  [field: string]: unknown
}

export function startDomeneshopFake(token = nextId('ds'), secret = nextId('dss').padEnd(40, 'q')) {
  let ids = 1000
  // eslint-disable-next-line prefer-const
  let fake: ReturnType<typeof startRowFake<DomeneshopRecord>>
  const err = (status: number, code: string, message: string, headers: Record<string, string> = {}) => json(status, { help: 'https://api.domeneshop.no/docs/', code, message }, headers)
  fake = startRowFake<DomeneshopRecord>({
    credential: `${token}:${secret}`,
    authorized: (req) => req.headers.get('authorization') === `Basic ${btoa(`${token}:${secret}`)}`,
    errors: { unauthorized: () => err(401, 'auth:invalid', 'Invalid credentials'), notFound: () => err(404, 'domain:notFound', 'Domain not found'), invalid: (m) => err(400, m.includes('CNAME') ? 'record:collision' : 'record:invalid', m), throttled: cardThrottle(card, 60) },
    retryAfter: 60,
    zoneId: () => String(++ids),
    routes: { zones: /^\/v0\/domains$/, records: /^\/v0\/domains\/(?<zone>\d+)\/dns$/, record: /^\/v0\/domains\/(?<zone>\d+)\/dns\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ id: Number(z.id), domain: z.name, status: 'active', services: { registrar: true, dns: true, email: false, webhotel: 'none' } }),
    list: (_f, _kind, rows) => json(200, rows),
    extra(req, url) {
      const m = /^\/v0\/domains\/(\d+)\/forwards$/.exec(url.pathname)
      if (!m || req.method !== 'GET') return null
      const z = fake.zones.find((x) => x.id === m[1])
      return z ? json(200, (z.settings?.forwards as unknown[]) ?? []) : err(404, 'domain:notFound', 'Domain not found')
    },
    create(b) {
      if (typeof b.host !== 'string' || typeof b.type !== 'string' || typeof b.data !== 'string' || !b.data) return 'host, type and data are required'
      if (!TYPES.has(b.type)) return `record type ${b.type} is not supported`
      const missing = (EXTRA[b.type] ?? []).filter((k) => b[k] === undefined)
      if (missing.length) return `${b.type} records need ${missing.join(', ')}`
      if (typeof b.ttl === 'number' && b.ttl < card.ttl.min) return `ttl must be at least ${card.ttl.min}`
      return { id: ++ids, host: b.host, ttl: b.ttl ?? card.ttl.default, type: b.type, data: b.data, ...Object.fromEntries((EXTRA[b.type] ?? []).map((k) => [k, b[k]])) }
    },
    created: (row) => json(201, { id: row.id }, { location: `/v0/domains/0/dns/${row.id}` }),
    deleted: () => new Response(null, { status: 204 }),
    key: (r, z) => ({ name: r.host === '@' ? z.name : `${r.host}.${z.name}`, type: r.type, id: String(r.id) }),
  })
  return fake
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'domeneshop',
  reference: 'https://api.domeneshop.no/docs/#tag/dns',
  unpaged: { lists: ['zones', 'records'], why: 'GET /v0/domains and GET /v0/domains/{id}/dns answer whole lists' },
  start: () => startDomeneshopFake(),
  base: (f) => f.url,
  badCredential: 'wrong:wrong',
  foreignZone: { id: '999999', name: 'not-mine.example' },
  // An HTTP forward is the domain's setting, not a DNS record.
  seedRow: (z, row) => (row.forward ? (z.settings = { ...z.settings, forwards: [...((z.settings?.forwards as unknown[]) ?? []), row.forward] }) : z.records.push({ id: 50000 + parseInt(nextId().slice(-4), 16), ...row })),
}
