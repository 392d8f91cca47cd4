// Cloudflare API v4, the parts the adapter uses (https://developers.cloudflare.com/api/resources/dns/):
// Bearer token; `{success, errors, messages, result, result_info}` envelopes; 10000 "Authentication
// error" (403 for a bad token), 971 throttling (429 with Retry-After), 7003 "Could not route to
// /zones/…" (404 for an unknown zone id), 81057 "Record already exists" (400). Records keep
// `content`, MX `priority`, CAA `data: {flags, tag, value}` (with `content` derived), TXT content
// returned as stored (quoted or bare: lexicon's recording shows a bare TXT taken and answered as
// written), each record with its `zone_id` and `zone_name`; zone and record listings take the `name`
// (and `type`) filters (test/fixtures/provider-recordings/cloudflare.json). POST …/dns_records/batch runs deletes then posts against a copy and commits
// all or nothing (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/batch/).
import { cloudflare as card } from './card.ts'
import { cardThrottle, json, nextId, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface CfRecord {
  id: string
  type: string
  name: string
  content: string
  ttl: number
  priority?: number
  data?: { flags: number; tag: string; value: string }
  proxied?: boolean
  comment?: string | null
  tags?: string[]
  [field: string]: unknown
}

const envelope = (result: unknown, info?: object) => ({ success: true, errors: [], messages: [], result, ...(info ? { result_info: info } : {}) })
const fail = (status: number, code: number, message: string) => json(status, { success: false, errors: [{ code, message }], messages: [], result: null })

function page<T>(fake: Fake<any>, list: 'zones' | 'records', items: T[], url: URL, max: number) {
  const per = Number(url.searchParams.get('per_page') ?? 20)
  if (per < 5 || per > max) return null
  const p = Number(url.searchParams.get('page') ?? 1)
  const s = servePage(fake, list, items, p, per)
  return { slice: s.items, info: { page: p, per_page: s.size, count: s.items.length, total_count: s.total, total_pages: s.last } }
}

type Zone = { id: string; name: string; records: CfRecord[] }

/** A new record in `records`, or the error Cloudflare answers for it. */
function create(zone: Zone, records: CfRecord[], b: Partial<CfRecord>): CfRecord | Response {
  if (!b.type || !b.name || (b.content === undefined && !b.data)) return fail(400, 9005, 'Content for record is invalid')
  const name = b.name === '@' ? zone.name : b.name.endsWith(zone.name) ? b.name : `${b.name}.${zone.name}`
  const content = b.type === 'CAA' && b.data ? `${b.data.flags} ${b.data.tag} "${b.data.value}"` : b.content!
  if (records.some((r) => r.name === name && r.type === b.type && r.content === content && r.priority === b.priority)) return fail(400, 81057, 'Record already exists.')
  // Below the apex a CNAME stands alone; at the apex (flattened) it may not sit beside A or AAAA.
  const clash = (other: string) => (name === zone.name ? ['A', 'AAAA', 'CNAME'].includes(other) : true)
  if (b.type === 'CNAME' ? records.some((r) => r.name === name && clash(r.type)) : records.some((r) => r.name === name && r.type === 'CNAME' && clash(b.type!))) {
    return fail(400, 81053, 'An A, AAAA, or CNAME record with that host already exists.')
  }
  const rec: CfRecord = {
    id: nextId('rec').padEnd(32, '0'),
    zone_id: zone.id,
    zone_name: zone.name,
    type: b.type,
    name,
    content,
    ttl: b.ttl ?? 1,
    ...(b.priority !== undefined ? { priority: b.priority } : {}),
    ...(b.data ? { data: b.data } : {}),
    proxied: b.proxied ?? false,
    ...(b.comment ? { comment: b.comment } : {}),
    ...(b.tags ? { tags: b.tags } : {}),
  }
  records.push(rec)
  return rec
}

/**
 * Answers a test injects with `refuseNext`: `changedMeanwhile`, someone's change landing between
 * Portico's read and its batch (`edit` applies it: a record rewritten under a new id), so the batch's
 * delete by the old id is refused, all or nothing: 404 81044 "Record does not exist."
 * (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/batch/).
 */
export const CF_REFUSALS = {
  changedMeanwhile: (edit: () => void) => () => {
    edit()
    return fail(404, 81044, 'Record does not exist.')
  },
}

export function startCloudflareFake(token = 'cf-token-' + nextId()): Fake<CfRecord> {
  return startFake<CfRecord>({
    credential: token,
    zoneId: () => nextId('023e105f4ecef8ad9ca31a8372d0c3').slice(-32),
    retryAfter: 9,
    throttled: cardThrottle(card, 9),
    async handle(req, url, fake) {
      if (req.headers.get('authorization') !== `Bearer ${token}`) return fail(403, 10000, 'Authentication error')
      const path = url.pathname.replace(/^\/client\/v4/, '')
      if (req.method === 'GET' && path === '/zones') {
        const named = url.searchParams.get('name')
        const pg = page(fake, 'zones', fake.zones.filter((z) => !named || z.name === named).map((z) => ({ id: z.id, name: z.name, status: z.status ?? 'active', name_servers: z.nameServers ?? ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'] })), url, 50)
        if (!pg) return fail(400, 1004, 'per_page must be between 5 and 50')
        return json(200, envelope(pg.slice, pg.info))
      }
      const m = /^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/.exec(path)
      const zone = m && fake.zones.find((z) => z.id === m[1])
      if (!m || !zone) return fail(404, 7003, `Could not route to ${path}, perhaps your object identifier is invalid?`)
      if (req.method === 'GET' && !m[2]) {
        const type = url.searchParams.get('type'), name = url.searchParams.get('name')
        const pg = page(fake, 'records', zone.records.filter((r) => (!type || r.type === type) && (!name || r.name === name)), url, 5000)
        if (!pg) return fail(400, 1004, 'per_page must be between 5 and 5000')
        return json(200, envelope(pg.slice, pg.info))
      }
      if (req.method === 'POST' && !m[2]) {
        const rec = create(zone, zone.records, (await req.json()) as Partial<CfRecord>)
        return rec instanceof Response ? rec : json(200, envelope(rec))
      }
      if (req.method === 'POST' && m[2] === 'batch') {
        const b = (await req.json()) as { deletes?: { id: string }[]; posts?: Partial<CfRecord>[] }
        const next = [...zone.records]
        for (const d of b.deletes ?? []) {
          const i = next.findIndex((r) => r.id === d.id)
          if (i === -1) return fail(404, 81044, 'Record does not exist.')
          next.splice(i, 1)
        }
        const posts: CfRecord[] = []
        for (const p of b.posts ?? []) {
          const rec = create(zone, next, p)
          if (rec instanceof Response) return rec
          posts.push(rec)
        }
        zone.records = next
        return json(200, envelope({ deletes: b.deletes ?? [], posts, patches: [], puts: [] }))
      }
      if (req.method === 'DELETE' && m[2]) {
        const i = zone.records.findIndex((r) => r.id === m[2])
        if (i === -1) return fail(404, 81044, 'Record does not exist.')
        zone.records.splice(i, 1)
        return json(200, envelope({ id: m[2] }))
      }
      return fail(405, 10000, 'Method not allowed')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'cloudflare',
  reference: 'https://developers.cloudflare.com/api/resources/dns/subresources/records/',
  start: () => startCloudflareFake(),
  base: (f) => f.url + '/client/v4',
  badCredential: 'wrong-token',
  foreignZone: { id: 'ZNOTMINE000', name: 'not-mine.example' },
  seedRow: (z, row) => z.records.push({ id: nextId('rec').padEnd(32, '0'), ...row }),
}
