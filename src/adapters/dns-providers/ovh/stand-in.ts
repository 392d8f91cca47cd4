// OVHcloud API v1 domain zones, the parts the adapter uses (https://eu.api.ovh.com/console/?section=%2Fdomain,
// https://help.ovhcloud.com/csm/en-api-getting-started-ovhcloud-api): each request's X-Ovh-Signature is
// recomputed from the application secret and consumer key (403 "Invalid signature" /
// INVALID_CREDENTIAL otherwise); errors `{message, errorCode?, httpCode?}` (404 "This service does not
// exist", 400 "Invalid parameter", 429 "Too many requests" with Retry-After). Zone and record lists are
// whole lists (of names and of ids); a record is changed in place with PUT …/record/{id}; SPF, DKIM and
// DMARC are record types of their own; changes stay staged until POST /domain/zone/{zone}/refresh
// (src/adapters/dns-providers/ovh/card.ts).
import { createHash } from 'node:crypto'
import { ovh as card } from './card.ts'
import { cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface OvhRecord {
  id: number
  zone: string
  subDomain: string
  fieldType: string
  target: string
  ttl: number
}

export function startOvhFake(ak = nextId('ak'), as = nextId('as').padEnd(32, 's'), ck = nextId('ck').padEnd(32, 'c')): Fake<OvhRecord> & { refreshes: number } {
  let ids = 5_000_000
  const state = { refreshes: 0 }
  const err = (status: number, message: string, errorCode?: string, headers: Record<string, string> = {}) => json(status, { message, ...(errorCode ? { errorCode, httpCode: `${status}` } : {}) }, headers)
  const fake = startFake<OvhRecord>({
    credential: `${ak}:${as}:${ck}`,
    zoneId: (name) => name,
    retryAfter: 5,
    throttled: cardThrottle(card, 5),
    async handle(req, url, f) {
      const body = req.method === 'GET' || req.method === 'DELETE' ? '' : await req.text()
      const h = (n: string) => req.headers.get(n) ?? ''
      if (h('x-ovh-application') !== ak || h('x-ovh-consumer') !== ck) return err(403, 'This credential does not exist', 'INVALID_CREDENTIAL')
      const want = '$1$' + createHash('sha1').update([as, ck, req.method, `${f.url}${url.pathname}${url.search}`, body, h('x-ovh-timestamp')].join('+')).digest('hex')
      if (h('x-ovh-signature') !== want) return err(400, 'Invalid signature', 'INVALID_SIGNATURE')
      if (req.method === 'GET' && url.pathname === '/1.0/domain/zone') return json(200, f.zones.map((z) => z.name))
      const m = /^\/1\.0\/domain\/zone\/([^/]+)\/(record|refresh)(?:\/(\d+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'This service does not exist')
      if (m[2] === 'refresh' && req.method === 'POST') {
        state.refreshes++
        return json(200, null)
      }
      if (req.method === 'GET' && !m[3]) return json(200, zone.records.map((r) => r.id))
      const rec = m[3] ? zone.records.find((r) => r.id === Number(m[3])) : undefined
      if (req.method === 'GET') return rec ? json(200, rec) : err(404, `The requested object (id = ${m[3]}) does not exist`)
      if (req.method === 'POST' && !m[3]) {
        const b = JSON.parse(body || '{}') as Partial<OvhRecord>
        if (!b.fieldType || typeof b.target !== 'string' || !b.target) return err(400, 'Invalid parameter: target is required')
        if (b.fieldType === 'TXT' && !b.target.startsWith('"')) return err(400, 'Invalid parameter: TXT target must be quoted')
        const sub = b.subDomain ?? ''
        const same = zone.records.filter((r) => r.subDomain === sub)
        if ((b.fieldType === 'CNAME' && same.length) || same.some((r) => r.fieldType === 'CNAME')) return err(400, `Invalid domain name, a CNAME record already exists for ${sub || zone.name}`)
        const r: OvhRecord = { id: ++ids, zone: zone.name, subDomain: sub, fieldType: b.fieldType, target: b.target, ttl: b.ttl ?? 0 }
        zone.records.push(r)
        return json(200, r)
      }
      if (req.method === 'PUT' && rec) {
        const b = JSON.parse(body || '{}') as Partial<OvhRecord>
        if (b.target !== undefined && (typeof b.target !== 'string' || !b.target)) return err(400, 'Invalid parameter: target')
        Object.assign(rec, { ...(b.subDomain !== undefined ? { subDomain: b.subDomain } : {}), ...(b.target !== undefined ? { target: b.target } : {}), ...(b.ttl !== undefined ? { ttl: b.ttl } : {}) })
        return json(200, null)
      }
      if (req.method === 'DELETE' && rec) {
        zone.records.splice(zone.records.indexOf(rec), 1)
        return json(200, null)
      }
      return err(404, 'The requested object does not exist')
    },
  })
  return Object.assign(fake, state)
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'ovh',
  reference: 'https://eu.api.ovh.com/console/?section=%2Fdomain',
  unpaged: { lists: ['zones', 'records'], why: 'GET /domain/zone and …/record answer whole lists of names and ids' },
  start: () => startOvhFake(),
  base: (f) => f.url + '/1.0',
  badCredential: 'ak:as:wrong-consumer',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  seedRow: (z, row) => z.records.push({ id: 9_000_000 + z.records.length + Math.floor(Math.random() * 1e6), zone: z.name, ...row }),
}
