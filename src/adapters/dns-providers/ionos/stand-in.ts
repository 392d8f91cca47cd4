// IONOS DNS API v1, the parts the adapter uses (https://developer.hosting.ionos.com/docs/dns):
// `X-API-Key`; errors are lists `[{code, message}]` (401 UNAUTHORIZED, 404 ZONE_NOT_FOUND /
// RECORD_NOT_FOUND, 400 INVALID_RECORD, 429 TOO_MANY_REQUESTS with Retry-After). The zone list and a
// zone's records are whole lists (GET /zones/{id} embeds `records`); POST …/records takes a list.
// Records `{id, name, rootName, type, content, ttl, prio, disabled, changeDate}` with absolute names;
// a bare TXT content is stored quoted (test/fixtures/provider-recordings/ionos.json).
// Rate limit and errors as the card says (src/adapters/dns-providers/ionos/card.ts).
import { ionos as card } from './card.ts'
import { cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface IonosRecord {
  id: string
  name: string
  rootName: string
  type: string
  content: string
  ttl: number
  prio?: number
  disabled: boolean
  changeDate: string
}

export function startIonosFake(key = `${nextId('pub')}.${nextId('sec').padEnd(30, 's')}`) {
  const err = (status: number, code: string, message: string, headers: Record<string, string> = {}) => json(status, [{ code, message }], headers)
  return startRowFake<IonosRecord>({
    credential: key,
    authorized: (req) => req.headers.get('x-api-key') === key,
    errors: { unauthorized: () => err(401, 'UNAUTHORIZED', 'The customer is not authorized to do this operation.'), notFound: () => err(404, 'ZONE_NOT_FOUND', 'Zone not found.'), invalid: (m) => err(400, 'INVALID_RECORD', m), throttled: cardThrottle(card, 0) },
    zoneId: () => crypto.randomUUID(),
    routes: { zones: /^\/dns\/v1\/zones$/, records: /^\/dns\/v1\/zones\/(?<zone>[^/]+)(?:\/records)?$/, record: /^\/dns\/v1\/zones\/(?<zone>[^/]+)\/records\/(?<id>[^/]+)$/ },
    zoneRow: (z) => ({ id: z.id, name: z.name, type: 'NATIVE' }),
    list(_f, kind, rows, url) {
      if (kind === 'zones') return json(200, rows)
      const id = /zones\/([^/]+)$/.exec(url.pathname)![1]!
      const zone = _f.zones.find((z) => z.id === id)!
      // A zone read filtered by recordType and recordName (lexicon's recording).
      const type = url.searchParams.get('recordType'), name = url.searchParams.get('recordName')
      return json(200, { id: zone.id, name: zone.name, type: 'NATIVE', records: (rows as IonosRecord[]).filter((r) => (!type || r.type === type) && (!name || r.name === name)) })
    },
    create(b, z) {
      const r = Array.isArray(b) && b.length === 1 ? b[0] : null
      if (!r || typeof r.type !== 'string' || typeof r.name !== 'string' || typeof r.content !== 'string' || !r.content) return 'Record is invalid: name, type and content are required'
      if (r.name !== z.name && !r.name.endsWith(`.${z.name}`)) return 'Record name is not in the zone'
      if (!card.records.types.includes(r.type) || r.type === 'SOA') return `Record type ${r.type} is not supported`
      if (r.ttl !== undefined && r.ttl < card.ttl.min) return `TTL must be at least ${card.ttl.min}`
      // IONOS stores TXT content quoted: `challengetoken` in, `"challengetoken"` out (lexicon's recording).
      const content = r.type === 'TXT' && !/^".*"$/s.test(r.content) ? `"${r.content.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : r.content
      return { id: crypto.randomUUID(), name: r.name, rootName: z.name, type: r.type, content, ttl: r.ttl ?? 3600, ...(r.prio !== undefined ? { prio: r.prio } : {}), disabled: !!r.disabled, changeDate: new Date().toISOString() }
    },
    created: (row) => json(201, [row]),
    deleted: () => new Response(null, { status: 200 }),
    key: (r) => ({ name: r.name, type: r.type, id: r.id }),
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'ionos', reference: 'https://developer.hosting.ionos.com/docs/dns', unpaged: { lists: ['zones', 'records'], why: 'GET /dns/v1/zones and GET /dns/v1/zones/{id} answer whole lists' }, start: () => startIonosFake(), base: (f) => f.url, badCredential: 'wrong.key', foreignZone: { id: '00000000-0000-0000-0000-000000000000', name: 'not-mine.example' } }
