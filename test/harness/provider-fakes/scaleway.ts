// Scaleway Domains and DNS v2beta1, the parts the adapter uses
// (https://www.scaleway.com/en/developers/api/domains-and-dns/#path-records-update-records-within-a-dns-zone):
// `X-Auth-Token`; errors `{message, type}` (401 denied_authentication, 404 not_found with
// `resource`, 400 invalid_arguments, 409 conflict, 429 too many requests with Retry-After); lists
// `{dns_zones|records, total_count}` paged by `page`/`page_size`. PATCH …/records takes `changes`
// (`add`, `set`, `delete` by `id_fields`) and applies them all or none. Record rows `{id, data,
// name, priority, ttl, type, comment}`; TXT data quoted.
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export interface ScwRecord {
  id: string
  data: string
  name: string
  priority: number
  ttl: number
  type: string
  comment: string | null
}

export function startScalewayFake(secret = crypto.randomUUID()): Fake<ScwRecord> {
  const err = (status: number, type: string, message: string, extra: object = {}, headers: Record<string, string> = {}) => json(status, { message, type, ...extra }, headers)
  return startFake<ScwRecord>({
    credential: secret,
    zoneId: (name) => name,
    retryAfter: 6,
    throttled: () => err(429, 'too_many_requests', 'too many requests', {}, { 'retry-after': '6' }),
    async handle(req, url, f) {
      if (req.headers.get('x-auth-token') !== secret) return err(401, 'denied_authentication', 'authentication is denied', { method: 'api_key', reason: 'invalid_argument' })
      const list = (kind: 'zones' | 'records', key: string, rows: unknown[]) => {
        const s = servePage(f, kind, rows, Number(url.searchParams.get('page') ?? 1), Number(url.searchParams.get('page_size') ?? 20))
        return json(200, { [key]: s.items, total_count: s.total })
      }
      if (req.method === 'GET' && url.pathname === '/domain/v2beta1/dns-zones') return list('zones', 'dns_zones', f.zones.map((z) => ({ domain: z.name, subdomain: '', ns: ['ns0.dom.scw.cloud', 'ns1.dom.scw.cloud'], status: 'active', project_id: secret })))
      const m = /^\/domain\/v2beta1\/dns-zones\/([^/]+)\/records$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === decodeURIComponent(m[1]!))
      if (!m || !zone) return err(404, 'not_found', 'resource is not found', { resource: 'dns_zone', resource_id: m?.[1] ?? '' })
      if (req.method === 'GET') return list('records', 'records', zone.records)
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
        if (id.type === 'TXT' && recs.some((r) => !r.data!.startsWith('"'))) return invalid('TXT data must be quoted')
        if ((id.type === 'CNAME' && rest.some((r) => r.name === id.name)) || rest.some((r) => r.name === id.name && r.type === 'CNAME')) return err(409, 'conflict', 'CNAME record conflicts with other records')
        next.splice(0, next.length, ...rest, ...recs.map((r) => ({ id: crypto.randomUUID(), data: r.data!, name: id.name, priority: r.priority ?? 0, ttl: r.ttl ?? 3600, type: id.type, comment: null })))
      }
      zone.records = next
      return json(200, { records: [] })
    },
  })
}
