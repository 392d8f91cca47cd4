// Akamai Cloud (Linode) API v4 Domains, the parts the adapter uses
// (https://techdocs.akamai.com/linode-api/reference/get-domain-records,
// …/post-domain-record): Bearer token; errors `{errors: [{reason, field?}]}` (401 "Invalid Token",
// 404 "Not found", 400 with the field, 429 "Too Many Requests" with Retry-After); lists paged as
// `{data, page, pages, results}`. Records `{id, type, name, target, priority, weight, port, service,
// protocol, ttl_sec, tag}`; a TTL is rounded up to an allowed value (0 stays 0); CAA flags are not kept.
import { linode as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface LinodeRecord {
  id: number
  type: string
  name: string
  target: string
  priority: number
  weight: number
  port: number
  service: null
  protocol: null
  ttl_sec: number
  tag: string | null
}

// The record TTLs Linode keeps; any other is rounded up to the next (its reference on the domain's
// ttl_sec, and its Terraform provider: 600 is stored as 3600). 0 is the domain's default and stays 0
// (lexicon's recording: ttl_sec 0 in, 0 out).
const ALLOWED_TTL = [300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600, 2419200]
const roundedUp = (t: number) => (t === 0 ? 0 : (ALLOWED_TTL.find((a) => a >= t) ?? ALLOWED_TTL.at(-1)!))
const err = (status: number, reason: string, headers: Record<string, string> = {}) => json(status, { errors: [{ reason }] }, headers)

export function startLinodeFake(token = 'linode' + nextId().padEnd(58, 'a')) {
  let ids = 5000
  return startRowFake<LinodeRecord>({
    credential: token,
    authorized: (req) => req.headers.get('authorization') === `Bearer ${token}`,
    errors: { unauthorized: () => err(401, 'Invalid Token'), notFound: () => err(404, 'Not found'), invalid: (m) => err(400, m), throttled: cardThrottle(card, 12) },
    retryAfter: 12,
    zoneId: () => String(++ids),
    routes: { zones: /^\/v4\/domains$/, records: /^\/v4\/domains\/(?<zone>\d+)\/records$/, record: /^\/v4\/domains\/(?<zone>\d+)\/records\/(?<id>\d+)$/ },
    zoneRow: (z) => ({ id: Number(z.id), domain: z.name, type: 'master', status: 'active', soa_email: `hostmaster@${z.name}`, ttl_sec: 0 }),
    list(f, kind, rows, url) {
      // As many as page_size asks (25 to 500, default 100), as the reference says.
      const page = Number(url.searchParams.get('page') ?? 1)
      const size = Math.min(Math.max(Number(url.searchParams.get('page_size') ?? 100), 25), 500)
      const items = askedPage(f, kind, rows, (page - 1) * size, size, 500)
      return json(200, { data: items, page, pages: Math.max(1, Math.ceil(rows.length / size)), results: rows.length })
    },
    create(b) {
      if (typeof b.type !== 'string' || typeof b.name !== 'string' || typeof b.target !== 'string' || !b.target) return 'target is required'
      if (b.type === 'CAA' && !b.tag) return 'tag is required for CAA records'
      return { id: ++ids, type: b.type, name: b.name, target: b.target, priority: b.priority ?? 0, weight: b.weight ?? 0, port: b.port ?? 0, service: b.service ?? null, protocol: b.protocol ?? null, ttl_sec: roundedUp(b.ttl_sec ?? 0), tag: b.tag ?? null }
    },
    created: (row) => json(200, row),
    deleted: () => json(200, {}),
    key: (r, z) => ({ name: r.name === '' ? z.name : `${r.name}.${z.name}`, type: r.type, id: String(r.id) }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'linode',
  reference: 'https://techdocs.akamai.com/linode-api/reference/get-domain-records',
  start: () => startLinodeFake(),
  base: (f) => f.url + '/v4',
  badCredential: 'wrong-token',
  foreignZone: { id: '999999', name: 'not-mine.example' },
  // The adapter asks 500 a page; Linode answers as many as asked, up to 500.
  pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ id: 700000 + i, type: 'TXT', name: `filler${i}`, target: `filler-${i}`, priority: 0, weight: 0, port: 0, service: null, protocol: null, ttl_sec: 300, tag: null }) } },
  seedRow: (z, row) => z.records.push({ id: 600000 + z.records.length + Math.floor(Math.random() * 1e5), ...row }),
}
