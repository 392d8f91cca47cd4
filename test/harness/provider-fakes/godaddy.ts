// GoDaddy Domains API v1, the parts the adapter uses (https://developer.godaddy.com/doc/endpoint/domains):
// `Authorization: sso-key KEY:SECRET`; errors `{code, message}`: 401 UNABLE_TO_AUTHENTICATE, 404
// UNKNOWN_DOMAIN, 429 TOO_MANY_REQUESTS with `retryAfterSec`, 422 INVALID_BODY with `fields`.
// Records: GET …/records; PUT …/records/{type}/{name} replaces every record of that type and name;
// DELETE …/records/{type}/{name} (204, 404 when there is none). Domains are paged by `marker` and
// `limit`, records by `offset` and `limit`. An account GoDaddy does not open the API to (fewer than
// ten domains and no qualifying plan) gets 403 ACCESS_DENIED on every call: the fake answers that to
// the key GODADDY_SMALL_ACCOUNT.
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export const GODADDY_SMALL_ACCOUNT = 'gd_small_account:secret'

export interface GdRecord {
  type: string
  name: string
  data: string
  ttl: number
  priority?: number
}

export function startGoDaddyFake(key = 'gd_key_' + nextId(), secret = 'gd_secret_' + nextId()): Fake<GdRecord> {
  return startFake<GdRecord>({
    credential: `${key}:${secret}`,
    zoneId: (name) => name,
    retryAfter: 30,
    throttled: () => json(429, { code: 'TOO_MANY_REQUESTS', message: 'Too many requests received within interval', retryAfterSec: 30 }),
    async handle(req, url, f) {
      if (req.headers.get('authorization') === `sso-key ${GODADDY_SMALL_ACCOUNT}`) return json(403, { code: 'ACCESS_DENIED', message: 'Authenticated user is not allowed access' })
      if (req.headers.get('authorization') !== `sso-key ${key}:${secret}`) return json(401, { code: 'UNABLE_TO_AUTHENTICATE', message: 'Unable to authenticate' })
      if (req.method === 'GET' && url.pathname === '/v1/domains') {
        const all = f.zones.map((z) => ({ domain: z.name, domainId: z.id.length, status: 'ACTIVE' })).sort((a, b) => a.domain.localeCompare(b.domain))
        const marker = url.searchParams.get('marker')
        const from = marker ? all.filter((d) => d.domain > marker) : all
        const p = servePage(f, 'zones', from, 1, Number(url.searchParams.get('limit') ?? 500))
        if (marker) f.deepest.zones = Math.max(f.deepest.zones, 2)
        return json(200, p.items)
      }
      const m = /^\/v1\/domains\/([^/]+)\/records(?:\/([A-Z]+)\/([^/]+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return json(404, { code: 'UNKNOWN_DOMAIN', message: 'The given domain is not registered, or does not have a zone file' })
      if (req.method === 'GET' && !m[2]) {
        const limit = Number(url.searchParams.get('limit') ?? 500)
        const offset = Number(url.searchParams.get('offset') ?? 0)
        const p = servePage(f, 'records', zone.records.slice(offset), 1, limit)
        if (offset > 0) f.deepest.records = Math.max(f.deepest.records, 2)
        return json(200, p.items)
      }
      const [type, name] = [m[2], m[3] && decodeURIComponent(m[3])]
      if (req.method === 'PUT' && type && name) {
        const items = (await req.json()) as { data: string; ttl: number; priority?: number }[]
        if (!Array.isArray(items) || items.some((i) => !i.data)) return json(422, { code: 'INVALID_BODY', message: 'Request body doesn\'t fulfill schema', fields: [{ path: 'records', code: 'INVALID' }] })
        zone.records = zone.records.filter((r) => !(r.type === type && r.name === name)).concat(items.map((i) => ({ type, name, data: i.data, ttl: i.ttl, ...(i.priority !== undefined ? { priority: i.priority } : {}) })))
        return new Response(null, { status: 200 })
      }
      if (req.method === 'DELETE' && type && name) {
        const before = zone.records.length
        zone.records = zone.records.filter((r) => !(r.type === type && r.name === name))
        return before === zone.records.length ? json(404, { code: 'NOT_FOUND', message: 'Record not found' }) : new Response(null, { status: 204 })
      }
      return json(405, { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' })
    },
  })
}
