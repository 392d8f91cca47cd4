// deSEC DNS API v1, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/desec/card.ts): `Authorization: Token …`; errors `{detail}` (401 "Invalid
// token.", 404 "Not found.", 400 with per-field lists, 429 with Retry-After and the wait in its
// detail). Lists page by cursor: `?cursor=` is the first page, a `Link` header carries `rel="next"`; a
// long list asked without the parameter is a 400. RRsets `{subname, type, ttl, records}`; PUT on
// …/rrsets/{subname}/{type}/ creates or replaces a set (`@` is the apex), DELETE removes it (204); a
// bulk PATCH on …/rrsets/ applies a list of sets all or nothing (`records: []` removes one), answering
// 400 with one error object per set (empty for the sets that were fine). TXT records must be quoted;
// TTL from the domain's minimum_ttl (3600) to 86400; the apex NS set is deSEC's own.
import { desec as card } from './card.ts'
import { cardThrottle, json, nextId, servePage, startFake, type Fake, type FakeZone } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface DesecRRset {
  subname: string
  type: string
  ttl: number
  records: string[]
}

const detail = (status: number, text: string, headers: Record<string, string> = {}) => json(status, { detail: text }, headers)

/** What is wrong with one set of a write, as deSEC's per-field lists; null when it is fine. */
function refusal(zone: FakeZone<DesecRRset>, set: Partial<DesecRRset>, sets: DesecRRset[]): Record<string, string[]> | null {
  if (typeof set.type !== 'string' || typeof set.subname !== 'string') return { non_field_errors: ['subname and type are required.'] }
  if (!Array.isArray(set.records)) return { records: ['This field is required.'] }
  if (set.records.length === 0) return null
  if (set.type === 'TXT' && set.records.some((v) => !v.startsWith('"'))) return { records: ['TXT records must be quoted.'] }
  if (typeof set.ttl !== 'number' || set.ttl < card.ttl.min) return { ttl: [`Ensure this value is greater than or equal to ${card.ttl.min}.`] }
  if (set.ttl > card.ttl.max!) return { ttl: [`Ensure this value is less than or equal to ${card.ttl.max}.`] }
  if (set.subname === '' && set.type === 'NS') return { type: ['You cannot tinker with the NS RRset at the apex.'] }
  const others = sets.filter((s) => s.subname === set.subname && s.type !== set.type)
  if ((set.type === 'CNAME' && others.length) || others.some((s) => s.type === 'CNAME')) return { non_field_errors: [`RRset with conflicting type present: ${zone.name}. (CNAME cannot stand beside other types.)`] }
  return null
}

function apply(sets: DesecRRset[], set: DesecRRset): DesecRRset[] {
  const rest = sets.filter((s) => !(s.subname === set.subname && s.type === set.type))
  return set.records.length ? [...rest, { subname: set.subname, type: set.type, ttl: set.ttl, records: set.records }] : rest
}

export function startDesecFake(token = nextId('desec').padEnd(28, 'd')): Fake<DesecRRset> {
  return startFake<DesecRRset>({
    credential: token,
    zoneId: (name) => name,
    retryAfter: 7,
    throttled: cardThrottle(card, 7),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Token ${token}`) return detail(401, 'Invalid token.')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const cursor = url.searchParams.get('cursor')
        if (cursor === null && rows.length > 3) return json(400, { detail: 'Pagination required. You can query up to 3 items at a time.' })
        const page = Number(cursor || 1)
        const s = servePage(f, kind, rows, page)
        // deSEC names its own origin (desec.readthedocs.io, "Pagination": `Link: <https://desec.io/api/v1/domains/{name}/rrsets/?cursor=:next_cursor>; rel="next"`).
        const link = page < s.last ? `<https://desec.io${url.pathname}?cursor=${page + 1}>; rel="next"` : ''
        return json(200, s.items, link ? { link } : {})
      }
      if (req.method === 'GET' && url.pathname === '/api/v1/domains/') return list('zones', f.zones.map((z) => ({ name: z.name, minimum_ttl: card.ttl.min, created: '2026-01-01T00:00:00Z', published: '2026-01-01T00:00:00Z', touched: '2026-01-01T00:00:00Z' })))
      const m = /^\/api\/v1\/domains\/([^/]+)\/rrsets\/(?:([^/]+)\/([A-Z]+)\/)?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return detail(404, 'Not found.')
      if (req.method === 'GET' && !m[2]) return list('records', zone.records)
      if (req.method === 'PATCH' && !m[2]) {
        const body = (await req.json()) as Partial<DesecRRset>[]
        if (!Array.isArray(body)) return json(400, { non_field_errors: ['Expected a list of items.'] })
        let next = [...zone.records]
        const errors = body.map((set) => {
          const why = refusal(zone, set, next)
          if (!why) next = apply(next, set as DesecRRset)
          return why ?? {}
        })
        if (errors.some((e) => Object.keys(e).length)) return json(400, errors)
        zone.records = next
        return json(200, next.filter((s) => body.some((b) => b.subname === s.subname && b.type === s.type)))
      }
      const sub = m[2] === '@' ? '' : decodeURIComponent(m[2] ?? '')
      const i = zone.records.findIndex((s) => s.subname === sub && s.type === m[3])
      if (req.method === 'PUT' && m[2]) {
        const b = (await req.json()) as Partial<DesecRRset>
        const set = { subname: sub, type: m[3]!, ttl: b.ttl!, records: b.records! }
        const why = Array.isArray(b.records) && b.records.length === 0 ? { records: ['This field is required.'] } : refusal(zone, set, zone.records)
        if (why) return json(400, why)
        zone.records = apply(zone.records, set)
        return json(i === -1 ? 201 : 200, set)
      }
      if (req.method === 'DELETE' && m[2]) {
        if (i !== -1) zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      return detail(405, `Method "${req.method}" not allowed.`)
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'desec',
  reference: 'https://desec.readthedocs.io/en/latest/dns/rrsets.html',
  start: () => startDesecFake(),
  base: (f) => f.url + '/api/v1',
  badCredential: 'wrong-token',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // deSEC names a set by `subname`, empty at the apex.
  rowKey: (r, zone) => ({ name: r.subname ? `${String(r.subname).toLowerCase()}.${zone}` : zone, type: r.type }),
}
