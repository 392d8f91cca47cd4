// Dynadot Advanced Domain API, the parts the adapter uses (https://www.dynadot.com/domain/api3.html):
// GET /api3.json?key=…&command=…; answers `{<Command>Response: {ResponseCode, Status, …}}` with HTTP 200,
// errors as ResponseCode "-1" with `Error` ("invalid key", "ip address not allowed", "could not find
// domain"), and HTTP 429 when rate limited. list_domain and get_dns answer whole lists; get_dns gives
// the apex records (`MainDomains`) and the ones below it (`SubDomains`, `Subhost`) with one zone `TTL`;
// set_dns2 replaces them all (at most 20 apex records and 100 below) and puts the domain on Dynadot
// DNS (`NameServerSettings.Type`, kept in the zone's settings). Answers as the card says
// (src/adapters/dns-providers/dynadot/card.ts): forward, stealth and email rows carry their extra field.
// `answerNext` serves a recorded answer as it came (test/fixtures/provider-recordings/dynadot.json: the
// temporary "problem with connection to main server" refusal acme.sh recorded).
import { dynadot as card } from './card.ts'
import { cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface DynadotRecord {
  /** Relative name, '' for the apex. */
  sub: string
  type: string
  value: string
  value2?: string
}

export type DynadotFake = Fake<DynadotRecord> & {
  ttls: Map<string, number>
  ipLocked: Set<string>
  /** The next request is answered with this body as it was recorded (HTTP 200, Dynadot's way). */
  answerNext(body: unknown): void
}

const TYPES = ['a', 'aaaa', 'cname', 'forward', 'txt', 'mx', 'stealth', 'email', 'caa', 'srv']

export function startDynadotFake(key = nextId('dd').padEnd(26, 'd')): DynadotFake {
  const ttls = new Map<string, number>()
  const ipLocked = new Set<string>()
  let recorded: unknown = undefined
  const answer = (name: string, body: Record<string, unknown>) => json(200, { [name]: body })
  const error = (name: string, message: string) => answer(name, { ResponseCode: '-1', Status: 'error', Error: message })
  const fake = startFake<DynadotRecord>({
    credential: key,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    handle(req, url, f) {
      if (recorded !== undefined) {
        const body = recorded
        recorded = undefined
        return json(200, body)
      }
      const q = url.searchParams
      const command = q.get('command') ?? ''
      const name = command === 'list_domain' ? 'ListDomainInfoResponse' : command === 'get_dns' ? 'GetDnsResponse' : command === 'set_dns2' ? 'SetDnsResponse' : 'Response'
      if (req.method !== 'GET' || url.pathname !== '/api3.json') return error('Response', 'unsupported request')
      if (q.get('key') !== key) return error(name, 'invalid key')
      if (command === 'list_domain') return answer(name, { ResponseCode: '0', Status: 'success', MainDomains: f.zones.map((z, i) => ({ DomainId: String(1000 + i), Name: z.name, Expiration: '1893456000000', Status: 'active', NameServerSettings: { Type: 'Dynadot DNS' } })) })
      const zone = f.zones.find((z) => z.name === q.get('domain'))
      if (!zone) return error(name, 'could not find domain in your account')
      if (ipLocked.has(zone.name)) return error(name, 'ip address not allowed for this key')
      if (command === 'get_dns') {
        const row = (r: DynadotRecord) => ({ ...(r.sub ? { Subhost: r.sub } : {}), RecordType: r.type, Value: r.value, ...(r.value2 !== undefined ? { Value2: r.value2 } : {}) })
        return answer(name, {
          ResponseCode: '0',
          Status: 'success',
          GetDns: { NameServerSettings: { Type: 'Dynadot DNS', WithAds: 'no', ...zone.settings, MainDomains: zone.records.filter((r) => !r.sub).map(row), SubDomains: zone.records.filter((r) => r.sub).map(row), TTL: String(ttls.get(zone.name) ?? 3600) } },
        })
      }
      if (command === 'set_dns2') {
        const records: DynadotRecord[] = []
        for (let i = 0; q.has(`main_record_type${i}`); i++) {
          if (i >= 20) return error(name, 'too many main records')
          records.push({ sub: '', type: q.get(`main_record_type${i}`)!, value: q.get(`main_record${i}`) ?? '', ...(q.has(`main_recordx${i}`) ? { value2: q.get(`main_recordx${i}`)! } : {}) })
        }
        for (let i = 0; q.has(`subdomain${i}`); i++) {
          if (i >= 100) return error(name, 'too many subdomain records')
          records.push({ sub: q.get(`subdomain${i}`)!.toLowerCase(), type: q.get(`sub_record_type${i}`) ?? '', value: q.get(`sub_record${i}`) ?? '', ...(q.has(`sub_recordx${i}`) ? { value2: q.get(`sub_recordx${i}`)! } : {}) })
        }
        for (const r of records) {
          if (!TYPES.includes(r.type) || !r.value) return error(name, `invalid record: ${r.type} ${r.value}`)
          if (r.type === 'mx' && !/^\d+$/.test(r.value2 ?? '')) return error(name, 'mx records need a distance')
          if (r.type === 'cname' && (!r.sub || records.some((o) => o !== r && o.sub === r.sub))) return error(name, `cname ${r.sub || '@'} cannot stand beside other records`)
        }
        const ttl = Number(q.get('ttl') ?? 3600)
        if (!Number.isInteger(ttl) || ttl < 60) return error(name, 'invalid ttl')
        zone.records = records
        ttls.set(zone.name, ttl)
        if (zone.settings?.Type !== undefined) zone.settings = { ...zone.settings, Type: 'Dynadot DNS' }
        return answer(name, { ResponseCode: '0', Status: 'success' })
      }
      return error(name, `unknown command ${command}`)
    },
  })
  return Object.assign(fake, { ttls, ipLocked, answerNext: (body: unknown) => void (recorded = body) })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'dynadot', reference: 'https://www.dynadot.com/domain/api3.html', unpaged: { lists: ['zones', 'records'], why: 'list_domain and get_dns answer whole lists' }, start: () => startDynadotFake(), base: (f) => f.url, badCredential: 'wrongkey', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } }
