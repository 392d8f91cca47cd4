// Exoscale API v2 DNS, the parts the adapter uses (https://openapi-v2.exoscale.com/topic/topic-api-request-signature,
// …/operation/create-dns-domain-record): every request's EXO2-HMAC-SHA256 signature is recomputed with
// the key's secret and its expiry checked (403 "Invalid request signature" otherwise); errors
// `{message}` (404 "DNS domain not found", 400, 429 with Retry-After); both lists are whole. Records
// `{id, name, type, content, ttl, priority, system-record}`; writes answer an operation `{id, state:
// pending, reference}` whose outcome is known from GET /operation/{id} (`success`, or `failure` with a
// `reason` for a write accepted and then not carried out: `failNextOperation`), as egoscale v3's
// Client.Wait polls it.
// The contract test holds both sides to Exoscale's OpenAPI document
// (test/fixtures/provider-openapi/exoscale.json); answers as the card says (src/adapters/dns-providers/exoscale/card.ts).
import { createHmac } from 'node:crypto'
import { exoscale as card } from './card.ts'
import { cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'

const TYPES = new Set(card.records.types.filter((t) => t !== 'SOA'))
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { Fake, FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface ExoRecord {
  id: string
  name: string
  type: string
  content: string
  ttl: number
  priority?: number
  'system-record': boolean
}

export interface ExoscaleFake extends Fake<ExoRecord> {
  /** The next `times` writes (`METHOD path`) matching `what` answer a pending operation and are not carried out; the operation ends `failure` with `reason`. */
  failNextOperation(what: RegExp, times?: number, reason?: string): void
  /** GET /operation/{id} asked so far. */
  polls: number
}

export function startExoscaleFake(key = 'EXO' + nextId().padEnd(21, '0'), secret = nextId('sec').padEnd(43, 'x')): ExoscaleFake {
  const err = (status: number, message: string, headers: Record<string, string> = {}) => json(status, { message }, headers)
  const operations = new Map<string, { reference: string; reason: string | null }>()
  const failing: { what: RegExp; times: number; reason: string }[] = []
  const view = (id: string, state: string) => {
    const o = operations.get(id)!
    return { id, state, reference: { id: o.reference }, ...(state === 'failure' ? { reason: o.reason!, message: 'The operation failed' } : {}) }
  }
  /** A write accepted: its operation, pending; it ends `failure` with `reason` (null: success). */
  const op = (reference: string, reason: string | null = null) => {
    const id = crypto.randomUUID()
    operations.set(id, { reference, reason })
    return json(200, view(id, 'pending'))
  }
  let body = ''
  const fake = startRowFake<ExoRecord>({
    credential: `${key}:${secret}`,
    async body(req) {
      return body ? JSON.parse(body) : {}
    },
    authorized(req, url) {
      // The signature covers the body, so the loop reads it here once (a Request body reads once).
      const m = /^EXO2-HMAC-SHA256 credential=([^,]+),expires=(\d+),signature=(.+)$/.exec(req.headers.get('authorization') ?? '')
      if (!m || m[1] !== key || Number(m[2]) < Date.now() / 1000) return false
      return m[3] === createHmac('sha256', secret).update(`${req.method} ${url.pathname}\n${body}\n\n\n${m[2]}`).digest('base64')
    },
    errors: { unauthorized: () => err(403, 'Invalid request signature'), notFound: () => err(404, 'DNS domain not found'), invalid: (m) => err(400, m), throttled: cardThrottle(card, 14) },
    retryAfter: 14,
    zoneId: () => crypto.randomUUID(),
    extra(req, url) {
      const o = /^\/v2\/operation\/([^/]+)$/.exec(url.pathname)
      if (req.method === 'GET' && o) {
        const known = operations.get(o[1]!)
        if (!known) return err(404, 'Operation not found')
        fake.polls++
        return json(200, view(o[1]!, known.reason ? 'failure' : 'success'))
      }
      const fails = req.method !== 'GET' && failing.find((x) => x.times > 0 && x.what.test(`${req.method} ${url.pathname}`))
      if (!fails) return null
      fails.times--
      return op(crypto.randomUUID(), fails.reason)
    },
    routes: { zones: /^\/v2\/dns-domain$/, records: /^\/v2\/dns-domain\/(?<zone>[^/]+)\/record$/, record: /^\/v2\/dns-domain\/(?<zone>[^/]+)\/record\/(?<id>[^/]+)$/ },
    zoneRow: (z) => ({ id: z.id, 'unicode-name': z.name, 'created-at': '2026-01-01T00:00:00Z' }),
    list: (_f, kind, rows) => json(200, kind === 'zones' ? { 'dns-domains': rows } : { 'dns-domain-records': rows }),
    create(b) {
      if (typeof b.name !== 'string' || typeof b.type !== 'string' || typeof b.content !== 'string' || !b.content) return 'name, type and content are required'
      if (!TYPES.has(b.type)) return `Invalid record type ${b.type}`
      if (b.type === 'SRV' && b.priority === undefined) return 'SRV records need a priority'
      return { id: crypto.randomUUID(), name: b.name, type: b.type, content: b.content, ttl: b.ttl ?? 3600, ...(b.priority !== undefined ? { priority: b.priority } : {}), 'system-record': false }
    },
    created: (row) => op(row.id),
    deleted: () => op(crypto.randomUUID()),
    key: (r, z) => ({ name: r.name === '' ? z.name : `${r.name}.${z.name}`, type: r.type, id: r.id }),
    /** Reads the body before the signature check (see `authorized`). */
    async prepare(req: Request) {
      body = req.method === 'POST' || req.method === 'PUT' ? await req.text() : ''
    },
  }) as ExoscaleFake
  fake.polls = 0
  fake.failNextOperation = (what, times = 1, reason = 'fault') => void failing.push({ what, times, reason })
  return fake
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'exoscale',
  reference: 'https://openapi-v2.exoscale.com/topic/topic-api-request-signature',
  unpaged: { lists: ['zones', 'records'], why: 'GET /dns-domain and …/record answer whole lists' },
  start: () => startExoscaleFake(),
  base: (f) => f.url + '/v2',
  badCredential: 'EXOwrong:wrong',
  foreignZone: { id: '00000000-0000-0000-0000-000000000000', name: 'not-mine.example' },
  seedRow: (z, row) => z.records.push({ id: crypto.randomUUID(), ...row }),
}
