// Hostinger API, the parts the adapter uses (https://developers.hostinger.com/#tag/dns-zone,
// #tag/domains-portfolio): Bearer token; errors `{message, correlation_id, errors?}` (401
// "Unauthenticated", 404 "Not found", 422 "The given data was invalid." with `errors`, 429 "Too Many
// Attempts." with Retry-After). Both lists are whole. A zone is a list of record sets `{name, type,
// ttl, records: [{content, is_disabled}]}`; PUT with `overwrite: true` replaces the sets it names,
// DELETE removes the sets its `filters` name.
import { hostinger as card } from './card.ts'
import { cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface HostingerRRset {
  name: string
  type: string
  ttl: number
  records: { content: string; is_disabled: boolean }[]
}

export function startHostingerFake(token = nextId('hst').padEnd(48, 'h')): Fake<HostingerRRset> {
  const err = (status: number, message: string, extra: object = {}, headers: Record<string, string> = {}) => json(status, { message, correlation_id: crypto.randomUUID(), ...extra }, headers)
  return startFake<HostingerRRset>({
    credential: token,
    zoneId: (name) => name,
    retryAfter: 60,
    throttled: cardThrottle(card, 60),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Bearer ${token}`) return err(401, 'Unauthenticated')
      if (req.method === 'GET' && url.pathname === '/api/domains/v1/portfolio') return json(200, f.zones.map((z, i) => ({ id: i + 1, domain: z.name, type: 'domain', status: 'active' })))
      const m = /^\/api\/dns\/v1\/zones\/([^/]+)$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'Not found')
      if (req.method === 'GET') return json(200, zone.records)
      const b = (await req.json()) as { overwrite?: boolean; zone?: { name: string; type: string; ttl?: number; records: { content: string }[] }[]; filters?: { name: string; type: string }[] }
      const invalid = (m: string) => err(422, 'The given data was invalid.', { errors: { zone: [m] } })
      if (req.method === 'PUT') {
        const next = [...zone.records]
        for (const s of b.zone ?? []) {
          if (!s.name || !s.type || !Array.isArray(s.records) || s.records.length === 0 || s.records.some((r) => !r.content)) return invalid('each record set needs name, type and records')
          if (s.type === 'TXT' && s.records.some((r) => !r.content.startsWith('"'))) return invalid('TXT content must be quoted')
          const i = next.findIndex((x) => x.name === s.name && x.type === s.type)
          const others = next.filter((x) => x.name === s.name && x.type !== s.type)
          if ((s.type === 'CNAME' && others.length) || others.some((x) => x.type === 'CNAME')) return invalid('CNAME cannot coexist with other records of the name')
          const set = { name: s.name, type: s.type, ttl: s.ttl ?? 14400, records: s.records.map((r) => ({ content: r.content, is_disabled: false })) }
          if (i !== -1 && b.overwrite) next[i] = set
          else if (i !== -1) next[i] = { ...next[i]!, records: [...next[i]!.records, ...set.records] }
          else next.push(set)
        }
        zone.records = next
        return json(200, { message: 'Request accepted' })
      }
      if (req.method === 'DELETE') {
        if (!Array.isArray(b.filters) || b.filters.length === 0) return invalid('filters are required')
        zone.records = zone.records.filter((s) => !b.filters!.some((x) => x.name === s.name && x.type === s.type))
        return json(200, { message: 'Request accepted' })
      }
      return err(405, 'Method not allowed')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'hostinger', reference: 'https://developers.hostinger.com/#tag/dns-zone', unpaged: { lists: ['zones', 'records'], why: 'the portfolio and a zone come as whole lists' }, start: () => startHostingerFake(), base: (f) => f.url, badCredential: 'wrong-token', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } }
