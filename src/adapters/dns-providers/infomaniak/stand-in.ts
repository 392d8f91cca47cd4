// Infomaniak API v1, the parts the adapter uses (https://developer.infomaniak.com/docs/api, Domain ›
// DNS records of a zone): Bearer token; answers `{result: "success", data}`; errors `{result:
// "error", error: {code, description}}` (401 not_authorized, 404 object_not_found, 422
// validation_failed, 429 too_many_request with Retry-After). The product list is paged (`page`,
// `per_page`, answer `pages`, `total`); a domain's records come as one list. Records `{id, source,
// type, ttl, target, dyndns_id?}` with relative `source` (`.` the apex), MX priority inside `target`.
// Rate limit as the card says (src/adapters/dns-providers/infomaniak/card.ts).
import { infomaniak as card } from './card.ts'
import { cardThrottle, json, nextId, servePage } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface InfomaniakRecord {
  /** A string, as Infomaniak answers record ids (lexicon's recording). */
  id: string
  source: string
  type: string
  ttl: number
  target: string
  dyndns_id?: number | null
  source_idn?: string
  target_idn?: string
  priority?: number
}

const err = (status: number, code: string, description: string, headers: Record<string, string> = {}) => json(status, { result: 'error', error: { code, description } }, headers)

export function startInfomaniakFake(token = 'ik' + nextId().padEnd(62, 'i')) {
  let ids = 7000
  return startRowFake<InfomaniakRecord>({
    credential: token,
    authorized: (req) => req.headers.get('authorization') === `Bearer ${token}`,
    errors: {
      unauthorized: () => err(401, 'not_authorized', 'Authorization required'),
      notFound: () => err(404, 'object_not_found', 'Object not found'),
      invalid: (m) => err(422, 'validation_failed', m),
      throttled: cardThrottle(card, 0),
    },
    zoneId: () => String(++ids),
    routes: { zones: /^\/1\/product$/, records: /^\/1\/domain\/(?<zone>\d+)\/dns\/record$/, record: /^\/1\/domain\/(?<zone>\d+)\/dns\/record\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ id: Number(z.id), service_name: 'domain', customer_name: z.name }),
    list(f, kind, rows, url) {
      if (kind === 'records') return json(200, { result: 'success', data: rows })
      if (url.searchParams.get('service_name') !== 'domain') return err(422, 'validation_failed', 'service_name is required')
      const page = Number(url.searchParams.get('page') ?? 1)
      // `customer_name` filters the products to that domain (lexicon's recording).
      const named = url.searchParams.get('customer_name')
      const s = servePage(f, kind, named ? (rows as { customer_name: string }[]).filter((r) => r.customer_name === named) : rows, page, Number(url.searchParams.get('per_page') ?? 10))
      return json(200, { result: 'success', data: s.items, total: s.total, pages: s.last, page, items_per_page: s.size })
    },
    create(b, z) {
      if (typeof b.source !== 'string' || typeof b.type !== 'string' || typeof b.target !== 'string' || !b.target) return 'source, type and target are required'
      if (b.ttl !== undefined && (!Number.isInteger(b.ttl) || b.ttl < card.ttl.min)) return `ttl must be at least ${card.ttl.min}`
      if (!card.records.types.includes(b.type)) return `type ${b.type} is not supported`
      // As lexicon's recording lists a record: with its IDN forms, its dyndns link and a priority (10 unless given).
      return { id: String(++ids), source: b.source, source_idn: b.source === '.' ? z.name : `${b.source}.${z.name}`, type: b.type, ttl: b.ttl ?? 3600, target_idn: b.target, dyndns_id: null, priority: b.priority ?? 10, target: b.target }
    },
    created: (row) => json(201, { result: 'success', data: row.id }),
    deleted: () => json(200, { result: 'success', data: true }),
    key: (r, z) => ({ name: r.source === '.' ? z.name : `${r.source}.${z.name}`, type: r.type, id: String(r.id) }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'infomaniak', reference: 'https://developer.infomaniak.com/docs/api (Domain › DNS records of a zone)', unpaged: { lists: ['records'], why: 'GET /1/domain/{id}/dns/record answers the whole zone' }, start: () => startInfomaniakFake(), base: (f) => f.url, badCredential: 'wrong-token', foreignZone: { id: '999999', name: 'not-mine.example' } }
