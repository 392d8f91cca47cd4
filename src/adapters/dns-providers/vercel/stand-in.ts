// Vercel REST API DNS, the parts the adapter uses (https://vercel.com/docs/rest-api/reference/endpoints/dns,
// …/domains/list-all-the-domains): Bearer token; errors `{error: {code, message}}` (403 forbidden
// "Not authorized" with `invalidToken: true` for a bad token, 404 not_found, 400 invalid_value, 429
// rate_limited with X-RateLimit-Reset, as the card says); lists `{domains|records, pagination: {count, next, prev}}` where
// `next` is a timestamp passed back as `until`. Records `{id, slug, name, type, value, mxPriority,
// ttl, creator, created}`; names relative (`` the apex); TTL at least 60. A team's domains
// (https://vercel.com/docs/rest-api#accessing-resources-owned-by-a-team) are listed and reached only
// with `?teamId=`; GET /v2/teams lists the token's teams.
import { vercel as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId } from '../../../../test/harness/provider-fakes/common.ts'
import { oauthServer } from '../../../../test/harness/provider-fakes/oauth.ts'
import { startRowFake } from '../../../../test/harness/provider-fakes/rest.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface VercelRecord {
  id: string
  slug: string
  name: string
  type: string
  value: string
  mxPriority?: number
  ttl: number
  creator: string
  created: number
  updated?: number | null
  createdAt?: number | null
  updatedAt?: number | null
  comment?: string
}

const err = (status: number, code: string, message: string, extra: object = {}, headers: Record<string, string> = {}) => json(status, { error: { code, message, ...extra } }, headers)
const EPOCH = 1_700_000_000_000

/**
 * With a Vercel App (https://vercel.com/docs/sign-in-with-vercel): GET /oauth/authorize is the person's
 * consent, POST /login/oauth/token trades a code (PKCE) or a refresh token, which rotates; the access
 * token (an hour) works on the REST API.
 */
