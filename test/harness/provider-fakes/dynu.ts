// Dynu API v2, the parts the adapter uses (https://www.dynu.com/Support/API#/dns): `API-Key`;
// errors `{statusCode, type, message}` (401 "Authentication Exception", 404 "Not Found Exception",
// 400 "Argument Exception", 429 "Rate Limit Exception" with Retry-After); both lists are whole.
// Records `{id, domainId, nodeName, recordType, ttl, state, content, …type fields}`; a record of each
// type needs its own fields (A ipv4Address, CNAME host, MX host+priority, TXT textData, CAA flags+tag+value).
import { json, nextId } from './common.ts'
import { startRowFake } from './rest.ts'

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
  const err = (statusCode: number, type: string, message: string, headers: Record<string, string> = {}) => json(statusCode, { statusCode, type, message }, headers)
  return startRowFake<DynuRecord>({
    credential: key,
    authorized: (req) => req.headers.get('api-key') === key,
    errors: { unauthorized: () => err(401, 'Authentication Exception', 'Invalid API credential.'), notFound: () => err(404, 'Not Found Exception', 'Domain not found.'), invalid: (m) => err(400, 'Argument Exception', m), throttled: () => err(429, 'Rate Limit Exception', 'Too many requests.', { 'retry-after': '9' }) },
    retryAfter: 9,
    zoneId: () => String(++ids),
    routes: { zones: /^\/v2\/dns$/, records: /^\/v2\/dns\/(?<zone>\d+)\/record$/, record: /^\/v2\/dns\/(?<zone>\d+)\/record\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ id: Number(z.id), name: z.name, unicodeName: z.name, state: 'Complete' }),
    list: (_f, kind, rows) => json(200, kind === 'zones' ? { statusCode: 200, domains: rows } : { statusCode: 200, dnsRecords: rows }),
    create(b, z) {
      const need = NEEDS[b.recordType]
      if (typeof b.nodeName !== 'string' || !need) return 'recordType and nodeName are required'
      if (need.some((k) => b[k] === undefined || b[k] === '')) return `${b.recordType} records need ${need.join(', ')}`
      const own = Object.fromEntries(need.map((k) => [k, b[k]]))
      return { id: ++ids, domainId: Number(z.id), nodeName: b.nodeName, recordType: b.recordType, ttl: b.ttl ?? 120, state: b.state !== false, content: need.map((k) => b[k]).join(' '), ...own }
    },
    created: (row) => json(200, { statusCode: 200, ...row }),
    deleted: () => json(200, { statusCode: 200 }),
    key: (r, z) => ({ name: r.nodeName === '' ? z.name : `${r.nodeName}.${z.name}`, type: r.recordType, id: String(r.id) }),
  })
}
