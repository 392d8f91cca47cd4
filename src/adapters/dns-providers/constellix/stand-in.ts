// Constellix DNS API v4, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/constellix/card.ts; https://api.dns.constellix.com/v4/docs, the provider's
// SDK digicert/dnstrust-constellix-php-sdk): `Authorization: Bearer <apiKey>:<hmac>:<timestamp>`, the
// hmac recomputed here as base64 HMAC-SHA1 of the timestamp under the secret, and a timestamp more than
// five minutes off refused (401); lists paged by `page`/`perPage` as asked, with `meta.pagination`; a
// record is a whole set `{id, name, type, ttl, mode, region, ipfilter, geoproximity, enabled, notes,
// contacts, value}` (relative name, upper-case type; HTTP redirection's value one object); POST creates
// (422 if the name and type already have one, or a CNAME would stand beside other records), PUT
// replaces by id, every field (what is not sent goes back to its default), DELETE removes by id (404 for
// an unknown domain or record); 429 with X-RateLimit-Reset.
import { createHmac } from 'node:crypto'
import { constellix as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface ConstellixRecord {
  id: number
  name: string
  type: string
  ttl: number
  mode: string
  region: string
  ipfilter: unknown
  geoproximity: unknown
  enabled: boolean
  notes: string
  contacts: { id: number }[]
  value: unknown
}

const err = (status: number, message: string, headers: Record<string, string> = {}) => json(status, { message }, headers)

/** The fields each value of a type must carry. */
const FIELDS: Record<string, string[]> = { MX: ['server', 'priority'], CNAME: ['hostname'], NS: ['hostname'], CAA: ['flag', 'tag', 'data'] }
const TYPES = new Set(card.records.types)

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
    throttled: cardThrottle(card, 9),
    async handle(req, url, f) {
      if (!signed(req)) return err(401, 'Unauthenticated.')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const page = Number(url.searchParams.get('page') ?? 1)
        const perPage = Number(url.searchParams.get('perPage') ?? 50)
        if (!(page >= 1 && perPage >= 1)) return err(422, 'The given data was invalid.')
        const items = askedPage(f, kind, rows, (page - 1) * perPage, perPage)
        return json(200, { data: items, meta: { pagination: { total: rows.length, count: items.length, perPage, currentPage: page, totalPages: Math.max(1, Math.ceil(rows.length / perPage)) } } })
      }
      if (req.method === 'GET' && url.pathname === '/v4/domains') return list('zones', f.zones.map((z) => ({ id: Number(z.id), name: z.name, status: 'ACTIVE', enabled: true })))
      const m = /^\/v4\/domains\/(\d+)\/records(?:\/(\d+))?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.id === m[1])
      if (!m || !zone) return err(404, 'Not found.')
      const id = m[2] ? Number(m[2]) : undefined
      if (req.method === 'GET' && id === undefined) return list('records', zone.records)
      const i = id === undefined ? -1 : zone.records.findIndex((r) => r.id === id)
      if (id !== undefined && i === -1) return err(404, 'Not found.')
      if (req.method === 'DELETE' && id !== undefined) {
        zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      if ((req.method === 'POST' && id === undefined) || (req.method === 'PUT' && id !== undefined)) {
        const b = (await req.json()) as Partial<ConstellixRecord>
        const type = String(b.type ?? '')
        if (typeof b.name !== 'string' || !TYPES.has(type) || !Number.isInteger(b.ttl) || b.ttl! < card.ttl.min || b.value === undefined) return err(422, 'The given data was invalid.')
        if (type === 'HTTP' ? typeof (b.value as { url?: unknown }).url !== 'string' : !Array.isArray(b.value) || b.value.length === 0) return err(422, 'The given data was invalid.')
        if (Array.isArray(b.value) && b.value.some((v) => (FIELDS[type] ?? ['value']).some((k) => v[k] === undefined || v[k] === ''))) return err(422, `each ${type} value needs ${(FIELDS[type] ?? ['value']).join(', ')}`)
        const others = zone.records.filter((r) => r.name === b.name && r.id !== id)
        if (others.some((r) => r.type === type)) return err(422, 'A record of this name and type already exists.')
        if ((type === 'CNAME' && others.length) || others.some((r) => r.type === 'CNAME')) return err(422, 'A CNAME cannot stand beside other records of the same name.')
        // A PUT replaces every field: what it does not send is reset.
        const row: ConstellixRecord = {
          id: id ?? ++ids,
          name: b.name,
          type,
          ttl: b.ttl!,
          mode: b.mode ?? 'standard',
          region: b.region ?? 'default',
          ipfilter: b.ipfilter ?? null,
          geoproximity: b.geoproximity ?? null,
          enabled: b.enabled ?? true,
          notes: b.notes ?? '',
          contacts: ((b.contacts ?? []) as unknown[]).map((c) => ({ id: Number((c as { id?: number })?.id ?? c) })),
          value: b.value,
        }
        if (i === -1) zone.records.push(row)
        else zone.records[i] = row
        return json(id === undefined ? 201 : 200, { data: row })
      }
      return err(405, `${req.method} ${url.pathname} is not an operation of this API`)
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'constellix',
  reference: 'https://api.dns.constellix.com/v4/docs (Domains, Records)',
  start: () => startConstellixFake(),
  base: (f) => f.url,
  badCredential: 'wrong:wrong',
  foreignZone: { id: '999999', name: 'not-mine.example' },
  // The adapter asks 100 a page; Constellix answers as many as asked.
  pageFill: { zones: 101, records: { count: 100, row: (_z, i) => ({ id: 800000 + parseInt(nextId().slice(-5), 16) * 100 + i, name: `filler${i}`, type: 'TXT', ttl: 3600, mode: 'standard', region: 'default', ipfilter: null, geoproximity: null, enabled: true, notes: '', contacts: [], value: [{ value: `filler-${i}`, enabled: true }] }) } },
  seedRow: (z, row) => z.records.push({ ...row, id: 900000 + parseInt(nextId().slice(-5), 16) }),
}
