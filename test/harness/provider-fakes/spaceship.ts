// Spaceship API v1, the parts the adapter uses (https://docs.spaceship.dev/#tag/DNS-records,
// #tag/Domains): `X-API-Key` and `X-API-Secret`; errors `{detail, data?}` (401 "Unauthorized", 404
// "Domain not found", 422 with `data: [{field, details}]`, 429 with Retry-After); lists `{items,
// total}` paged by `take`/`skip`. Records have no ids: PUT `{force, items}` adds items, DELETE with a
// list of items removes the matching ones. Each type carries its own fields (A `address`, CNAME
// `cname`, MX `exchange`+`preference`, TXT `value`, CAA `flag`+`tag`+`value`).
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export type SpaceshipItem = { type: string; name: string; ttl: number } & Record<string, unknown>

const FIELDS: Record<string, string[]> = { A: ['address'], AAAA: ['address'], CNAME: ['cname'], NS: ['nameserver'], MX: ['exchange', 'preference'], TXT: ['value'], CAA: ['flag', 'tag', 'value'] }
const same = (a: SpaceshipItem, b: SpaceshipItem) => a.type === b.type && a.name === b.name && (FIELDS[a.type] ?? []).every((k) => a[k] === b[k])

export function startSpaceshipFake(key = nextId('ssk'), secret = nextId('sss').padEnd(40, 's')): Fake<SpaceshipItem> {
  const err = (status: number, detail: string, extra: object = {}, headers: Record<string, string> = {}) => json(status, { detail, ...extra }, headers)
  return startFake<SpaceshipItem>({
    credential: `${key}:${secret}`,
    zoneId: (name) => name,
    retryAfter: 25,
    throttled: () => err(429, 'Too many requests', {}, { 'retry-after': '25' }),
    async handle(req, url, f) {
      if (req.headers.get('x-api-key') !== key || req.headers.get('x-api-secret') !== secret) return err(401, 'Unauthorized')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const skip = Number(url.searchParams.get('skip') ?? 0)
        const take = Math.min(Number(url.searchParams.get('take') ?? 100), 3)
        servePage(f, kind, rows, Math.floor(skip / take) + 1, take)
        return json(200, { items: rows.slice(skip, skip + take), total: rows.length })
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
        zone.records = zone.records.filter((r) => !items.some((x) => same(r, x)))
        return new Response(null, { status: 204 })
      }
      if (req.method === 'PUT') {
        const b = (await req.json()) as { force?: boolean; items?: SpaceshipItem[] }
        const next = [...zone.records]
        for (const x of b.items ?? []) {
          const bad = check(x)
          if (bad) return invalid('items', bad)
          const others = next.filter((r) => r.name === x.name && r.type !== x.type)
          if ((x.type === 'CNAME' && others.length) || others.some((r) => r.type === 'CNAME')) return invalid('items', 'a CNAME cannot stand beside other records')
          if (!next.some((r) => same(r, x))) next.push({ type: x.type, name: x.name, ttl: x.ttl ?? 3600, ...Object.fromEntries((FIELDS[x.type] ?? []).map((k) => [k, x[k]])) })
        }
        zone.records = next
        return new Response(null, { status: 204 })
      }
      return err(405, 'Method not allowed')
    },
  })
}
