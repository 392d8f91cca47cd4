// Vultr API v2 DNS, the parts the adapter uses (https://www.vultr.com/api/#tag/dns): Bearer API key;
// errors `{error, status}` (401 "Invalid API token.", 404, 400, 429 "Rate limit reached"); lists
// paged by an opaque cursor in `meta.links.next` with `meta.total`. Record rows `{id, type, name,
// data, priority, ttl}` with relative names (`` the apex); TXT data quoted (test/fixtures/provider-recordings/vultr.json).
import { vultr as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface VultrRecord {
  id: string
  type: string
  name: string
  data: string
  priority: number
  ttl: number
}

const err = (status: number, error: string) => json(status, { error, status })

export function startVultrFake(key = 'VULTR' + nextId().toUpperCase().padEnd(31, 'K')) {
  return startRowFake<VultrRecord>({
    credential: key,
    authorized: (req) => req.headers.get('authorization') === `Bearer ${key}`,
    errors: { unauthorized: () => err(401, 'Invalid API token.'), notFound: () => err(404, 'Domain not found.'), invalid: (m) => err(400, m), throttled: cardThrottle(card, 0) },
    zoneId: (name) => name,
    routes: { zones: /^\/v2\/domains$/, records: /^\/v2\/domains\/(?<zone>[^/]+)\/records$/, record: /^\/v2\/domains\/(?<zone>[^/]+)\/records\/(?<id>[^/]+)$/ },
    zoneRow: (z) => ({ domain: z.name, date_created: '2026-01-01T00:00:00+00:00', dns_sec: 'disabled' }),
    list(f, kind, rows, url) {
      // The cursor is opaque to clients; here it is the page number in base64.
      // As many as per_page asks (default 100, most 500), as the reference says.
      const cursor = url.searchParams.get('cursor')
      const page = cursor ? Number(atob(cursor)) : 1
      const size = Math.min(Number(url.searchParams.get('per_page') ?? 100), 500)
      const items = askedPage(f, kind, rows, (page - 1) * size, size, 500)
      const last = Math.max(1, Math.ceil(rows.length / size))
      return json(200, { [kind === 'zones' ? 'domains' : 'records']: items, meta: { total: rows.length, links: { next: page < last ? btoa(String(page + 1)) : '', prev: page > 1 ? btoa(String(page - 1)) : '' } } })
    },
    create(b, z) {
      if (typeof b.type !== 'string' || typeof b.name !== 'string' || typeof b.data !== 'string' || !b.data) return 'Invalid record: name, type and data are required'
      // Vultr keeps TXT data inside quotes (lexicon's recording: `"challengetoken"` in and out; dnscontrol
      // reads an unquoted TXT from Vultr as an error): bare text is refused.
      if (b.type === 'TXT' && !/^".*"$/s.test(b.data)) return 'Invalid TXT record: data must be enclosed in double quotes'
      return { id: crypto.randomUUID(), type: b.type, name: b.name, data: b.data, priority: b.priority ?? -1, ttl: b.ttl ?? 300 }
    },
    created: (row) => json(201, { record: row }),
    deleted: () => new Response(null, { status: 204 }),
    key: (r, z) => ({ name: r.name === '' ? z.name : `${r.name}.${z.name}`, type: r.type, id: r.id }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'vultr',
  reference: 'https://www.vultr.com/api/#tag/dns',
  start: () => startVultrFake(),
  base: (f) => f.url + '/v2',
  badCredential: 'WRONGKEY',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 500 a page; Vultr answers as many as asked, up to 500.
  pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ id: `fill-${i}`, type: 'TXT', name: `filler${i}`, data: `"filler-${i}"`, priority: -1, ttl: 300 }) } },
  seedRow: (z, row) => z.records.push({ id: crypto.randomUUID(), ...row }),
}
