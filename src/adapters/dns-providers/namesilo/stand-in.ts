// NameSilo API, the parts the adapter uses (https://www.namesilo.com/api-reference): GET
// /api/{operation}?version=1&type=json&key=…; every answer is HTTP 200 with `{request: {operation, ip},
// reply: {code, detail, …}}` (300 success, 110 "Invalid API Key", 113 "This account cannot be accessed
// from your IP", 200 "Domain is not active, or does not belong to this user", 280 a refused record) and
// HTTP 429 when rate limited. The JSON is converted from XML, so a list of one is the item itself.
// listDomains pages by page/pageSize with `pager`; dnsListRecords answers the whole zone with fully
// qualified hosts; the lowest TTL is 3600; rate limit as the card says
// (src/adapters/dns-providers/namesilo/card.ts).
import { namesilo as card } from './card.ts'
import { cardThrottle, json, nextId, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface NamesiloRecord {
  record_id: string
  type: string
  host: string
  value: string
  ttl: number
  distance: number
}

/** A list as NameSilo's XML-to-JSON gives it: one item alone, several as an array. */
const xmlList = <T>(items: T[]) => (items.length === 1 ? items[0] : items)

export type NamesiloFake = Fake<NamesiloRecord> & { ipLocked: Set<string> }

export function startNamesiloFake(key = nextId('ns').padEnd(24, 's')): NamesiloFake {
  const ipLocked = new Set<string>()
  const reply = (operation: string, code: number, detail: string, extra: Record<string, unknown> = {}) => json(200, { request: { operation, ip: '127.0.0.1' }, reply: { code, detail, ...extra } })
  const fake = startFake<NamesiloRecord>({
    credential: key,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    handle(req, url, f) {
      const op = url.pathname.replace(/^\/api\//, '')
      const q = url.searchParams
      if (req.method !== 'GET' || q.get('version') !== '1' || q.get('type') !== 'json') return reply(op, 101, 'Invalid API version or type')
      if (q.get('key') !== key) return reply(op, 110, 'Invalid API Key')
      if (op === 'listDomains') {
        const s = servePage(f, 'zones', f.zones, Number(q.get('page') ?? 1), Number(q.get('pageSize') ?? 100))
        return reply(op, 300, 'success', { domains: { domain: xmlList(s.items.map((z) => z.name)) }, pager: { total: s.total, pageSize: s.size, page: Number(q.get('page') ?? 1) } })
      }
      const zone = f.zones.find((z) => z.name === q.get('domain'))
      if (!zone) return reply(op, 200, 'Domain is not active, or does not belong to this user')
      if (ipLocked.has(zone.name)) return reply(op, 113, 'This account cannot be accessed from your IP')
      if (op === 'dnsListRecords') return reply(op, 300, 'success', zone.records.length ? { resource_record: xmlList(zone.records) } : {})
      if (op === 'dnsAddRecord') {
        const type = q.get('rrtype') ?? ''
        const value = q.get('rrvalue') ?? ''
        const ttl = Number(q.get('rrttl') ?? 7207)
        if (!['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'CAA', 'SRV'].includes(type) || !value) return reply(op, 280, 'DNS record could not be added: invalid type or value')
        if (!Number.isInteger(ttl) || ttl < card.ttl.min || ttl > card.ttl.max!) return reply(op, 280, `DNS record could not be added: TTL must be between ${card.ttl.min} and ${card.ttl.max}`)
        const sub = (q.get('rrhost') ?? '').toLowerCase()
        const host = sub ? `${sub}.${zone.name}` : zone.name
        const same = zone.records.filter((r) => r.host === host)
        if ((type === 'CNAME' && same.length) || same.some((r) => r.type === 'CNAME')) return reply(op, 280, 'DNS record could not be added: a CNAME cannot stand beside other records')
        const rec: NamesiloRecord = { record_id: nextId('rr').padEnd(32, '0'), type, host, value, ttl, distance: Number(q.get('rrdistance') ?? 0) }
        zone.records.push(rec)
        return reply(op, 300, 'success', { record_id: rec.record_id })
      }
      if (op === 'dnsDeleteRecord') {
        const i = zone.records.findIndex((r) => r.record_id === q.get('rrid'))
        if (i === -1) return reply(op, 280, 'Invalid record ID')
        zone.records.splice(i, 1)
        return reply(op, 300, 'success')
      }
      return reply(op, 102, 'Invalid operation')
    },
  })
  return Object.assign(fake, { ipLocked })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'namesilo', reference: 'https://www.namesilo.com/api-reference', unpaged: { lists: ['records'], why: 'dnsListRecords answers the whole zone' }, start: () => startNamesiloFake(), base: (f) => f.url + '/api', badCredential: 'wrongkey', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } }
