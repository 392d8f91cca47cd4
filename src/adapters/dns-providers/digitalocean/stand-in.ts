// DigitalOcean API v2 domains and domain records, the parts the adapter uses
// (https://docs.digitalocean.com/reference/api/api-reference/#tag/Domain-Records): Bearer token;
// errors `{id, message}` with 401 `unauthorized`, 404 `not_found`, 429 `too_many_requests` (with
// ratelimit headers, as the card says), 422 `unprocessable_entity`; lists paged with `links.pages.next`
// and `meta.total`, as many a page as `per_page` asks (at most 200).
// Record `name` is relative (`@`); CNAME/MX/NS/SRV `data` are taken with the trailing dot and answered
// without it (test/fixtures/provider-recordings/digitalocean.json); CAA `flags`/`tag`.
import { digitalocean as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import { oauthServer, type ProviderOAuthFake } from '../../../../test/harness/provider-fakes/oauth.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface DoRecord {
  id: number
  type: string
  name: string
  data: string
  priority: number | null
  port: number | null
  ttl: number
  weight: number | null
  flags: number | null
  tag: string | null
}

const err = (status: number, id: string, message: string, headers: Record<string, string> = {}) => json(status, { id, message }, headers)

/**
 * DigitalOcean's own refusals of one call, for `refuseNext` (issue 46), as its published OpenAPI gives
 * them (test/fixtures/provider-openapi/digitalocean.json, components `responses`): 422
 * `unprocessable_entity`, 500 `{id: "server_error", message: "Unexpected server-side error"}`, 429
 * `{id: "too_many_requests", message: "API rate limit exceeded."}` with its ratelimit headers (a reset an
 * hour away, as when the hourly budget of 5000 is spent, so no client waits it out).
 */
export const DO_REFUSALS = {
  unprocessable: () => err(422, 'unprocessable_entity', 'Data needs to be a valid value'),
  serverError: () => err(500, 'server_error', 'Unexpected server-side error'),
  rateLimited: () => err(429, 'too_many_requests', 'API rate limit exceeded.', { 'ratelimit-limit': '5000', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) }),
}

/** As many as asked (`per_page`, default 20, most 200), as DigitalOcean's reference says. */
function paged<T>(f: Fake<any>, list: 'zones' | 'records', key: string, items: T[], url: URL) {
  const p = Number(url.searchParams.get('page') ?? 1)
  const size = Math.min(Number(url.searchParams.get('per_page') ?? 20), 200)
  const page = askedPage(f, list, items, (p - 1) * size, size, 200)
  const last = Math.max(1, Math.ceil(items.length / size))
  // DigitalOcean names its own origin in the links whatever address it was reached at (its OpenAPI:
  // `links.pages.next` example "https://api.digitalocean.com/v2/images?page=2").
  const link = (n: number) => `https://api.digitalocean.com${url.pathname}?page=${n}&per_page=${size}`
  return { [key]: page, links: p < last ? { pages: { last: link(last), next: link(p + 1) } } : {}, meta: { total: items.length } }
}

/**
 * With OAuth (https://docs.digitalocean.com/reference/api/oauth/): GET /v1/oauth/authorize is the
 * person's page (here `approve`), POST /v1/oauth/token exchanges a code (form body: grant_type,
 * code, client_id, client_secret, redirect_uri; PKCE verifier checked when a challenge was sent) for
 * `{access_token, token_type: "bearer", expires_in, refresh_token, scope, info}`; `grant_type=refresh_token`
 * trades a refresh token (once) for a new pair; errors are
 * `{error, error_description}` (400 invalid_grant, 401 invalid_client). Issued tokens work on API v2.
 */
export function startDigitalOceanFake(token = 'dop_v1_' + nextId()): Fake<DoRecord> & { oauth: ProviderOAuthFake } {
  let seq = 1000
  const tokens = new Set([token])
  const server = oauthServer({
    authorizePath: '/v1/oauth/authorize',
    tokenPath: '/v1/oauth/token',
    prefix: 'doo_v1_',
    expiresIn: 2592000,
    rotate: true,
    tokenType: 'bearer',
    extra: () => ({ scope: 'read write', info: { name: 'Pat', email: 'pat@example.com', uuid: nextId() } }),
    accept: (t) => tokens.add(t),
    refuse: (t) => tokens.delete(t),
  })
  const fake = startFake<DoRecord>({
    credential: token,
    zoneId: (name) => name,
    retryAfter: 30,
    throttled: cardThrottle(card, 30),
    async handle(req, url, f) {
      const granted = await server.handle(req, url)
      if (granted) return granted
      const bearer = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1]
      if (!bearer || !tokens.has(bearer)) return err(401, 'unauthorized', 'Unable to authenticate you')
      const path = url.pathname.replace(/^\/v2/, '')
      if (req.method === 'GET' && path === '/domains') return json(200, paged(f, 'zones', 'domains', f.zones.map((z) => ({ name: z.name, ttl: 1800, zone_file: '' })), url))
      const m = /^\/domains\/([^/]+)\/records(?:\/(\d+))?$/.exec(path)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'not_found', 'The resource you were accessing could not be found.')
      if (req.method === 'GET' && !m[2]) return json(200, paged(f, 'records', 'domain_records', zone.records, url))
      if (req.method === 'POST' && !m[2]) {
        const b = (await req.json()) as Partial<DoRecord>
        if (!b.type || b.name === undefined || b.data === undefined) return err(422, 'unprocessable_entity', 'Data needs to be a valid value')
        if (b.ttl !== undefined && b.ttl < 30) return err(422, 'unprocessable_entity', 'TTL must be at least 30 seconds')
        if (b.type === 'SRV' && (b.port == null || b.weight == null || b.priority == null)) return err(422, 'unprocessable_entity', 'Port, weight and priority are required for SRV records')
        // DigitalOcean takes a hostname with the trailing dot and answers it without (lexicon's recording:
        // `docs.example.com.` in, `docs.example.com` out); `@` stays `@`.
        const data = ['CNAME', 'MX', 'NS', 'SRV'].includes(b.type) && b.data.endsWith('.') && b.data !== '.' ? b.data.slice(0, -1) : b.data
        // A CNAME shares its name with nothing (DigitalOcean's DNS docs, "Manage DNS records", CNAME: not
        // where another record of the name exists; RFC 1034 §3.6.2): refused 422, as a client that
        // created the new record before deleting the old one would be.
        const clash = zone.records.some((r) => r.name === b.name && (r.type === 'CNAME' || b.type === 'CNAME'))
        if (clash) return err(422, 'unprocessable_entity', 'CNAME records cannot share a name with other records.')
        const rec: DoRecord = { id: ++seq, type: b.type, name: b.name, data, priority: b.priority ?? null, port: b.port ?? null, ttl: b.ttl ?? 1800, weight: b.weight ?? null, flags: b.flags ?? null, tag: b.tag ?? null }
        zone.records.push(rec)
        return json(201, { domain_record: rec })
      }
      if (req.method === 'DELETE' && m[2]) {
        const i = zone.records.findIndex((r) => r.id === Number(m[2]))
        if (i === -1) return err(404, 'not_found', 'The resource you were accessing could not be found.')
        zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      return err(405, 'method_not_allowed', 'Method not allowed')
    },
  })
  return Object.assign(fake, { oauth: server.oauth })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'digitalocean',
  reference: 'https://docs.digitalocean.com/reference/api/api-reference/#tag/Domain-Records',
  start: () => startDigitalOceanFake(),
  base: (f) => f.url + '/v2',
  badCredential: 'dop_v1_wrong',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 200 a page; DigitalOcean answers as many as asked, up to 200.
  pageFill: { zones: 201, records: { count: 200, row: (_z, i) => ({ id: 900000 + i, type: 'TXT', name: `filler${i}`, data: `filler-${i}`, priority: null, port: null, ttl: 1800, weight: null, flags: null, tag: null }) } },
  seedRow: (z, row) => z.records.push({ id: 800000 + z.records.length + Math.floor(Math.random() * 1e5), ...row }),
}
