// Scaleway Domains and DNS v2beta1, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/scaleway/card.ts) and held to Scaleway's OpenAPI document by the contract test
// (test/fixtures/provider-openapi/scaleway.json): `X-Auth-Token`; errors `{message, type}` (401
// denied_authentication, 404 not_found with `resource`, 400 invalid_arguments, 409 conflict, 429 as the
// card's rate limit); lists `{dns_zones|records, total_count}` paged by `page`/`page_size` as asked,
// filtered by `domain` / `name` (empty: all). PATCH …/records takes `changes` (`add`, `set`, `delete`
// by `id_fields`) and applies them all or none. Record rows `{id, data, name, priority, ttl, type,
// comment}` and a dynamic record's `geo_ip_config` / `http_service_config` / `weighted_config` /
// `view_config`; TXT data quoted; `set` keeps what each record it is given carries (its comment).
import { scaleway as card } from './card.ts'
import { askedPage, cardThrottle, json, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

/**
 * Answers a test injects with `refuseNext`: `transient`, a write on a zone still applying an earlier
 * change (409 type transient_state, which scaleway-sdk-go scw/errors.go types as TransientStateError).
 */
export const SCW_REFUSALS = {
  transient: (zone: string) => () => json(409, { message: 'resource is in a transient state', resource: 'dns_zone', resource_id: zone, current_state: 'pending', type: 'transient_state' }),
}

export interface ScwRecord {
  id: string
  data: string
  name: string
  priority: number
  ttl: number
  type: string
  comment: string | null
  [dynamic: string]: unknown
}

const zoneRow = (name: string, project: string) => ({ domain: name, subdomain: '', ns: ['ns0.dom.scw.cloud', 'ns1.dom.scw.cloud'], ns_default: ['ns0.dom.scw.cloud', 'ns1.dom.scw.cloud'], ns_master: [], status: 'active', message: null, updated_at: '2026-01-01T00:00:00Z', project_id: project, linked_products: [] })

export function startScalewayFake(secret = crypto.randomUUID()): Fake<ScwRecord> {
  const err = (status: number, type: string, message: string, extra: object = {}, headers: Record<string, string> = {}) => json(status, { message, type, ...extra }, headers)
  return startFake<ScwRecord>({
    credential: secret,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      if (req.headers.get('x-auth-token') !== secret) return err(401, 'denied_authentication', 'authentication is denied', { method: 'api_key', reason: 'invalid_argument' })
      const list = (kind: 'zones' | 'records', key: string, rows: unknown[]) => {
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1))
        const size = Math.min(Math.max(1, Number(url.searchParams.get('page_size') ?? 20)), 1000)
        return json(200, { total_count: rows.length, [key]: askedPage(f, kind, rows, (page - 1) * size, size, 1000) })
      }
      if (req.method === 'GET' && url.pathname === '/domain/v2beta1/dns-zones') {
        const domain = url.searchParams.get('domain') ?? ''
        return list('zones', 'dns_zones', f.zones.filter((z) => !domain || z.name === domain).map((z) => zoneRow(z.name, secret)))
      }
      const m = /^\/domain\/v2beta1\/dns-zones\/([^/]+)\/records$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === decodeURIComponent(m[1]!))
      if (!m || !zone) return err(404, 'not_found', 'resource is not found', { resource: 'dns_zone', resource_id: m?.[1] ?? '' })
      if (req.method === 'GET') {
        const name = url.searchParams.get('name') ?? ''
        return list('records', 'records', zone.records.filter((r) => !name || r.name === name))
      }
      if (req.method !== 'PATCH') return err(405, 'method_not_allowed', 'method not allowed')
      const b = (await req.json()) as { changes: any[] }
      const next = [...zone.records]
      const invalid = (m: string) => err(400, 'invalid_arguments', 'invalid argument(s)', { details: [{ argument_name: 'changes', reason: 'constraint', help_message: m }] })
      for (const c of b.changes ?? []) {
        const id = c.set?.id_fields ?? c.delete?.id_fields
        if (!id || typeof id.name !== 'string' || !id.type) return invalid('id_fields name and type are required')
        const rest = next.filter((r) => !(r.name === id.name && r.type === id.type))
        if (c.delete) {
          if (rest.length === next.length) return err(404, 'not_found', 'resource is not found', { resource: 'dns_record' })
          next.splice(0, next.length, ...rest)
          continue
        }
        const recs = c.set.records as Partial<ScwRecord>[]
        if (!Array.isArray(recs) || recs.length === 0 || recs.some((r) => !r.data)) return invalid('records need data')
        if (!card.records.types.includes(id.type)) return invalid(`record type ${id.type} is not supported`)
        if (id.type === 'TXT' && recs.some((r) => !r.data!.startsWith('"'))) return invalid('TXT data must be quoted')
        if (recs.some((r) => (r.ttl ?? card.ttl.default) < card.ttl.min)) return invalid(`ttl must be at least ${card.ttl.min}`)
        if ((id.type === 'CNAME' && rest.some((r) => r.name === id.name)) || rest.some((r) => r.name === id.name && r.type === 'CNAME')) return err(409, 'conflict', 'CNAME record conflicts with other records')
        next.splice(0, next.length, ...rest, ...recs.map((r) => ({ id: crypto.randomUUID(), data: r.data!, name: id.name, priority: r.priority ?? 0, ttl: r.ttl ?? card.ttl.default, type: id.type, comment: r.comment ?? null })))
      }
      zone.records = next
      return json(200, { records: [] })
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'scaleway',
  reference: 'https://www.scaleway.com/en/developers/api/domains-and-dns/',
  start: () => startScalewayFake(),
  base: (f) => f.url,
  badCredential: '00000000-0000-4000-8000-000000000000',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 1000 a page; Scaleway answers as many as asked.
  pageFill: { zones: 1001, records: { count: 1000, row: (_z, i) => ({ id: `filler-${i}`, data: `"filler-${i}"`, name: `filler${i}`, priority: 0, ttl: 3600, type: 'TXT', comment: null }) } },
}
