// Hetzner Cloud API, zones and zone RRsets, the parts the adapter uses
// (https://docs.hetzner.cloud/reference/cloud#zones, #zone-rrsets, #zone-rrset-actions): Bearer token;
// errors `{"error": {"code", "message", "details"}}` (401 unauthorized, 404 not_found, 409
// uniqueness_error for a set that exists, 422 invalid_input, 429 rate_limit_exceeded); lists paged
// with `meta.pagination {page, per_page, previous_page, next_page, last_page, total_entries}`.
// RRset ids are `name/TYPE`; mutations answer 201 with an `action` still `running`, and its outcome is
// known from GET /actions/{id} (#zone-rrset-actions, #actions; hcloud-go's Action WaitFor polls it):
// `success`, or `error` with `error {code, message}` for a write accepted and then not carried out
// (`failNextAction`). 423 `locked` answers a write while another action runs (#errors; HZ_REFUSALS).
import { hetzner as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface HzRRset {
  id: string
  name: string
  type: string
  ttl: number | null
  records: { value: string; comment?: string }[]
  /** Change protection: the set cannot be changed or deleted while it is on. */
  protection?: { change: boolean }
  labels?: Record<string, string>
}

const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) => json(status, { error: { code, message, details: {} } }, headers)
let actions = 0
/** Hetzner's answers a test may put in place of a write (https://docs.hetzner.cloud/reference/cloud#errors). */
export const HZ_REFUSALS = {
  /** "The item you are trying to access is locked (there is already an Action running)". */
  locked: () => error(423, 'locked', 'the item you are trying to access is locked (there is already an action running)'),
  /** "The resource has changed during the request, please retry". */
  conflict: () => error(409, 'conflict', 'the resource has changed during the request, please retry'),
}

export interface HetznerFake extends Fake<HzRRset> {
  /** The next `times` writes (`METHOD path`) matching `what` answer 201 with a running action and are not carried out; the action ends `error` (action_failed unless `code`). */
  failNextAction(what: RegExp, times?: number, code?: string): void
  /** GET /actions/{id} asked so far. */
  polls: number
}

const NAMESERVERS = ['hydrogen.ns.hetzner.com.', 'oxygen.ns.hetzner.com.', 'helium.ns.hetzner.de.']

