// Constellix DNS API v4, the parts the adapter uses (https://api.dns.constellix.com/v4/docs, Domains
// and Records): `Authorization: Bearer <apiKey>:<hmac>:<timestamp>`, the hmac recomputed here as
// base64 HMAC-SHA1 of the timestamp under the secret, and a timestamp more than five minutes off
// refused (401 `{message}`); lists paged by `page`/`perPage` with `meta.pagination`; a record is a
// whole set `{id, name, type, ttl, mode, value: [...]}` (relative name, lowercase type); POST creates
// (422 if the name and type already have one, or a CNAME would stand beside other records), PUT
// replaces by id, DELETE removes by id (404 `{message}` for an unknown domain or record); 429 with
// Retry-After.
import { createHmac } from 'node:crypto'
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export interface ConstellixRecord {
  id: number
  name: string
  type: string
  ttl: number
  mode: string
  value: Record<string, unknown>[]
}

const err = (status: number, message: string, headers: Record<string, string> = {}) => json(status, { message }, headers)

/** The fields each value of a type must carry. */
const FIELDS: Record<string, string[]> = { mx: ['server', 'priority'], cname: ['hostname'], ns: ['hostname'], caa: ['flag', 'tag', 'data'] }

export function startConstellixFake(key = nextId('ck'), secret = nextId('cs').padEnd(36, 's')): Fake<ConstellixRecord> {
  let ids = 400000
  const signed = (req: Request) => {
    const [k, hmac, ts] = (req.headers.get('authorization') ?? '').replace(/^Bearer /, '').split(':')
    return k === key && Math.abs(Date.now() - Number(ts)) < 300_000 && hmac === createHmac('sha1', secret).update(ts ?? '').digest('base64')
  }
  return startFake<ConstellixRecord>({
    credential: `${key}:${secret}`,
    zoneId: () => String(++ids),
    retryAfter: 9,
    throttled: () => err(429, 'Too many requests', { 'retry-after': '9' }),
    async handle(req, url, f) {
      if (!signed(req)) return err(401, 'Unauthenticated')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const page = Number(url.searchParams.get('page') ?? 1)
        const s = servePage(f, kind, rows, page, Number(url.searchParams.get('perPage') ?? 25))
        return json(200, { data: s.items, meta: { pagination: { total: s.total, count: s.items.length, perPage: s.size, currentPage: page, totalPages: s.last } } })
      }
      if (req.method === 'GET' && url.pathname === '/v4/domains') return list('zones', f.zones.map((z) => ({ id: Number(z.id), name: z.name, status: 'ACTIVE' })))
      const m = /^\/v4\/domains\/(\d+)\/records(?:\/(\d+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.id === m[1])
      if (!m || !zone) return err(404, 'Domain not found')
      const id = m[2] ? Number(m[2]) : undefined
      if (req.method === 'GET' && id === undefined) return list('records', zone.records)
      const i = id === undefined ? -1 : zone.records.findIndex((r) => r.id === id)
      if (id !== undefined && i === -1) return err(404, 'Record not found')
      if (req.method === 'DELETE' && id !== undefined) {
        zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      if ((req.method === 'POST' && id === undefined) || (req.method === 'PUT' && id !== undefined)) {
        const b = (await req.json()) as Partial<ConstellixRecord>
        const type = String(b.type ?? '')
        if (typeof b.name !== 'string' || !/^[a-z]+$/.test(type) || !Number.isInteger(b.ttl) || !Array.isArray(b.value) || b.value.length === 0) return err(422, 'name, type (lowercase), ttl and value are required')
        if (b.value.some((v) => (FIELDS[type] ?? ['value']).some((k) => v[k] === undefined || v[k] === ''))) return err(422, `each ${type} value needs ${(FIELDS[type] ?? ['value']).join(', ')}`)
        const others = zone.records.filter((r) => r.name === b.name && r.id !== id)
        if (others.some((r) => r.type === type)) return err(422, 'A record of this name and type already exists')
        if ((type === 'cname' && others.length) || others.some((r) => r.type === 'cname')) return err(422, 'A CNAME cannot stand beside other records of the same name')
        const row: ConstellixRecord = { id: id ?? ++ids, name: b.name, type, ttl: b.ttl!, mode: b.mode ?? 'standard', value: b.value }
        if (i === -1) zone.records.push(row)
        else zone.records[i] = row
        return json(id === undefined ? 201 : 200, { data: row })
      }
      return err(405, `${req.method} ${url.pathname} is not an operation of this API`)
    },
  })
}
