// Dynu API v2, the parts the adapter uses (https://www.dynu.com/Support/API#/dns): `API-Key`;
// errors `{statusCode, type, message}` (401 "Authentication Exception", 404 "Not Found Exception",
// 400 "Argument Exception", 429 "Rate Limit Exception" with Retry-After); both lists are whole.
// Records `{id, domainId, nodeName, recordType, ttl, state, content, …type fields}`; a record of each
// type needs its own fields (A ipv4Address, CNAME host, MX host+priority, TXT textData, CAA flags+tag+value).
// Web redirects `{id, nodeName, redirectType, url}` are the domain's settings (`settings.webRedirects`),
// listed at GET …/webredirect. Answers as the card says (src/adapters/dns-providers/dynu/card.ts).
import { dynu as card } from './card.ts'
import { cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface DynuRecord {
  id: number
  domainId: number
  nodeName: string
  recordType: string
  ttl: number
  state: boolean
  content: string
  [field: string]: unknown
}

const NEEDS: Record<string, string[]> = { A: ['ipv4Address'], AAAA: ['ipv6Address'], CNAME: ['host'], NS: ['host'], MX: ['host', 'priority'], TXT: ['textData'], CAA: ['flags', 'tag', 'value'] }

export function startDynuFake(key = nextId('dynu').padEnd(30, 'd')) {
  let ids = 300
  // eslint-disable-next-line prefer-const
  let fake: ReturnType<typeof startRowFake<DynuRecord>>
  const err = (statusCode: number, type: string, message: string, headers: Record<string, string> = {}) => json(statusCode, { statusCode, type, message }, headers)
  fake = startRowFake<DynuRecord>({
    credential: key,
    authorized: (req) => req.headers.get('api-key') === key,
    errors: { unauthorized: () => err(401, 'Authentication Exception', 'Invalid API credential.'), notFound: () => err(404, 'Not Found Exception', 'Domain not found.'), invalid: (m) => err(400, 'Argument Exception', m), throttled: cardThrottle(card, 9) },
    retryAfter: 9,
    zoneId: () => String(++ids),
    routes: { zones: /^\/v2\/dns$/, records: /^\/v2\/dns\/(?<zone>\d+)\/record$/, record: /^\/v2\/dns\/(?<zone>\d+)\/record\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ id: Number(z.id), name: z.name, unicodeName: z.name, state: 'Complete' }),
    list: (_f, kind, rows) => json(200, kind === 'zones' ? { statusCode: 200, domains: rows } : { statusCode: 200, dnsRecords: rows }),
    extra(req, url) {
      const m = /^\/v2\/dns\/(\d+)\/webredirect$/.exec(url.pathname)
      if (!m || req.method !== 'GET') return null
      const z = fake.zones.find((x) => x.id === m[1])
      return z ? json(200, { statusCode: 200, webRedirects: (z.settings?.webRedirects as unknown[]) ?? [] }) : err(404, 'Not Found Exception', 'Domain not found.')
    },
    create(b, z) {
      const need = NEEDS[b.recordType]
      if (typeof b.nodeName !== 'string' || !need) return 'recordType and nodeName are required'
      if (need.some((k) => b[k] === undefined || b[k] === '')) return `${b.recordType} records need ${need.join(', ')}`
      if (typeof b.ttl === 'number' && b.ttl < card.ttl.min) return `TTL must be at least ${card.ttl.min}`
      const own = Object.fromEntries(need.map((k) => [k, b[k]]))
      // Each record carries its zone-file line, its hostname and its domain's name (lexicon's recording:
      // `docs.example.com. 3600 IN CNAME test.example.com.`, `… IN TXT "challengetoken"`).
      const hostname = b.nodeName ? `${b.nodeName}.${z.name}` : z.name
      const ttl = b.ttl ?? 120
      const rdata = b.recordType === 'TXT' ? `"${b.textData}"` : b.recordType === 'MX' ? `${b.priority} ${b.host}.` : b.recordType === 'CNAME' || b.recordType === 'NS' ? `${b.host}.` : b.recordType === 'CAA' ? `${b.flags} ${b.tag} "${b.value}"` : need.map((k) => b[k]).join(' ')
      return { id: ++ids, domainId: Number(z.id), domainName: z.name, nodeName: b.nodeName, hostname, recordType: b.recordType, ttl, state: b.state !== false, content: `${hostname}. ${ttl} IN ${b.recordType} ${rdata}`, ...own }
    },
    created: (row) => json(200, { statusCode: 200, ...row }),
    deleted: () => json(200, { statusCode: 200 }),
    key: (r, z) => ({ name: r.nodeName === '' ? z.name : `${r.nodeName}.${z.name}`, type: r.recordType, id: String(r.id) }),
  })
  return fake
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'dynu',
  reference: 'https://www.dynu.com/Support/API#/dns',
  unpaged: { lists: ['zones', 'records'], why: 'GET /v2/dns and …/record answer whole lists' },
  start: () => startDynuFake(),
  base: (f) => f.url,
  badCredential: 'wrong-key',
  foreignZone: { id: '999999', name: 'not-mine.example' },
  rowKey: (r, zone) => ({ name: r.nodeName ? `${String(r.nodeName).toLowerCase()}.${zone}` : zone, type: String(r.recordType).toUpperCase() }),
  // A web redirect is the domain's setting, not a DNS record.
  seedRow: (z, row) => (row.webRedirect ? (z.settings = { ...z.settings, webRedirects: [...((z.settings?.webRedirects as unknown[]) ?? []), row.webRedirect] }) : z.records.push({ id: 70000 + parseInt(nextId().slice(-4), 16), domainId: Number(z.id), ...row })),
}