export function startHetznerFake(token = 'hc' + nextId().padEnd(62, 'x')): HetznerFake {
  let zoneIds = 1000
  const started = new Map<number, { command: string; resource: number; error: { code: string; message: string } | null }>()
  const failing: { what: RegExp; times: number; code: string }[] = []
  const actionView = (id: number, status: string) => {
    const a = started.get(id)!
    const at = new Date().toISOString()
    return { id, command: a.command, status, progress: status === 'running' ? 0 : 100, started: at, finished: status === 'running' ? null : at, resources: [{ id: a.resource, type: 'zone' }], error: status === 'error' ? a.error : null }
  }
  /** A write accepted: its action, running; it ends as `error` carries (null: success). */
  const action = (command: string, zone: string, error: { code: string; message: string } | null = null) => {
    started.set(++actions, { command, resource: Number(zone), error })
    return actionView(actions, 'running')
  }
  const fake = startFake<HzRRset>({
    credential: token,
    zoneId: () => String(++zoneIds),
    retryAfter: 4,
    throttled: cardThrottle(card, 4),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Bearer ${token}`) return error(401, 'unauthorized', 'unable to authenticate')
      const path = url.pathname.replace(/^\/v1/, '')
      const act = /^\/actions\/(\d+)$/.exec(path)
      if (req.method === 'GET' && act) {
        const a = started.get(Number(act[1]))
        if (!a) return error(404, 'not_found', 'action not found')
        fake.polls++
        return json(200, { action: actionView(Number(act[1]), a.error ? 'error' : 'success') })
      }
      const pg = (list: 'zones' | 'records', key: string, items: unknown[]) => {
        const p = Number(url.searchParams.get('page') ?? 1)
        // As many as per_page asks (default 25, most 50), as the reference says.
        const size = Math.min(Number(url.searchParams.get('per_page') ?? 25), 50)
        const s = { items: askedPage(f, list, items, (p - 1) * size, size, 50), size, last: Math.max(1, Math.ceil(items.length / size)), total: items.length }
        return json(200, { [key]: s.items, meta: { pagination: { page: p, per_page: s.size, previous_page: p > 1 ? p - 1 : null, next_page: p < s.last ? p + 1 : null, last_page: s.last, total_entries: s.total } } })
      }
      // A Zone and an RRSet with every property the published document requires of them.
      const zoneView = (z: (typeof f.zones)[number]) => ({
        id: Number(z.id),
        name: z.name,
        created: '2026-01-30T23:55:00Z',
        mode: 'primary',
        primary_nameservers: [],
        labels: {},
        protection: { delete: false },
        ttl: 3600,
        status: 'ok',
        record_count: z.records.length,
        authoritative_nameservers: { assigned: NAMESERVERS, delegated: NAMESERVERS, delegation_last_check: '2026-01-31T00:00:00Z', delegation_status: 'valid' },
        registrar: 'other',
      })
      const rrsetView = (z: (typeof f.zones)[number], s: HzRRset) => ({ labels: {}, protection: { change: false }, ...s, zone: Number(z.id) })
      if (req.method === 'GET' && path === '/zones') return pg('zones', 'zones', f.zones.map(zoneView))
      const m = /^\/zones\/([^/]+)(\/rrsets(?:\/([^/]+)\/([A-Z]+)(\/actions\/(set_records|change_ttl))?)?)?$/.exec(path)
      const zone = m && f.zones.find((z) => z.id === m[1] || z.name === m[1])
      if (!m || !zone) return error(404, 'not_found', 'zone not found')
      if (req.method === 'GET' && !m[2]) return json(200, { zone: zoneView(zone) })
      if (req.method === 'GET' && !m[3]) return pg('records', 'rrsets', zone.records.map((s) => rrsetView(zone, s)))
      const body = req.method === 'POST' ? ((await req.json()) as any) : {}
      // A write accepted and then not carried out: the action ends in error.
      const fails = req.method !== 'GET' && failing.find((x) => x.times > 0 && x.what.test(`${req.method} ${path}`))
      if (fails) {
        fails.times--
        return json(201, { action: action(m[6] ?? (req.method === 'DELETE' ? 'delete_rrset' : 'create_rrset'), zone.id, { code: fails.code, message: 'Action failed' }) })
      }
      const valid = (recs: unknown) => Array.isArray(recs) && recs.length > 0 && recs.every((r: any) => typeof r?.value === 'string' && r.value !== '')
      const txtOk = (type: string, recs: { value: string }[]) => type !== 'TXT' || recs.every((r) => /^"/.test(r.value))
      if (req.method === 'POST' && !m[3]) {
        if (!body.name || !body.type || !valid(body.records) || !txtOk(body.type, body.records)) return error(422, 'invalid_input', 'invalid input in fields records')
        if (zone.records.some((s) => s.name === body.name && s.type === body.type)) return error(409, 'uniqueness_error', 'rrset already exists')
        const clash = body.type === 'CNAME' ? zone.records.some((s) => s.name === body.name) : zone.records.some((s) => s.name === body.name && s.type === 'CNAME')
        if (clash) return error(422, 'invalid_input', 'CNAME records cannot coexist with other records of the same name')
        const rr: HzRRset = { id: `${body.name}/${body.type}`, name: body.name, type: body.type, ttl: body.ttl ?? null, records: body.records }
        zone.records.push(rr)
        return json(201, { rrset: rrsetView(zone, rr), action: action('create_rrset', zone.id) })
      }
      const set = zone.records.find((s) => s.name === decodeURIComponent(m[3]!) && s.type === m[4])
      if (!set) return error(404, 'not_found', 'rrset not found')
      if (set.protection?.change && (req.method === 'DELETE' || m[6])) return error(423, 'protected', 'the rrset is protected against changes')
      if (req.method === 'DELETE' && !m[5]) {
        zone.records.splice(zone.records.indexOf(set), 1)
        return json(201, { action: action('delete_rrset', zone.id) })
      }
      if (req.method === 'POST' && m[6] === 'set_records') {
        if (!valid(body.records) || !txtOk(set.type, body.records)) return error(422, 'invalid_input', 'invalid input in fields records')
        set.records = body.records
        return json(201, { action: action('set_rrset_records', zone.id) })
      }
      if (req.method === 'POST' && m[6] === 'change_ttl') {
        set.ttl = body.ttl ?? null
        return json(201, { action: action('change_rrset_ttl', zone.id) })
      }
      return error(405, 'method_not_allowed', 'method not allowed')
    },
  }) as HetznerFake
  fake.polls = 0
  fake.failNextAction = (what, times = 1, code = 'action_failed') => void failing.push({ what, times, code })
  return fake
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'hetzner',
  reference: 'https://docs.hetzner.cloud/reference/cloud#zone-rrsets',
  start: () => startHetznerFake(),
  base: (f) => f.url + '/v1',
  badCredential: 'wrong-token',
  foreignZone: { id: '999999', name: 'not-mine.example' },
  // One RRSet per name and type (its id is `name/type`): a seeded set takes the place of one already there.
  seedRow: (z, row) => {
    const set = { id: `${row.name}/${row.type}`, ...row }
    const i = z.records.findIndex((r) => r.id === set.id)
    if (i === -1) z.records.push(set)
    else z.records[i] = set
  },
  // The adapter asks 50 a page; Hetzner answers as many as asked, up to 50.
  pageFill: { zones: 51, records: { count: 50, row: (_z, i) => ({ id: `filler${i}/TXT`, name: `filler${i}`, type: 'TXT', ttl: null, records: [{ value: `"filler-${i}"` }] }) } },
}