export function startVercelFake(token = 'vc' + nextId().padEnd(22, 'v')) {
  const tokens = new Set([token])
  const server = oauthServer({ authorizePath: '/oauth/authorize', tokenPath: '/login/oauth/token', prefix: 'vca_', expiresIn: 3600, rotate: true, accept: (t) => tokens.add(t), refuse: (t) => tokens.delete(t) })
  /** The team owning each team domain (the rest are the account's own). */
  const teams = new Map<string, string>()
  const fake = startRowFake<VercelRecord>({
    credential: token,
    visible: (z, url) => (teams.get(z.name) ?? null) === url.searchParams.get('teamId'),
    extra: (req, url) =>
      req.method === 'GET' && url.pathname === '/v2/teams'
        ? json(200, { teams: [...new Set([...teams.values(), 'team_nodomains'])].map((id) => ({ id, slug: id.replace('team_', ''), name: id })), pagination: { count: 1, next: null, prev: null } })
        : null,
    authorized: (req) => tokens.has(/^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1] ?? ''),
    preempt: (req, url) => server.handle(req, url),
    errors: {
      unauthorized: () => err(403, 'forbidden', 'Not authorized', { invalidToken: true }),
      notFound: () => err(404, 'not_found', 'Domain not found'),
      invalid: (m) => err(400, 'invalid_value', m),
      throttled: cardThrottle(card, 5),
    },
    retryAfter: 5,
    zoneId: (name) => name,
    routes: { zones: /^\/v5\/domains$/, records: /^\/v[24]\/domains\/(?<zone>[^/]+)\/records$/, record: /^\/v2\/domains\/(?<zone>[^/]+)\/records\/(?<id>[^/]+)$/ },
    // A Domain with every property the published document requires of it.
    zoneRow: (z) => ({
      id: `dom_${z.id.length}`,
      name: z.name,
      serviceType: 'zeit.world',
      verified: true,
      nameservers: ['ns1.vercel-dns.com', 'ns2.vercel-dns.com'],
      intendedNameservers: ['ns1.vercel-dns.com', 'ns2.vercel-dns.com'],
      creator: { id: 'ZspSRT4ljIEEmMHgoDwKWDei', username: 'portico', email: 'dns@portico.test' },
      teamId: teams.get(z.name) ?? null,
      userId: 'ZspSRT4ljIEEmMHgoDwKWDei',
      boughtAt: null,
      createdAt: EPOCH,
      expiresAt: null,
    }),
    list(f, kind, rows, url) {
      // `until` is the timestamp of the last item seen; items here are stamped EPOCH + position.
      // As many as `limit` asks (default 20, most 100), as the reference says.
      const until = url.searchParams.get('until')
      const page = until ? Number(until) - EPOCH + 1 : 1
      const size = Math.min(Number(url.searchParams.get('limit') ?? 20), 100)
      // Records newest first (lexicon's recording: a record just created heads the next listing).
      const ordered = kind === 'records' ? [...rows].reverse() : rows
      const items = askedPage(f, kind, ordered, (page - 1) * size, size, 100)
      const last = Math.max(1, Math.ceil(rows.length / size))
      // A record carries its four timestamps, null where Vercel has none (the document requires them).
      const shown = kind === 'zones' ? items : items.map((r) => ({ created: null, updated: null, createdAt: null, updatedAt: null, ...(r as object) }))
      return json(200, { [kind === 'zones' ? 'domains' : 'records']: shown, pagination: { count: items.length, next: page < last ? EPOCH + page : null, prev: page > 1 ? EPOCH + page - 2 : null } })
    },
    create(b) {
      if (typeof b.type !== 'string' || typeof b.name !== 'string' || typeof b.value !== 'string' || !b.value) return 'name, type and value are required'
      if (b.ttl !== undefined && b.ttl < 60) return 'ttl must be at least 60'
      if (b.type === 'MX' && typeof b.mxPriority !== 'number') return 'mxPriority is required for MX records'
      if (b.comment !== undefined && (typeof b.comment !== 'string' || b.comment.length > 500)) return 'comment must be a string of at most 500 characters'
      return { id: nextId('rec_'), slug: nextId(), name: b.name, type: b.type, value: b.value, ...(b.type === 'MX' ? { mxPriority: b.mxPriority } : {}), ttl: b.ttl ?? 60, creator: 'portico', created: Date.now(), updated: Date.now(), createdAt: Date.now(), updatedAt: Date.now(), ...(b.comment ? { comment: b.comment } : {}) }
    },
    created: (row) => json(200, { uid: row.id, updated: Date.now() }),
    deleted: () => json(200, {}),
    // Vercel keeps its own records (creator "system"): deleting one is refused.
    refuseDelete: (r) => (r.creator === 'system' ? err(400, 'forbidden', 'System records cannot be deleted') : null),
    key: (r, z) => ({ name: r.name === '' ? z.name : `${r.name}.${z.name}`, type: r.type, id: r.id }),
  })
  return Object.assign(fake, { oauth: server.oauth, teams })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'vercel',
  reference: 'https://vercel.com/docs/rest-api/reference/endpoints/dns',
  start: () => startVercelFake(),
  base: (f) => f.url,
  badCredential: 'wrong-token',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The zone under test belongs to a team (reached with ?teamId=); the fillers are the account's own.
  seedZone: (name, f) => void (f as ReturnType<typeof startVercelFake>).teams.set(name, 'team_acme'),
  // The adapter asks 100 a page; Vercel answers as many as asked, up to 100.
  pageFill: { zones: 101, records: { count: 100, row: (_z, i) => ({ id: `rec_fill${i}`, slug: `fill${i}`, name: `filler${i}`, type: 'TXT', value: `filler-${i}`, ttl: 60, creator: 'portico', created: 0 }) } },
  seedRow: (z, row) => z.records.push({ id: nextId('rec_'), slug: nextId(), created: 0, ...row }),
}
