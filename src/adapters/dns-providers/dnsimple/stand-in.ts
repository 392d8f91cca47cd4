// DNSimple API v2, the parts the adapter uses (https://developer.dnsimple.com/v2/identity/,
// https://developer.dnsimple.com/v2/zones/records/): Bearer token; GET /whoami names the account;
// errors `{message}` (401 "Authentication failed", 404 "Zone `x` not found", 400 "Validation
// failed" with `errors`, 429 "Too many requests"); lists `{data, pagination: {current_page,
// per_page, total_entries, total_pages}}`. Records `{id, zone_id, parent_id, name, content, ttl,
// priority, type, regions, system_record, created_at, updated_at}`; names relative, `` the apex.
// Held to DNSimple's OpenAPI document by the contract test (test/fixtures/provider-openapi/dnsimple.json);
// rate limit and errors as the card says (src/adapters/dns-providers/dnsimple/card.ts). With `userToken`,
// the token is a user's: /whoami names no account and GET /accounts lists the one it reaches (and a
// `linked` stand-in's account with it).
import { dnsimple as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface DnsimpleRecord {
  id: number
  zone_id: string
  parent_id: null
  name: string
  content: string
  ttl: number
  priority: number | null
  type: string
  regions: string[]
  system_record: boolean
  created_at: string
  updated_at: string
}

const STAMP = '2026-01-15T10:20:53Z'

export function startDnsimpleFake(token = 'dnsimple_a_' + nextId().padEnd(32, 'z'), account = 1385, userToken = false, linked?: { url: string; account: number }) {
  let ids = 60000
  const err = (status: number, message: string) => json(status, { message })
  const fake = startRowFake<DnsimpleRecord>({
    // A user token reaching a second account (`linked`, another stand-in with the same token): that
    // account's calls are answered by it, so each account holds its own zones, of the same names too.
    preempt: async (req, url) =>
      linked && url.pathname.startsWith(`/v2/${linked.account}/`)
        ? fetch(linked.url + url.pathname + url.search, { method: req.method, headers: req.headers, body: req.method === 'GET' || req.method === 'DELETE' ? undefined : await req.text() })
        : null,
    extra: (req, url) => {
      const row = (id: number) => ({ id, email: 'pat@example.com', plan_identifier: 'teams-v1-monthly', created_at: STAMP, updated_at: STAMP })
      const acct = row(account)
      if (req.method === 'GET' && url.pathname === '/v2/whoami') return json(200, { data: userToken ? { user: { id: 7, email: 'pat@example.com', created_at: STAMP, updated_at: STAMP }, account: null } : { user: null, account: acct } })
      if (req.method === 'GET' && url.pathname === '/v2/accounts') return json(200, { data: linked ? [acct, row(linked.account)] : [acct] })
      return null
    },
    credential: token,
    authorized: (req) => req.headers.get('authorization') === `Bearer ${token}`,
    errors: { unauthorized: () => err(401, 'Authentication failed'), notFound: () => err(404, 'Zone not found'), invalid: (m) => json(400, { message: 'Validation failed', errors: { base: [m] } }), throttled: cardThrottle(card, 30) },
    retryAfter: 30,
    zoneId: (name) => name,
    routes: { zones: new RegExp(`^/v2/${account}/zones$`), records: new RegExp(`^/v2/${account}/zones/(?<zone>[^/]+)/records$`), record: new RegExp(`^/v2/${account}/zones/(?<zone>[^/]+)/records/(?<id>\\d+)$`) },
    zoneRow: (z) => ({ id: z.name.length, account_id: account, name: z.name, reverse: false, secondary: false, last_transferred_at: null, active: true, created_at: STAMP, updated_at: STAMP }),
    list(f, kind, rows, url) {
      // As many as per_page asks (default 30, most 100), and the `type` and `name` filters applied
      // (lexicon's recordings: a filtered listing holds only the matching records).
      const page = Number(url.searchParams.get('page') ?? 1)
      const type = url.searchParams.get('type'), name = url.searchParams.get('name')
      const matching = kind === 'records' ? (rows as DnsimpleRecord[]).filter((r) => (!type || r.type === type) && (name === null || r.name === name)) : rows
      const size = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100)
      const items = askedPage(f, kind, matching, (page - 1) * size, size, 100)
      const last = Math.max(1, Math.ceil(matching.length / size))
      return json(200, { data: items, pagination: { current_page: page, per_page: size, total_entries: matching.length, total_pages: last } })
    },
    create(b, z) {
      if (typeof b.type !== 'string' || typeof b.name !== 'string' || typeof b.content !== 'string' || !b.content) return 'content is required'
      if (!card.records.types.includes(b.type) || b.type === 'SOA') return `type ${b.type} is not supported`
      return { id: ++ids, zone_id: z.name, parent_id: null, name: b.name, content: b.content, ttl: b.ttl ?? card.ttl.default, priority: b.priority ?? null, type: b.type, regions: Array.isArray(b.regions) ? b.regions : ['global'], system_record: false, created_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), updated_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }
    },
    created: (row) => json(201, { data: row }),
    deleted: () => new Response(null, { status: 204 }),
    key: (r, z) => ({ name: r.name === '' ? z.name : `${r.name}.${z.name}`, type: r.type, id: String(r.id) }),
  })
  return Object.assign(fake, { account })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'dnsimple',
  reference: 'https://developer.dnsimple.com/v2/zones/records/',
  start: () => startDnsimpleFake(),
  base: (f) => f.url + '/v2',
  badCredential: 'wrong-token',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 100 a page; DNSimple answers as many as asked, up to 100 (lexicon's recordings).
  pageFill: { zones: 101, records: { count: 100, row: (z, i) => ({ id: 900000 + i, zone_id: z, parent_id: null, name: `filler${i}`, content: `filler-${i}`, ttl: 3600, priority: null, type: 'TXT', regions: ['global'], system_record: false, created_at: '2026-01-15T10:20:53Z', updated_at: '2026-01-15T10:20:53Z' }) } },
}
