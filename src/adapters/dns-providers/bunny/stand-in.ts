// bunny.net DNS API, the parts the adapter uses (https://docs.bunny.net/reference/dnszonepublic_index,
// …/dnszonepublic_addrecord, …/dnszonepublic_deleterecord): `AccessKey` header; errors `{ErrorKey,
// Field, Message}` (401, 404 `dnszone.not_found` / `dnsrecord.not_found`, 400 `validation_error`,
// 429 as the card says: src/adapters/dns-providers/bunny/card.ts). GET /dnszone pages `{Items,
// CurrentPage, TotalItems, HasMoreItems}`; a zone's records come inside the zone, unpaged. Record
// `Type` is numeric; a record keeps the settings it was added with (Weight, MonitorType, Comment…).
import { bunny as card } from './card.ts'
import { cardThrottle, json, nextId, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface BunnyRecord {
  Id: number
  Type: number
  Ttl: number
  Value: string
  Name: string
  Weight: number
  Priority: number
  Flags: number
  Tag: string
  Disabled: boolean
  [setting: string]: unknown
}

/** Settings a record is added with and keeps (the reference's add-record fields beyond its value). */
const SETTINGS = ['Weight', 'Port', 'Accelerated', 'PullZoneId', 'ScriptId', 'LinkName', 'MonitorType', 'GeolocationLatitude', 'GeolocationLongitude', 'LatencyZone', 'SmartRoutingType', 'Disabled', 'Comment']

export function startBunnyFake(key = nextId('bunny-').padEnd(72, '0')): Fake<BunnyRecord> {
  let ids = 700
  const err = (status: number, ErrorKey: string, Message: string, headers: Record<string, string> = {}) => json(status, { ErrorKey, Field: 'Id', Message }, headers)
  return startFake<BunnyRecord>({
    credential: key,
    zoneId: () => String(++ids),
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      if (req.headers.get('accesskey') !== key) return json(401, { Message: 'Authorization has been denied for this request.' })
      const zoneBody = (z: (typeof f.zones)[number]) => ({ Id: Number(z.id), Domain: z.name, Records: z.records, Nameserver1: 'kiki.bunny.net', Nameserver2: 'coco.bunny.net' })
      if (req.method === 'GET' && url.pathname === '/dnszone') {
        const page = Number(url.searchParams.get('page') ?? 1)
        const s = servePage(f, 'zones', f.zones.map(zoneBody), page, Number(url.searchParams.get('perPage') ?? 1000))
        return json(200, { Items: s.items, CurrentPage: page, TotalItems: s.total, HasMoreItems: page < s.last })
      }
      const m = /^\/dnszone\/(\d+)(?:\/records(?:\/(\d+))?)?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.id === m[1])
      if (!m || !zone) return err(404, 'dnszone.not_found', 'The requested DNS zone was not found')
      if (req.method === 'GET' && !url.pathname.includes('/records')) return json(200, zoneBody(zone))
      if (req.method === 'PUT' && !m[2]) {
        const b = (await req.json()) as Partial<BunnyRecord>
        if (typeof b.Type !== 'number' || typeof b.Value !== 'string' || !b.Value) return json(400, { ErrorKey: 'validation_error', Field: 'Value', Message: 'The Value field is required.' })
        const name = b.Name ?? ''
        const same = zone.records.filter((r) => r.Name === name)
        // At the zone apex bunny.net flattens a CNAME into A/AAAA answers, so it may stand beside the
        // apex's other records (dnscontrol providers/bunnydns: ALIAS is written as a CNAME there).
        if (name !== '' && ((b.Type === 2 && same.length) || same.some((r) => r.Type === 2))) return json(400, { ErrorKey: 'dnsrecord.conflict', Field: 'Name', Message: 'A CNAME record cannot be combined with other records' })
        if (b.Type < 0 || b.Type >= card.records.types.length) return json(400, { ErrorKey: 'validation_error', Field: 'Type', Message: 'The Type field is invalid.' })
        const kept = Object.fromEntries(SETTINGS.filter((k) => b[k] !== undefined).map((k) => [k, b[k]]))
        const rec: BunnyRecord = { Id: ++ids, Type: b.Type, Ttl: b.Ttl ?? card.ttl.default, Value: b.Value, Name: name, Weight: 0, Priority: b.Priority ?? 0, Flags: b.Flags ?? 0, Tag: b.Tag ?? '', Disabled: false, ...kept }
        zone.records.push(rec)
        return json(201, rec)
      }
      if (req.method === 'DELETE' && m[2]) {
        const i = zone.records.findIndex((r) => r.Id === Number(m[2]))
        if (i === -1) return err(404, 'dnsrecord.not_found', 'The requested DNS record was not found')
        zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      return err(405, 'method_not_allowed', 'Method not allowed')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'bunny',
  reference: 'https://docs.bunny.net/reference/dnszonepublic_index',
  unpaged: { lists: ['records'], why: 'a zone\'s records come inside GET /dnszone/{id}' },
  start: () => startBunnyFake(),
  base: (f) => f.url,
  badCredential: 'wrong-key',
  foreignZone: { id: '999999', name: 'not-mine.example' },
  // bunny.net numbers its record types.
  rowKey: (r, zone) => ({ name: r.Name ? `${String(r.Name).toLowerCase()}.${zone}` : zone, type: ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'REDIRECT', 'FLATTEN', 'PULLZONE', 'SRV', 'CAA', 'PTR', 'SCRIPT', 'NS', 'SVCB', 'HTTPS', 'TLSA'][r.Type] ?? String(r.Type) }),
}
