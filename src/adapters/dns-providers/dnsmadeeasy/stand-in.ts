// DNS Made Easy API v2.0, the parts the adapter uses (https://api-docs.dnsmadeeasy.com/): the
// x-dnsme-hmac header is recomputed from the request date under the key's secret (403 `{error:
// ["API key not found"]}` / `["Invalid hmac"]` otherwise); errors `{error: [messages]}` (404, 400
// validation, 400 "Rate limit exceeded" for the rate limit); lists `{data, page, totalPages,
// totalRecords}`. Records `{id, name, type, value, ttl, gtdLocation, mxLevel?, caaType?,
// issuerCritical?, HTTPRED's redirectType, title, keywords, description, hardLink}`; TXT and CAA values
// quoted. The rate limit is a 400 with x-dnsme-requestsRemaining 0, as the card says
// (src/adapters/dns-providers/dnsmadeeasy/card.ts).
import { createHmac } from 'node:crypto'
import { dnsmadeeasy as card } from './card.ts'
import { cardThrottle, json, servePage } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import { nextId, type FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface DmeRecord {
  id: number
  name: string
  type: string
  value: string
  ttl: number
  gtdLocation: string
  mxLevel?: number
  caaType?: string
  issuerCritical?: number
  [field: string]: unknown
}

const TYPES = new Set(card.records.types)

export function startDnsMadeEasyFake(key = crypto.randomUUID(), secret = crypto.randomUUID()) {
  let ids = 4_000_000
  const err = (status: number, ...error: string[]) => json(status, { error })
  return startRowFake<DmeRecord>({
    credential: `${key}:${secret}`,
    authorized: (req) => req.headers.get('x-dnsme-apikey') === key && req.headers.get('x-dnsme-hmac') === createHmac('sha1', secret).update(req.headers.get('x-dnsme-requestdate') ?? '').digest('hex'),
    errors: { unauthorized: () => err(403, 'API key not found'), notFound: () => err(404, 'Domain not found'), invalid: (m) => err(400, m), throttled: cardThrottle(card, 0) },
    zoneId: () => String(++ids),
    routes: { zones: /^\/V2\.0\/dns\/managed\/?$/, records: /^\/V2\.0\/dns\/managed\/(?<zone>\d+)\/records\/?$/, record: /^\/V2\.0\/dns\/managed\/(?<zone>\d+)\/records\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ id: Number(z.id), name: z.name, gtdEnabled: false }),
    list(f, kind, rows, url) {
      const page = Number(url.searchParams.get('page') ?? 1)
      const s = servePage(f, kind, rows, page, Number(url.searchParams.get('rows') ?? 1000))
      return json(200, { data: s.items, page, totalPages: s.last, totalRecords: s.total })
    },
    create(b, z) {
      if (typeof b.name !== 'string' || typeof b.type !== 'string' || typeof b.value !== 'string' || !b.value || !b.gtdLocation) return 'name, type, value and gtdLocation are required'
      if (!TYPES.has(b.type)) return `Invalid record type ${b.type}`
      if ((b.type === 'TXT' || b.type === 'CAA') && !b.value.startsWith('"')) return 'TXT and CAA values must be quoted'
      if (b.type === 'HTTPRED' && !b.redirectType) return 'redirectType is required for HTTPRED records'
      if (z.records.some((r) => r.name === b.name && r.type === b.type && r.value === b.value)) return `Record with this type (${b.type}), name (${b.name}), and value (${b.value}) already exists.`
      if (b.type === 'MX' && typeof b.mxLevel !== 'number') return 'mxLevel is required for MX records'
      return { id: ++ids, name: b.name, type: b.type, value: b.value, ttl: b.ttl ?? 1800, gtdLocation: b.gtdLocation, ...(b.type === 'MX' ? { mxLevel: b.mxLevel } : {}), ...(b.type === 'CAA' ? { caaType: b.caaType, issuerCritical: b.issuerCritical ?? 0 } : {}), ...(b.type === 'HTTPRED' ? { hardLink: b.hardLink ?? false, redirectType: b.redirectType, title: b.title ?? '', keywords: b.keywords ?? '', description: b.description ?? '' } : {}) }
    },
    created: (row) => json(201, row),
    deleted: () => new Response(null, { status: 200 }),
    key: (r, z) => ({ name: r.name === '' ? z.name : `${r.name}.${z.name}`, type: r.type, id: String(r.id) }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'dnsmadeeasy',
  reference: 'https://api-docs.dnsmadeeasy.com/',
  start: () => startDnsMadeEasyFake(),
  base: (f) => f.url + '/V2.0',
  badCredential: 'wrong:wrong',
  foreignZone: { id: '999999', name: 'not-mine.example' },
  seedRow: (z, row) => z.records.push({ ...row, id: 7_000_000 + parseInt(nextId().slice(-5), 16), sourceId: Number(z.id) }),
}
