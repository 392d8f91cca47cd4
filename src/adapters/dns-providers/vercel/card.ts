import { defineCard } from '../card-types.ts'

export const vercel = defineCard({
  id: 'vercel',
  name: 'Vercel DNS',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/vercel/IntegrationTests', fixture: 'provider-recordings/vercel.json', note: "a create answers {uid}; records listed newest first; TTL 60 when none given" },
    dns: { kind: 'docs', url: 'https://vercel.com/docs/rest-api/reference/endpoints/dns', note: 'GET /v4/domains/{domain}/records (limit, until; pagination.next), POST /v2/domains/{domain}/records {name, type, value, ttl, mxPriority, srv, comment}, DELETE /v2/domains/{domain}/records/{recordId}' },
    domains: { kind: 'docs', url: 'https://vercel.com/docs/rest-api/reference/endpoints/domains/list-all-the-domains', note: 'GET /v5/domains: limit (most 100), until' },
    teams: { kind: 'docs', url: 'https://vercel.com/docs/rest-api#accessing-resources-owned-by-a-team', note: 'a team\'s resources are reached with ?teamId=' },
    limits: { kind: 'docs', url: 'https://vercel.com/docs/limits/rate-limits', note: 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix seconds); 429 rate_limited' },
    errors: { kind: 'docs', url: 'https://vercel.com/docs/rest-api/reference/errors', note: '{error: {code, message}}: forbidden (invalidToken for a bad token), not_found, rate_limited, bad_request' },
    defaults: { kind: 'docs', url: 'https://vercel.com/docs/domains/managing-dns-records', note: 'the default records Vercel adds for a domain on its nameservers (an apex ALIAS and a CAA for its certificate authority)' },
    openapi: { kind: 'description', url: 'https://github.com/stackql/stackql-provider-vercel/tree/993b834627d20823d32d473bfb2218a8e1348cd3/provider-dev/openapi/src/vercel/v00.00.00000/services', fixture: 'provider-openapi/vercel.json', note: 'Vercel\'s published OpenAPI document (https://openapi.vercel.sh/), as split by service in that copy (teams, domains, dns); carried trimmed to the five operations used, and the contract test checks every exchange against it. The copy marks teamId required, which Vercel\'s own SDK (generated from the same document) and the reference do not' },
    sdk: { kind: 'client', url: 'https://github.com/vercel/vercel/blob/main/packages/cli/src/util/domains/get-domains.ts', note: 'the provider\'s own CLI: GET /v5/domains?limit=…&until=pagination.next' },
    libdns: { kind: 'client', url: 'https://github.com/libdns/vercel/blob/master/client.go', note: 'lists records with the pagination `next` passed back as `until`; deletes by record id' },
  },
  base: { url: 'https://api.vercel.com', versions: '/v2 (record writes), /v4 (record list), /v5 (domains)', cite: ['dns', 'domains'] },
  auth: {
    scheme: 'Authorization: Bearer <access token>; ?teamId= for a team\'s domains',
    issued: 'an access token from Account Settings → Tokens, scoped to the account or a team, shown once; or a person\'s OAuth grant (Sign in with Vercel)',
    accepted: ['the token', 'a person\'s OAuth grant'],
    cite: ['errors', 'teams'],
  },
  listing: {
    zones: { pages: 'cursor', params: 'limit (most 100), until (the pagination.next of the page before)', maxPageSize: 100, end: 'pagination.next null' },
    records: { pages: 'cursor', params: 'limit (most 100), until', maxPageSize: 100, end: 'pagination.next null' },
    cite: ['domains', 'dns', 'sdk', 'libdns'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'HTTPS', 'MX', 'NS', 'SRV', 'TXT'],
    names: 'relative (`` the apex)',
    values: '`value` (TXT unquoted); MX `mxPriority`; CAA `value` as `0 issue "ca"`',
    providerOnly: [
      { kind: 'creator: "system"', what: 'records Vercel adds and keeps itself (the apex ALIAS, its CA\'s CAA): values may go beside them, they are never deleted', portico: 'locked' },
      { kind: 'comment', what: 'a note on a record, written back when Portico restores it', portico: 'kept' },
      { kind: 'ALIAS', what: 'Vercel\'s apex alias', portico: 'kept' },
    ],
    cite: ['dns', 'defaults'],
  },
  ttl: { min: 60, default: 60, cite: ['dns'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + wait) }, body: { error: { code: 'rate_limited', message: 'Rate limit exceeded', limit: { remaining: 0, reset: Math.floor(Date.now() / 1000) + wait, total: 100 } } } }),
    signal: 'X-RateLimit-Reset, a Unix time in seconds',
    limits: 'per endpoint and token (published per plan)',
    cite: ['limits'],
  },
  errors: [
    { when: 'a token Vercel does not know', status: 403, body: { error: { code: 'forbidden', message: 'Not authorized', invalidToken: true } }, reason: 'auth' },
    { when: 'a token scoped elsewhere (another team)', status: 403, body: { error: { code: 'forbidden', message: 'You don\'t have permission to access this resource' } }, reason: 'permission' },
    { when: 'a domain the token does not reach', status: 404, body: { error: { code: 'not_found', message: 'Domain not found' } }, reason: 'zone_not_found' },
    { when: 'a record Vercel refuses (a TTL under 60, an MX without mxPriority)', status: 400, body: { error: { code: 'invalid_value', message: 'ttl must be at least 60' } }, reason: 'write_failed' },
  ],
  errorsCite: ['errors', 'dns'],
  quirks: [
    { text: 'A bad token is 403 with `invalidToken: true`, not 401; a 403 without it is a token scoped elsewhere.', cite: ['errors'] },
    { text: 'Domains of a team are listed and written only with ?teamId=; Portico lists the account\'s and every team\'s.', cite: ['teams'] },
  ],
  seeds: (zone) => [
    { shape: 'Vercel\'s own CAA for its certificates (creator system), where Portico adds its CA beside it', row: { name: '', type: 'CAA', value: '0 issue "letsencrypt.org"', ttl: 60, creator: 'system' } },
    { shape: 'a record with a comment', row: { name: 'docs', type: 'CNAME', value: 'cname.vercel-dns.com', ttl: 60, creator: 'portico-user', comment: 'docs site, do not remove' } },
    { shape: 'an SRV record', row: { name: '_sip._tls', type: 'SRV', value: '100 1 443 sipdir.online.lync.com', ttl: 60, creator: 'portico-user' } },
    { shape: 'Vercel\'s own ALIAS at the www name Portico points elsewhere', row: { name: 'www', type: 'ALIAS', value: `cname.vercel-dns.com`, ttl: 60, creator: 'system' }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in listed records oldest first and took a CNAME at the apex; lexicon\'s recording lists the newest first, and the apex holds SOA and NS, where Vercel\'s apex record is ALIAS (dnscontrol: CanUseAlias). The stand-in now lists newest first and refuses a CNAME at the apex.',
    'The reference documents `until` as a timestamp and the answers\' pagination.next as the value to pass; libdns and Vercel\'s CLI pass it back unchanged, as Portico does.',
    'Earlier stand-ins answered a 429 with Retry-After; Vercel\'s limits page names X-RateLimit-Reset, which the card and the stand-in now follow.',
  ],
})
