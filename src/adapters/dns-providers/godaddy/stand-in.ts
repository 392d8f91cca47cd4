// GoDaddy Domains API v1, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/godaddy/card.ts): `Authorization: sso-key KEY:SECRET`; errors `{code,
// message}`: 401 UNABLE_TO_AUTHENTICATE, 404 UNKNOWN_DOMAIN, 429 TOO_MANY_REQUESTS with `retryAfterSec`,
// 422 INVALID_BODY with `fields` (a TTL under 600 among them). Records: GET …/records (offset, limit);
// PUT …/records/{type}/{name} replaces every record of that type and name; DELETE …/records/{type}/{name}
// (204, 404 when there is none). Domains are paged by `marker` and `limit` (at most 1000), records by
// `offset` and `limit`; a page is as long as asked, so a short page is the last. With `editWindowMs`
// set, an edit within that time of the last one on the same domain gets GoDaddy's 409. An account
// GoDaddy does not open the API to gets 403 ACCESS_DENIED on every call: the fake answers that to the
// key GODADDY_SMALL_ACCOUNT.
import { godaddy as card } from './card.ts'
import { cardThrottle, askedPage, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export const GODADDY_SMALL_ACCOUNT = 'gd_small_account:secret'

export interface GdRecord {
  type: string
  name: string
  data: string
  ttl: number
  priority?: number
  [field: string]: unknown
}

const contact = { nameFirst: 'Pat', nameLast: 'Example', email: 'pat@example.net', phone: '+1.4805058800', addressMailing: { address1: '1 Example Way', city: 'Tempe', state: 'AZ', postalCode: '85281', country: 'US' } }
/** A DomainSummary as GET /v1/domains answers it (the Swagger's required fields). */
const summary = (domain: string, domainId: number) => ({
  domain,
  domainId,
  status: 'ACTIVE',
  expirationProtected: false,
  holdRegistrar: false,
  locked: true,
  privacy: false,
  renewAuto: true,
  renewDeadline: '2027-01-01T00:00:00.000Z',
  transferProtected: false,
  createdAt: '2020-01-01T00:00:00.000Z',
  contactRegistrant: contact,
  nameServers: ['ns01.domaincontrol.com', 'ns02.domaincontrol.com'],
})

const TYPES = new Set(['A', 'AAAA', 'CNAME', 'MX', 'NS', 'SOA', 'SRV', 'TXT', 'CAA'])
const cardError = (id: string) => card.errors.find((e) => e.id === id)!

export type GoDaddyFake = Fake<GdRecord> & { editWindowMs: number; conflicts: number }

export function startGoDaddyFake(key = 'gd_key_' + nextId(), secret = 'gd_secret_' + nextId()): GoDaddyFake {
  const lastEdit = new Map<string, number>()
  // The stand-in itself carries the switches (set by a test after it started).
  let state: GoDaddyFake
  const fake = startFake<GdRecord>({
    credential: `${key}:${secret}`,
    zoneId: (name) => name,
    retryAfter: 30,
    throttled: cardThrottle(card, 30),
    async handle(req, url, f) {
      if (req.headers.get('authorization') === `sso-key ${GODADDY_SMALL_ACCOUNT}`) return json(403, { code: 'ACCESS_DENIED', message: 'Authenticated user is not allowed access' })
      if (req.headers.get('authorization') !== `sso-key ${key}:${secret}`) return json(401, { code: 'UNABLE_TO_AUTHENTICATE', message: 'Unable to authenticate' })
      if (req.method === 'GET' && url.pathname === '/v1/domains') {
        const all = f.zones.map((z, i) => summary(z.name, i + 1)).sort((a, b) => a.domain.localeCompare(b.domain))
        const limit = Number(url.searchParams.get('limit') ?? 1000)
        if (!(limit >= 1 && limit <= 1000)) return json(422, { code: 'INVALID_BODY', message: 'limit must be between 1 and 1000' })
        const marker = url.searchParams.get('marker')
        const from = marker ? all.findIndex((d) => d.domain > marker) : 0
        return json(200, askedPage(f, 'zones', all, from === -1 ? all.length : from, limit, 1000))
      }
      const m = /^\/v1\/domains\/([^/]+)\/records(?:\/([A-Z]+)(?:\/([^/]+))?)?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return json(404, { code: 'UNKNOWN_DOMAIN', message: 'The given domain is not registered, or does not have a zone file' })
      const [type, name] = [m[2], m[3] && decodeURIComponent(m[3])]
      if (req.method === 'GET') {
        const limit = Number(url.searchParams.get('limit') ?? 500)
        const offset = Number(url.searchParams.get('offset') ?? 0)
        const rows = zone.records.filter((r) => (!type || r.type === type) && (!name || r.name === name))
        return json(200, askedPage(f, 'records', rows, offset, limit))
      }
      if ((req.method === 'PUT' || req.method === 'DELETE') && type && name) {
        const now = Date.now()
        if (state.editWindowMs > 0 && now - (lastEdit.get(zone.name) ?? 0) < state.editWindowMs) {
          state.conflicts++
          const t = card.temporary![0]!
          return json(t.status, t.body)
        }
        if (req.method === 'PUT') {
          const items = (await req.json()) as { data: string; ttl: number; priority?: number }[]
          if (!Array.isArray(items) || items.some((i) => typeof i?.data !== 'string' || !i.data) || !TYPES.has(type)) {
            return json(422, { code: 'INVALID_BODY', message: 'Request body doesn\'t fulfill schema, see details in `fields`', fields: [{ path: 'records', code: 'INVALID' }] })
          }
          const low = items.findIndex((i) => typeof i.ttl === 'number' && i.ttl < card.ttl.min)
          if (low !== -1) {
            const e = cardError('ttl')
            return json(e.status, { ...(e.body as object), fields: [{ code: 'UNKNOWN_RESTRICTION', message: `must have a minimum value of ${card.ttl.min}`, path: `records[${low}].ttl` }] })
          }
          zone.records = zone.records.filter((r) => !(r.type === type && r.name === name)).concat(items.map((i) => ({ type, name, data: i.data, ttl: i.ttl ?? card.ttl.default, ...(i.priority !== undefined ? { priority: i.priority } : {}) })))
          lastEdit.set(zone.name, now)
          return new Response(null, { status: 200 })
        }
        const before = zone.records.length
        zone.records = zone.records.filter((r) => !(r.type === type && r.name === name))
        if (before === zone.records.length) return json(404, { code: 'NOT_FOUND', message: 'Record not found' })
        lastEdit.set(zone.name, now)
        return new Response(null, { status: 204 })
      }
      return json(405, { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' })
    },
  })
  state = Object.assign(fake, { editWindowMs: 0, conflicts: 0 })
  return state
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'godaddy',
  reference: 'https://developer.godaddy.com/doc/endpoint/domains',
  start: () => startGoDaddyFake(),
  base: (f) => f.url,
  badCredential: 'wrongkey:wrongsecret',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 500 a page of both lists; GoDaddy answers as many as asked.
  pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ type: 'TXT', name: `filler${i}`, data: `filler-${i}`, ttl: 3600 }) } },
}
