// Gcore DNS API v2, the parts the adapter uses (https://api.gcore.com/docs/dns#tag/RRsets): `APIKey`
// authorization; errors `{error}` (401 "invalid token", 404 "zone not found" / "rrset not found",
// 409 "rrset already exists", 400, 429 with Retry-After); lists paged by `limit`/`offset` with
// `total_amount`. Record sets `{name, type, ttl, filters?, meta?, resource_records: [{content,
// enabled, id, meta?}]}`; rate limit as the card says (src/adapters/dns-providers/gcore/card.ts).
import { gcore as card } from './card.ts'
import { cardThrottle, json, nextId, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface GcoreRRset {
  name: string
  type: string
  ttl: number
  resource_records: { id: number; content: (string | number)[]; enabled: boolean; meta?: Record<string, unknown> }[]
  filters?: unknown[]
  meta?: Record<string, unknown>
}

export function startGcoreFake(token = `${Math.floor(Math.random() * 9000) + 1000}$${nextId().padEnd(60, 'g')}`): Fake<GcoreRRset> {
  let ids = 1
  const err = (status: number, error: string, headers: Record<string, string> = {}) => json(status, { error }, headers)
  return startFake<GcoreRRset>({
    credential: token,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `APIKey ${token}`) return err(401, 'invalid token')
      const list = (kind: 'zones' | 'records', key: string, rows: unknown[]) => {
        const offset = Number(url.searchParams.get('offset') ?? 0)
        const limit = Number(url.searchParams.get('limit') ?? 100)
        const size = Math.min(limit, 3)
        const s = servePage(f, kind, rows, Math.floor(offset / size) + 1, size)
        return json(200, { [key]: rows.slice(offset, offset + s.size), total_amount: s.total })
      }
      if (req.method === 'GET' && url.pathname === '/dns/v2/zones') return list('zones', 'zones', f.zones.map((z) => ({ id: z.name.length, name: z.name, records_count: z.records.length })))
      const m = /^\/dns\/v2\/zones\/([^/]+)\/(?:(rrsets)|([^/]+)\/([A-Z]+))$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'zone not found')
      if (req.method === 'GET' && m[2]) return list('records', 'rrsets', zone.records)
      const name = decodeURIComponent(m[3] ?? '')
      const type = m[4]!
      const i = zone.records.findIndex((s) => s.name === name && s.type === type)
      if (req.method === 'POST' || req.method === 'PUT') {
        const b = (await req.json()) as { ttl?: number; resource_records?: { content: (string | number)[] }[] }
        if (!Array.isArray(b.resource_records) || b.resource_records.length === 0 || b.resource_records.some((r) => !Array.isArray(r.content) || r.content.length === 0)) return err(400, 'resource_records: content is required')
        if (req.method === 'POST' && i !== -1) return err(409, 'rrset already exists')
        if (req.method === 'PUT' && i === -1) return err(404, 'rrset not found')
        const others = zone.records.filter((s) => s.name === name && s.type !== type)
        // At the zone apex Gcore flattens a CNAME (dnscontrol commit 5dfc8ca: "Gcore auto uses ALIAS for
        // apex zone CNAME records, just like CloudFlare"), so it may stand beside the apex's other sets.
        if (name !== zone.name && ((type === 'CNAME' && others.length) || others.some((s) => s.type === 'CNAME'))) return err(400, 'CNAME rrset conflicts with other rrsets of the name')
        const set: GcoreRRset = { name, type, ttl: b.ttl ?? 300, resource_records: b.resource_records.map((r) => ({ id: ++ids, content: r.content, enabled: true })) }
        if (i === -1) zone.records.push(set)
        else zone.records[i] = set
        return json(200, set)
      }
      if (req.method === 'DELETE') {
        if (i === -1) return err(404, 'rrset not found')
        zone.records.splice(i, 1)
        return json(200, {})
      }
      return err(405, 'method not allowed')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'gcore', reference: 'https://api.gcore.com/docs/dns#tag/RRsets', start: () => startGcoreFake(), base: (f) => f.url, badCredential: '1$wrong', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } }
