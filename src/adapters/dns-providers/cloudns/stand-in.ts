// ClouDNS API, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/cloudns/card.ts; https://www.cloudns.net/wiki/article/41/, 42, 58):
// `auth-id` or `sub-auth-id` with `auth-password`; every answer HTTP 200, failures as `{status:
// "Failed", statusDescription}` ("Invalid authentication, incorrect auth-id or auth-password.",
// "Missing domain-name", the rate limit's own text). list-zones pages by `page`/`rows-per-page` (10,
// 20, 30, 50 or 100; a page as long as asked, an empty list past the end); records.json answers the
// whole zone as `{id: record}` (`[]` when empty). A TTL must be one of ClouDNS's values. Records keep
// their own fields (failover, dynamicurl_status, status, GeoDNS location, a web redirect's frame).
import { cloudns as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface CloudnsRecord {
  id: string
  type: string
  host: string
  record: string
  ttl: string
  priority?: string
  caa_flag?: string
  caa_type?: string
  caa_value?: string
  status: number
  [field: string]: unknown
}

const WR_FIELDS = ['redirect-type', 'frame', 'frame-title', 'frame-keywords', 'frame-description', 'mobile-meta', 'save-path']
const TYPES = new Set(card.records.types)

const TTLS = new Set([60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000])

export function startCloudnsFake(id = String(Math.floor(Math.random() * 90000) + 10000), password = nextId('pw'), subId = String(Math.floor(Math.random() * 90000) + 100000)): Fake<CloudnsRecord> {
  let ids = 100
  const failed = (statusDescription: string) => json(200, { status: 'Failed', statusDescription })
  return startFake<CloudnsRecord>({
    credential: `${id}:${password}`,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      const p = req.method === 'POST' ? new URLSearchParams(await req.text()) : url.searchParams
      const who = p.get('sub-auth-id') !== null ? p.get('sub-auth-id') === subId : p.get('auth-id') === id
      if (!who || p.get('auth-password') !== password) return failed('Invalid authentication, incorrect auth-id or auth-password.')
      if (url.pathname === '/dns/list-zones.json') {
        const page = Number(p.get('page'))
        const rows = Number(p.get('rows-per-page'))
        if (!(page >= 1) || ![10, 20, 30, 50, 100].includes(rows)) return failed('Missing page or rows-per-page')
        return json(200, askedPage(f, 'zones', f.zones, (page - 1) * rows, rows).map((z) => ({ name: z.name, type: 'master', zone: 'domain', status: '1' })))
      }
      const zone = f.zones.find((z) => z.name === p.get('domain-name'))
      if (!zone) return failed('Invalid domain-name')
      if (url.pathname === '/dns/records.json') return json(200, zone.records.length ? Object.fromEntries(zone.records.map((r) => [r.id, r])) : [])
      if (url.pathname === '/dns/add-record.json' && req.method === 'POST') {
        const type = p.get('record-type') ?? ''
        const ttl = Number(p.get('ttl'))
        if (!TTLS.has(ttl)) return failed('Invalid TTL. Choose from the list of the values we support.')
        if (!TYPES.has(type)) return failed('Invalid record-type')
        if (type === 'CAA' ? !p.get('caa_type') || !p.get('caa_value') : !p.get('record')) return failed('Missing record')
        if (type === 'MX' && !p.get('priority')) return failed('Missing priority')
        const host = p.get('host') ?? ''
        const same = zone.records.filter((r) => r.host === host)
        if ((type === 'CNAME' && same.length) || same.some((r) => r.type === 'CNAME')) return failed('CNAME record cannot coexist with other records of the host')
        const wr = type === 'WR' ? Object.fromEntries(WR_FIELDS.map((k) => [k, p.get(k) ?? (k === 'redirect-type' ? '301' : '0')])) : {}
        const rec: CloudnsRecord = { id: String(++ids), type, host, record: p.get('record') ?? '', dynamicurl_status: 0, failover: '0', ttl: String(ttl), status: 1, ...(p.get('priority') ? { priority: p.get('priority')! } : {}), ...(type === 'CAA' ? { caa_flag: p.get('caa_flag') ?? '0', caa_type: p.get('caa_type')!, caa_value: p.get('caa_value')! } : {}), ...wr }
        zone.records.push(rec)
        return json(200, { status: 'Success', statusDescription: 'The record was added successfully.', data: { id: Number(rec.id) } })
      }
      if (url.pathname === '/dns/delete-record.json' && req.method === 'POST') {
        const i = zone.records.findIndex((r) => r.id === p.get('record-id'))
        if (i === -1) return failed('Invalid record-id')
        zone.records.splice(i, 1)
        return json(200, { status: 'Success', statusDescription: 'The record was deleted successfully.' })
      }
      return failed('Invalid request')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'cloudns',
  reference: 'https://www.cloudns.net/wiki/article/42/',
  unpaged: { lists: ['records'], why: 'records.json answers the whole zone' },
  start: () => startCloudnsFake(),
  base: (f) => f.url,
  badCredential: '1:wrong',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 100 zones a page; ClouDNS answers as many as asked.
  pageFill: { zones: 101 },
  seedRow: (z, row) => z.records.push({ ...row, id: String(500000 + parseInt(nextId().slice(-5), 16)) }),
}
