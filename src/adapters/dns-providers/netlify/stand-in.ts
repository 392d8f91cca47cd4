// Netlify API DNS zones, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/netlify/card.ts; https://open-api.netlify.com/#tag/dnsZone: getDnsZones,
// getDnsRecords, createDnsRecord, deleteDnsRecord): Bearer token; errors `{code, message}` (401
// "Access Denied: Invalid token", 404 "Not Found", 422, 429 "Rate limit exceeded" with
// X-RateLimit-Reset); lists are bare arrays of the whole list: `page` and `per_page` are ignored, as
// the API ignores them. Records `{id, hostname, type, value, ttl, priority, flag, tag, dns_zone_id,
// site_id, managed}` with absolute hostnames.
import { netlify as card } from './card.ts'
import { cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface NetlifyRecord {
  id: string
  hostname: string
  type: string
  value: string
  ttl: number
  priority: number | null
  flag: number | null
  tag: string | null
  dns_zone_id: string
  site_id: string | null
  managed: boolean
}

const err = (code: number, message: string, headers: Record<string, string> = {}) => json(code, { code, message }, headers)

export function startNetlifyFake(token = 'nfp_' + nextId().padEnd(36, 'n')) {
  return startRowFake<NetlifyRecord>({
    credential: token,
    authorized: (req) => req.headers.get('authorization') === `Bearer ${token}`,
    errors: {
      unauthorized: () => err(401, 'Access Denied: Invalid token'),
      notFound: () => err(404, 'Not Found'),
      invalid: (m) => err(422, m),
      throttled: cardThrottle(card, 30),
    },
    retryAfter: 30,
    zoneId: () => nextId('5f').padEnd(24, '0'),
    routes: { zones: /^\/api\/v1\/dns_zones$/, records: /^\/api\/v1\/dns_zones\/(?<zone>[^/]+)\/dns_records$/, record: /^\/api\/v1\/dns_zones\/(?<zone>[^/]+)\/dns_records\/(?<id>[^/]+)$/ },
    zoneRow: (z) => ({ id: z.id, name: z.name, dns_servers: ['dns1.p03.nsone.net', 'dns2.p03.nsone.net'], account_slug: 'team' }),
    // The whole list, whatever `page` and `per_page` say.
    list: (_f, _kind, rows) => json(200, rows),
    create(b, z) {
      if (typeof b.type !== 'string' || typeof b.hostname !== 'string' || typeof b.value !== 'string' || !b.value) return 'type, hostname and value are required'
      if (b.hostname !== z.name && !b.hostname.endsWith(`.${z.name}`)) return `hostname must be within ${z.name}`
      return { id: nextId('rec'), hostname: b.hostname, type: b.type, value: b.value, ttl: b.ttl ?? 3600, priority: b.priority ?? null, flag: b.flag ?? null, tag: b.tag ?? null, dns_zone_id: z.id, site_id: null, managed: false }
    },
    created: (row) => json(201, row),
    deleted: () => new Response(null, { status: 204 }),
    key: (r) => ({ name: r.hostname, type: r.type, id: r.id }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'netlify',
  reference: 'https://open-api.netlify.com/#tag/dnsZone',
  unpaged: { lists: ['zones', 'records'], why: 'getDnsZones and getDnsRecords answer whole lists; the API ignores page and per_page' },
  start: () => startNetlifyFake(),
  base: (f) => f.url + '/api/v1',
  badCredential: 'nfp_wrong',
  foreignZone: { id: 'notmine000', name: 'not-mine.example' },
  seedRow: (z, row) => z.records.push({ id: nextId('rec'), dns_zone_id: z.id, ...row }),
}
