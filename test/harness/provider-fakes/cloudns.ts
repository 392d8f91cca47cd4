// ClouDNS API, the parts the adapter uses (https://www.cloudns.net/wiki/article/42/ and the pages of
// list-zones, records, add-record, delete-record): `auth-id`/`auth-password` parameters; failures
// come with HTTP 200 as `{status: "Failed", statusDescription}` ("Invalid authentication, incorrect
// auth-id or auth-password.", "Missing domain-name" / "Invalid domain-name"); rate limits 429 with
// Retry-After. list-zones pages by `page`/`rows-per-page` (an empty list past the end); records.json
// answers the whole zone as `{id: record}` (`[]` when empty). A TTL must be one of ClouDNS's values.
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

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
}

const TTLS = new Set([60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000])

export function startCloudnsFake(id = String(Math.floor(Math.random() * 90000) + 10000), password = nextId('pw')): Fake<CloudnsRecord> {
  let ids = 100
  const failed = (statusDescription: string) => json(200, { status: 'Failed', statusDescription })
  return startFake<CloudnsRecord>({
    credential: `${id}:${password}`,
    zoneId: (name) => name,
    retryAfter: 30,
    throttled: () => json(429, { status: 'Failed', statusDescription: 'Too many requests' }, { 'retry-after': '30' }),
    async handle(req, url, f) {
      const p = req.method === 'POST' ? new URLSearchParams(await req.text()) : url.searchParams
      if (p.get('auth-id') !== id || p.get('auth-password') !== password) return failed('Invalid authentication, incorrect auth-id or auth-password.')
      if (url.pathname === '/dns/list-zones.json') {
        const page = Number(p.get('page') ?? 1)
        const s = servePage(f, 'zones', f.zones, page, Number(p.get('rows-per-page') ?? 10))
        return json(200, page > s.last ? [] : s.items.map((z) => ({ name: z.name, type: 'master', zone: 'domain', status: '1' })))
      }
      const zone = f.zones.find((z) => z.name === p.get('domain-name'))
      if (!zone) return failed('Invalid domain-name')
      if (url.pathname === '/dns/records.json') return json(200, zone.records.length ? Object.fromEntries(zone.records.map((r) => [r.id, r])) : [])
      if (url.pathname === '/dns/add-record.json' && req.method === 'POST') {
        const type = p.get('record-type') ?? ''
        const ttl = Number(p.get('ttl'))
        if (!TTLS.has(ttl)) return failed('Invalid TTL. Choose from the list of the values we support.')
        if (type === 'CAA' ? !p.get('caa_type') || !p.get('caa_value') : !p.get('record')) return failed('Missing record')
        if (type === 'MX' && !p.get('priority')) return failed('Missing priority')
        const host = p.get('host') ?? ''
        const same = zone.records.filter((r) => r.host === host)
        if ((type === 'CNAME' && same.length) || same.some((r) => r.type === 'CNAME')) return failed('CNAME record cannot coexist with other records of the host')
        const rec: CloudnsRecord = { id: String(++ids), type, host, record: p.get('record') ?? '', ttl: String(ttl), status: 1, ...(p.get('priority') ? { priority: p.get('priority')! } : {}), ...(type === 'CAA' ? { caa_flag: p.get('caa_flag') ?? '0', caa_type: p.get('caa_type')!, caa_value: p.get('caa_value')! } : {}) }
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
