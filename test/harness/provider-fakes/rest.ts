// A stand-in for the many DNS APIs that keep one row per record behind a token: list zones, list a
// zone's records, create one, delete one by id. Each provider's fake (vultr.ts, linode.ts, …) gives
// its routes, its wire format for rows, its paging and its documented error bodies; this file holds
// only the shared loop (auth, routing, the CNAME-stands-alone rule every provider enforces).
import { startFake, type Fake, type FakeZone } from './common.ts'

export interface RowFakeSpec<R> {
  credential: string
  authorized(req: Request, url: URL): boolean
  errors: { unauthorized(): Response; notFound(): Response; invalid(message: string): Response; throttled(wait?: number): Response }
  retryAfter?: number
  zoneId?: (name: string) => string
  routes: { zones: RegExp; records: RegExp; record: RegExp }
  /** The wire row of a zone in the zone list. */
  zoneRow(z: FakeZone<R>): unknown
  /** A page of zones or records as the provider answers it (using servePage). */
  list(f: Fake<R>, kind: 'zones' | 'records', rows: unknown[], url: URL): Response
  /** A stored row from a create request's body, or the reason it is invalid. */
  create(body: any, zone: FakeZone<R>): R | string
  created(row: R): Response
  deleted(): Response
  /** A provider's refusal to delete a row it keeps itself (Vercel's system records), or null. */
  refuseDelete?(row: R): Response | null
  /** Name (absolute) and type of a stored row. */
  key(row: R, zone: FakeZone<R>): { name: string; type: string; id: string }
  /** Runs first on each request (a fake whose signature covers the body reads the body here). */
  prepare?(req: Request): Promise<void>
  /** Whether a zone is reached by this request (Vercel: a team's domain only with its `teamId`). */
  visible?(zone: FakeZone<R>, url: URL): boolean
  /** Answers a request before authorization when it is not the API's (an OAuth token endpoint), else null. */
  preempt?(req: Request, url: URL): Promise<Response | null>
  /** Any other request the provider's API answers (an identity call), or null. */
  extra?(req: Request, url: URL): Response | null
  /** Read the request body (JSON unless told otherwise). */
  body?(req: Request): Promise<any>
}

export function startRowFake<R>(spec: RowFakeSpec<R>): Fake<R> {
  return startFake<R>({
    credential: spec.credential,
    zoneId: spec.zoneId,
    retryAfter: spec.retryAfter,
    throttled: spec.errors.throttled,
    async handle(req, url, f) {
      await spec.prepare?.(req)
      const early = await spec.preempt?.(req, url)
      if (early) return early
      if (!spec.authorized(req, url)) return spec.errors.unauthorized()
      const other = spec.extra?.(req, url)
      if (other) return other
      const visible = (z: FakeZone<R>) => spec.visible?.(z, url) ?? true
      if (req.method === 'GET' && spec.routes.zones.test(url.pathname)) return spec.list(f, 'zones', f.zones.filter(visible).map(spec.zoneRow), url)
      const m = spec.routes.record.exec(url.pathname) ?? spec.routes.records.exec(url.pathname)
      const z = m?.groups?.zone && decodeURIComponent(m.groups.zone)
      const zone = z ? f.zones.find((x) => (x.id === z || x.name === z) && visible(x)) : undefined
      if (!m || !zone) return spec.errors.notFound()
      const id = m.groups?.id && decodeURIComponent(m.groups.id)
      if (req.method === 'GET' && !id) return spec.list(f, 'records', zone.records, url)
      if (req.method === 'POST' && !id) {
        const row = spec.create(spec.body ? await spec.body(req) : await req.json(), zone)
        if (typeof row === 'string') return spec.errors.invalid(row)
        const k = spec.key(row, zone)
        const others = zone.records.map((r) => spec.key(r, zone)).filter((o) => o.name === k.name)
        if ((k.type === 'CNAME' && others.length > 0) || others.some((o) => o.type === 'CNAME')) return spec.errors.invalid('A CNAME cannot stand beside other records of the same name')
        // The apex always holds the zone's SOA and NS at the host, listed or not (Vercel lists no apex
        // NS): a CNAME there clashes (RFC 1034 §3.6.2), and these hosts refuse it.
        if (k.type === 'CNAME' && k.name === zone.name) return spec.errors.invalid('A CNAME cannot stand at the zone apex (it holds the SOA and NS records)')
        zone.records.push(row)
        return spec.created(row)
      }
      if (req.method === 'DELETE' && id) {
        const i = zone.records.findIndex((r) => spec.key(r, zone).id === id)
        if (i === -1) return spec.errors.notFound()
        const refused = spec.refuseDelete?.(zone.records[i]!)
        if (refused) return refused
        zone.records.splice(i, 1)
        return spec.deleted()
      }
      return spec.errors.invalid(`${req.method} ${url.pathname} is not an operation of this API`)
    },
  })
}
