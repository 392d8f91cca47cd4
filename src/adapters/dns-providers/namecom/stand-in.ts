// Name.com API v4 DNS, the parts the adapter uses (https://docs.name.com/docs/api-reference/dns,
// …/domains/list-domains): HTTP Basic `username:token`; errors `{message, details?}` (401
// "Unauthenticated", 404 "Not Found", 400 "Invalid Argument", 429 as the card says
// (src/adapters/dns-providers/namecom/card.ts)); lists `{domains|records, nextPage?, lastPage?}`. Records
// `{id, domainName, host, fqdn, type, answer, ttl, priority?}` of the card's types; TTL at least 300.
import { namecom as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface NamecomRecord {
  id: number
  domainName: string
  host: string
  fqdn: string
  type: string
  answer: string
  ttl: number
  priority?: number
}

export function startNamecomFake(user = 'pat', token = nextId('ncom').padEnd(40, 'f')) {
  let ids = 100000
  const err = (status: number, message: string, details?: string, headers: Record<string, string> = {}) => json(status, { message, ...(details ? { details } : {}) }, headers)
  return startRowFake<NamecomRecord>({
    credential: `${user}:${token}`,
    authorized: (req) => req.headers.get('authorization') === `Basic ${btoa(`${user}:${token}`)}`,
    errors: { unauthorized: () => err(401, 'Unauthenticated'), notFound: () => err(404, 'Not Found'), invalid: (m) => err(400, 'Invalid Argument', m), throttled: cardThrottle(card, 0) },
    zoneId: (name) => name,
    routes: { zones: /^\/v4\/domains$/, records: /^\/v4\/domains\/(?<zone>[^/]+)\/records$/, record: /^\/v4\/domains\/(?<zone>[^/]+)\/records\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ domainName: z.name, locked: true, autorenewEnabled: true, expireDate: '2027-01-01T00:00:00Z' }),
    list(f, kind, rows, url) {
      const page = Number(url.searchParams.get('page') ?? 1)
      // As many as perPage asks (default and most 1000): lexicon's recording lists a whole zone in one page.
      const size = Math.min(Number(url.searchParams.get('perPage') ?? 1000), 1000)
      const items = askedPage(f, kind, rows, (page - 1) * size, size, 1000)
      const last = Math.max(1, Math.ceil(rows.length / size))
      return json(200, { [kind === 'zones' ? 'domains' : 'records']: items, ...(page < last ? { nextPage: page + 1 } : {}), lastPage: last })
    },
    create(b, z) {
      if (typeof b.type !== 'string' || !card.records.types.includes(b.type) || typeof b.answer !== 'string' || !b.answer) return 'type and answer are required'
      if ((b.ttl ?? card.ttl.default) < card.ttl.min) return `TTL must be at least ${card.ttl.min}`
      const host = b.host ?? ''
      return { id: ++ids, domainName: z.name, host, fqdn: `${host ? `${host}.` : ''}${z.name}.`, type: b.type, answer: b.answer, ttl: b.ttl ?? 300, ...(b.priority !== undefined ? { priority: b.priority } : {}) }
    },
    created: (row) => json(200, row),
    deleted: () => json(200, {}),
    key: (r, z) => ({ name: r.host === '' ? z.name : `${r.host}.${z.name}`, type: r.type, id: String(r.id) }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'namecom',
  reference: 'https://docs.name.com/docs/api-reference/dns',
  start: () => startNamecomFake(),
  base: (f) => f.url,
  badCredential: 'pat:wrong',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 1000 a page; Name.com answers as many as asked, up to 1000 (lexicon's recordings).
  pageFill: { zones: 1001, records: { count: 1000, row: (z, i) => ({ id: 800000 + i, domainName: z, host: `filler${i}`, fqdn: `filler${i}.${z}.`, type: 'TXT', answer: `filler-${i}`, ttl: 300 }) } },
}
