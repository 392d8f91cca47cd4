// Mythic Beasts DNS API v2, the parts the adapter uses (https://www.mythic-beasts.com/support/api/dnsv2):
// HTTP Basic key id and secret; errors `{error}` (401 "Authentication failed", 403 "Key not
// authorised for zone", 400, 429 with Retry-After); zone and record lists are whole. Records `{host,
// ttl, type, data, mx_priority?}`; PUT on host/type replaces those records (`{records_added,
// records_removed}`), DELETE removes them. An A or AAAA beside an ANAME is refused (the ANAME answers
// addresses itself). Answers as the card says (src/adapters/dns-providers/mythic-beasts/card.ts).
import { mythicBeasts as card } from './card.ts'
import { cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface MbRecord {
  host: string
  ttl: number
  type: string
  data: string
  mx_priority?: number
  [field: string]: unknown
}

const TYPES = new Set(card.records.types)

export function startMythicBeastsFake(id = nextId('mbk'), secret = nextId('mbs').padEnd(30, 'm')): Fake<MbRecord> {
  const err = (status: number, error: string, headers: Record<string, string> = {}) => json(status, { error }, headers)
  return startFake<MbRecord>({
    credential: `${id}:${secret}`,
    zoneId: (name) => name,
    retryAfter: 3,
    throttled: cardThrottle(card, 3),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Basic ${btoa(`${id}:${secret}`)}`) return err(401, 'Authentication failed')
      if (req.method === 'GET' && url.pathname === '/dns/v2/zones') return json(200, { zones: f.zones.map((z) => z.name) })
      const m = /^\/dns\/v2\/zones\/([^/]+)\/records(?:\/([^/]+)\/([A-Z]+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(403, 'Key not authorised for zone')
      if (req.method === 'GET' && !m[2]) return json(200, { records: zone.records })
      const host = decodeURIComponent(m[2] ?? '')
      const type = m[3]!
      const mine = (r: MbRecord) => r.host === host && r.type === type
      if (req.method === 'PUT') {
        const b = (await req.json()) as { records?: MbRecord[] }
        if (!Array.isArray(b.records) || b.records.length === 0 || b.records.some((r) => r.host !== host || r.type !== type || !r.data)) return err(400, 'records must match the host and type of the path and carry data')
        if (!TYPES.has(type)) return err(400, `Unsupported record type ${type}`)
        if (type === 'MX' && b.records.some((r) => typeof r.mx_priority !== 'number')) return err(400, 'MX records need mx_priority')
        if (b.records.some((r) => typeof r.ttl === 'number' && r.ttl < card.ttl.min)) return err(400, `TTL must be at least ${card.ttl.min}`)
        const others = zone.records.filter((r) => r.host === host && r.type !== type)
        if ((type === 'CNAME' && others.length) || others.some((r) => r.type === 'CNAME')) return err(400, 'CNAME records cannot coexist with other records')
        if (((type === 'A' || type === 'AAAA') && others.some((r) => r.type === 'ANAME')) || (type === 'ANAME' && others.some((r) => r.type === 'A' || r.type === 'AAAA'))) return err(400, 'ANAME records cannot coexist with A or AAAA records')
        const removed = zone.records.filter(mine).length
        zone.records = [...zone.records.filter((r) => !mine(r)), ...b.records.map((r) => ({ ...r, host, ttl: r.ttl ?? card.ttl.default, type, data: r.data }))]
        return json(200, { records_added: b.records.length, records_removed: removed })
      }
      if (req.method === 'DELETE') {
        const removed = zone.records.filter(mine).length
        zone.records = zone.records.filter((r) => !mine(r))
        return json(200, { records_removed: removed })
      }
      return err(405, 'Method not allowed')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'mythic-beasts', reference: 'https://www.mythic-beasts.com/support/api/dnsv2', unpaged: { lists: ['zones', 'records'], why: 'GET /dns/v2/zones and …/records answer whole lists' }, start: () => startMythicBeastsFake(), base: (f) => f.url, badCredential: 'wrong:wrong', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } }
