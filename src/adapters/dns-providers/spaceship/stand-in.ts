// Spaceship API v1, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/spaceship/card.ts; https://docs.spaceship.dev/#tag/DNS-records, #tag/Domains):
// `X-API-Key` and `X-API-Secret`; errors `{detail, data?}` (401 "Unauthorized", 404 "Domain not found",
// 422 with `data: [{field, details}]`, 429 with Retry-After); lists `{items, total}` paged by
// `take`/`skip`, a page as long as asked (domains at most 100, records 500). Records have no ids: PUT
// `{force?, items}` adds items (a conflicting one refused unless `force`), DELETE with a list of items
// removes those whose fields all match. Each type carries its own fields; stored items carry `group`.
import { spaceship as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export type SpaceshipItem = { type: string; name: string; ttl: number } & Record<string, unknown>

const FIELDS: Record<string, string[]> = {
  A: ['address'],
  AAAA: ['address'],
  CNAME: ['cname'],
  NS: ['nameserver'],
  MX: ['exchange', 'preference'],
  TXT: ['value'],
  CAA: ['flag', 'tag', 'value'],
  ALIAS: ['aliasName'],
  PTR: ['pointer'],
  HTTPS: ['svcPriority', 'targetName', 'svcParams'],
  SVCB: ['svcPriority', 'targetName', 'svcParams'],
  SRV: ['service', 'protocol', 'priority', 'weight', 'port', 'target'],
  TLSA: ['usage', 'selector', 'matching', 'associationData'],
}
const same = (a: SpaceshipItem, b: SpaceshipItem) => a.type === b.type && a.name === b.name && (FIELDS[a.type] ?? []).every((k) => a[k] === b[k])

export function startSpaceshipFake(key = nextId('ssk'), secret = nextId('sss').padEnd(40, 's')): Fake<SpaceshipItem> {
  const err = (status: number, detail: string, extra: object = {}, headers: Record<string, string> = {}) => json(status, { detail, ...extra }, headers)
  return startFake<SpaceshipItem>({
    credential: `${key}:${secret}`,
    zoneId: (name) => name,
    retryAfter: 25,
    throttled: cardThrottle(card, 25),
    async handle(req, url, f) {
      if (req.headers.get('x-api-key') !== key || req.headers.get('x-api-secret') !== secret) return err(401, 'Unauthorized')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const skip = Number(url.searchParams.get('skip'))
        const take = Number(url.searchParams.get('take'))
        const max = kind === 'zones' ? 100 : 500
        if (!(take >= 1 && take <= max) || !(skip >= 0)) return err(422, 'Validation failed', { data: [{ field: 'take', details: `take must be from 1 to ${max}; skip is required` }] })
        return json(200, { items: askedPage(f, kind, rows, skip, take, max), total: rows.length })
      }
      if (req.method === 'GET' && url.pathname === '/api/v1/domains') return list('zones', f.zones.map((z) => ({ name: z.name, unicodeName: z.name, isPremium: false })))
      const m = /^\/api\/v1\/dns\/records\/([^/]+)$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'Domain not found')
      if (req.method === 'GET') return list('records', zone.records)
      const invalid = (field: string, details: string) => err(422, 'Validation failed', { data: [{ field, details }] })
      const check = (x: SpaceshipItem) => (!FIELDS[x.type] || typeof x.name !== 'string' || (FIELDS[x.type] ?? []).some((k) => x[k] === undefined || x[k] === '') ? `${x.type} items need ${(FIELDS[x.type] ?? ['a known type']).join(', ')}` : null)
      if (req.method === 'DELETE') {
        const items = (await req.json()) as SpaceshipItem[]
        if (!Array.isArray(items)) return invalid('body', 'a list of items')
        if (items.some((x) => zone.records.some((r) => same(r, x) && (r.group as { type?: string } | undefined)?.type !== 'custom'))) return err(403, 'Records managed by a Spaceship product cannot be changed')
        zone.records = zone.records.filter((r) => !items.some((x) => same(r, x)))
        return new Response(null, { status: 204 })
      }
      if (req.method === 'PUT') {
        const b = (await req.json()) as { force?: boolean; items?: SpaceshipItem[] }
        const next = [...zone.records]
        for (const x of b.items ?? []) {
          const bad = check(x)
          if (bad) return invalid('items', bad)
          if (typeof x.ttl === 'number' && (x.ttl < card.ttl.min || x.ttl > card.ttl.max!)) return invalid('ttl', `ttl must be from ${card.ttl.min} to ${card.ttl.max}`)
          const others = next.filter((r) => r.name === x.name && r.type !== x.type)
          if ((x.type === 'CNAME' && others.length) || others.some((r) => r.type === 'CNAME')) {
            if (!b.force) return invalid('items', 'a CNAME cannot stand beside other records')
            for (const o of others) next.splice(next.indexOf(o), 1)
          }
          if (!next.some((r) => same(r, x))) next.push({ type: x.type, name: x.name, ttl: x.ttl ?? card.ttl.default, ...Object.fromEntries((FIELDS[x.type] ?? []).map((k) => [k, x[k]])), group: { type: 'custom' } })
        }
        zone.records = next
        return new Response(null, { status: 204 })
      }
      return err(405, 'Method not allowed')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'spaceship',
  reference: 'https://docs.spaceship.dev/#tag/DNS-records',
  start: () => startSpaceshipFake(),
  base: (f) => f.url,
  badCredential: 'wrong:wrong',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 100 domains and 500 records a page; Spaceship answers as many as asked.
  pageFill: { zones: 101, records: { count: 500, row: (_z, i) => ({ type: 'TXT', name: `filler${i}`, ttl: 3600, value: `filler-${i}`, group: { type: 'custom' } }) } },
}
