import { defineCard } from '../card-types.ts'

export const dnsimple = defineCard({
  id: 'dnsimple',
  name: 'DNSimple',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/dnsimple/IntegrationTests', fixture: 'provider-recordings/dnsimple.json', note: "SOA and apex NS are system records; listings filtered by type and name; pages as large as asked" },
    records: { kind: 'docs', url: 'https://developer.dnsimple.com/v2/zones/records/', note: 'list (page, per_page up to 100, pagination.total_pages), create `{name, type, content, ttl, priority, regions}`, delete; system records (SOA, apex NS) cannot be changed' },
    v2: { kind: 'docs', url: 'https://developer.dnsimple.com/v2/', note: 'Bearer account or user access token, or OAuth; errors `{message, errors?}`; 402 a feature outside the plan; rate limit 2400 requests an hour with X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix time), 429 past it' },
    accounts: { kind: 'docs', url: 'https://developer.dnsimple.com/v2/accounts/', note: 'a user token reaches the accounts GET /accounts lists; an account token has its account in GET /whoami' },
    openapi: { kind: 'description', url: 'https://github.com/dnsimple/dnsimple-developer/blob/13c7966016177efa4d2511adf569864d61f3dd6c/content/v2/openapi.yml', fixture: 'provider-openapi/dnsimple.json', note: 'ZoneRecord: parent_id (an ALIAS\'s descriptive TXT is its child), regions (global or named regions), types ALIAS, POOL, URL among them' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/dnsimple/dnsimple.go', note: 'the account from whoami; OAuth token as Bearer' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/dnsimple/dnsimpleProvider.go', note: 'ALIAS, URL and POOL kept; system records and child records (parent_id) skipped' },
  },
  base: { url: 'https://api.dnsimple.com/v2', versions: 'v2; sandbox https://api.sandbox.dnsimple.com/v2', cite: ['v2', 'openapi'] },
  auth: {
    scheme: 'Authorization: Bearer <access token>',
    issued: 'an account access token (Account → Access tokens) or a user access token (User settings), or an OAuth token',
    accepted: ['the token', 'Bearer <token>'],
    cite: ['v2', 'accounts', 'lego'],
  },
  listing: {
    zones: { pages: 'page', params: 'page, per_page (up to 100)', maxPageSize: 100, end: 'pagination.total_pages' },
    records: { pages: 'page', params: 'page, per_page (up to 100)', maxPageSize: 100, end: 'pagination.total_pages' },
    cite: ['records', 'openapi'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'DNSKEY', 'DS', 'HINFO', 'MX', 'NAPTR', 'NS', 'POOL', 'PTR', 'SOA', 'SPF', 'SRV', 'SSHFP', 'TXT', 'URL'],
    names: '`name` relative, empty the apex',
    values: '`content` (TXT unquoted, hostnames without the trailing dot); `priority` apart for MX and SRV; `regions`',
    providerOnly: [
      { kind: 'ALIAS', what: 'a name answered with another name\'s addresses; an A, AAAA or CNAME beside it clashes', portico: 'locked' },
      { kind: 'URL', what: 'a web redirect DNSimple serves', portico: 'kept' },
      { kind: 'POOL', what: 'one of a rotating pool of CNAME targets', portico: 'kept' },
      { kind: 'child records (parent_id)', what: 'the descriptive TXT DNSimple keeps for an ALIAS, updated and deleted with it', portico: 'locked' },
      { kind: 'regions', what: 'a record served only from named regions', portico: 'locked' },
      { kind: 'SRV priority', what: 'SRV priority apart from its content', portico: 'locked' },
    ],
    cite: ['records', 'openapi', 'dnscontrol'],
  },
  ttl: { min: 60, default: 3600, cite: ['records', 'openapi'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'x-ratelimit-limit': '2400', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + wait) }, body: { message: 'Too Many Requests' } }),
    signal: 'X-RateLimit-Reset, a Unix time in seconds',
    limits: '2400 requests an hour per token',
    cite: ['v2'],
  },
  errors: [
    { when: 'a token DNSimple does not know', status: 401, body: { message: 'Authentication failed' }, reason: 'auth' },
    { when: 'a feature the account\'s plan does not include', status: 402, body: { message: 'Your current plan does not include this feature' }, reason: 'plan_restricted' },
    { when: 'a zone not in the account', status: 404, body: { message: 'Zone `not-mine.example` not found' }, reason: 'zone_not_found' },
    { when: 'a record DNSimple refuses', status: 400, body: { message: 'Validation failed', errors: { content: ['is invalid'] } }, reason: 'write_failed' },
  ],
  errorsCite: ['v2', 'openapi'],
  quirks: [
    { text: 'A record created beside an ALIAS by DNSimple (its descriptive TXT, parent_id set) goes with the ALIAS: Portico never deletes one.', cite: ['openapi', 'dnscontrol'] },
    { text: 'A user token names no account in /whoami: every account it reaches is read.', cite: ['accounts'] },
  ],
  seeds: (zone) => [
    { shape: 'a URL redirect record', row: { id: 880001, zone_id: zone, parent_id: null, name: 'go', content: 'https://example.net/landing', ttl: 3600, priority: null, type: 'URL', regions: ['global'], system_record: false, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } },
    { shape: 'a POOL record', row: { id: 880002, zone_id: zone, parent_id: null, name: 'pool', content: 'a.example.net', ttl: 3600, priority: null, type: 'POOL', regions: ['global'], system_record: false, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } },
    { shape: 'a regional A record', row: { id: 880003, zone_id: zone, parent_id: null, name: 'eu', content: '198.51.100.30', ttl: 3600, priority: null, type: 'A', regions: ['AMS', 'FRA'], system_record: false, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } },
    { shape: 'an SRV with its priority apart', row: { id: 880004, zone_id: zone, parent_id: null, name: '_sip._tcp', content: `5 5060 sip.${zone}`, ttl: 3600, priority: 10, type: 'SRV', regions: ['global'], system_record: false, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } },
    { shape: 'an ALIAS on a subdomain with its child TXT', row: { id: 880005, zone_id: zone, parent_id: null, name: 'shop', content: 'shops.example.net', ttl: 3600, priority: null, type: 'ALIAS', regions: ['global'], system_record: false, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } },
    { shape: 'the ALIAS\'s descriptive TXT', row: { id: 880006, zone_id: zone, parent_id: 880005, name: 'shop', content: 'ALIAS for shops.example.net', ttl: 3600, priority: null, type: 'TXT', regions: ['global'], system_record: false, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } },
    { shape: 'an ALIAS at the apex, where Portico writes its A', row: { id: 880007, zone_id: zone, parent_id: null, name: '', content: 'site.example.net', ttl: 3600, priority: null, type: 'ALIAS', regions: ['global'], system_record: false, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in served three rows a page and ignored the type and name filters; lexicon\'s recordings show as many as asked (up to 100) and filtered listings, which the stand-in now serves.',
    'The OpenAPI document types `ttl` from 0; the reference pages and the record editor take 60 and up: the card follows the pages.',
    'The OpenAPI document lists 404 and 429 for no operation; the reference describes both for every endpoint: the contract test states that exception.',
  ],
})
