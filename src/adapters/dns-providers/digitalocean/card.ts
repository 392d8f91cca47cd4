import { defineCard } from '../card-types.ts'

export const digitalocean = defineCard({
  id: 'digitalocean',
  name: 'DigitalOcean',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/digitalocean/IntegrationTests', fixture: 'provider-recordings/digitalocean.json', note: "hostnames written with the trailing dot are answered without it; TXT bare; TTL 1800 when none given" },
    records: { kind: 'docs', url: 'https://docs.digitalocean.com/reference/api/api-reference/#tag/Domain-Records', note: 'domain_record {id, type, name, data, priority, port, ttl, weight, flags, tag}; ttl minimum 30; CAA flags and tag apart; SRV priority, port and weight apart' },
    paging: { kind: 'docs', url: 'https://docs.digitalocean.com/reference/api/api-reference/#section/Introduction/Links-and-Pagination', note: 'page and per_page (default 20, most 200); links.pages.next; meta.total' },
    dnsRecords: { kind: 'docs', url: 'https://docs.digitalocean.com/products/networking/dns/how-to/manage-records/', note: 'a CNAME cannot share its name with another record' },
    rate: { kind: 'docs', url: 'https://docs.digitalocean.com/reference/api/api-reference/#section/Introduction/Rate-Limit', note: '5,000 requests an hour and 250 a minute; ratelimit-limit, ratelimit-remaining, ratelimit-reset (Unix epoch seconds); 429 too_many_requests' },
    tokens: { kind: 'docs', url: 'https://docs.digitalocean.com/reference/api/create-personal-access-token/', note: 'a personal access token (`dop_v1_…`), shown once; custom scopes domain:read, domain:create, domain:update, domain:delete' },
    openapi: { kind: 'description', url: 'https://github.com/digitalocean/openapi/blob/7c1300c479fed9c353cda9fc21cd968619552304/specification/DigitalOcean-public.v2.yaml', fixture: 'provider-openapi/digitalocean.json' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/digitalocean/internal/client.go', note: 'Bearer token; POST /v2/domains/{zone}/records and DELETE by id; errors {id, message}' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-digitalocean/blob/main/octodns_digitalocean/__init__.py', note: 'CAA read from flags, tag and data; SRV from priority, weight, port and data; paging by links.pages.next' },
  },
  base: { url: 'https://api.digitalocean.com', versions: '/v2', cite: ['records', 'openapi'] },
  auth: {
    scheme: 'Authorization: Bearer <token>',
    issued: 'a personal access token (`dop_v1_…`) from API → Tokens, shown once, with full access or the domain scopes; or a person\'s OAuth grant',
    accepted: ['the token', 'a person\'s OAuth grant'],
    cite: ['tokens', 'lego'],
  },
  listing: {
    zones: { pages: 'link', params: 'page, per_page (most 200)', maxPageSize: 200, end: 'no links.pages.next' },
    records: { pages: 'link', params: 'page, per_page (most 200)', maxPageSize: 200, end: 'no links.pages.next' },
    cite: ['paging', 'openapi', 'octodns'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'SOA', 'SRV', 'TXT'],
    names: 'relative (`@` the apex)',
    values: '`data` (hostnames written with the trailing dot and answered without it, `@` the zone: lexicon\'s recording; TXT unquoted); MX `priority`; CAA `flags`, `tag` and `data`; SRV `priority`, `weight`, `port` and `data`',
    providerOnly: [
      { kind: 'CAA flags and tag', what: 'fields apart from the value (flags 128 marks a critical property)', portico: 'kept' },
      { kind: 'SRV priority, weight, port', what: 'fields apart from the target', portico: 'kept' },
    ],
    cite: ['records', 'openapi'],
  },
  ttl: { min: 30, default: 1800, cite: ['records', 'openapi'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'ratelimit-limit': '5000', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + wait) }, body: { id: 'too_many_requests', message: 'API Rate limit exceeded.' } }),
    signal: 'ratelimit-reset, a Unix time in seconds',
    limits: '5,000 requests an hour, 250 a minute',
    cite: ['rate'],
  },
  errors: [
    { when: 'a token DigitalOcean does not know', status: 401, body: { id: 'unauthorized', message: 'Unable to authenticate you' }, reason: 'auth' },
    { when: 'a token without the domain scopes', status: 403, body: { id: 'forbidden', message: 'You are not authorized to perform this operation' }, reason: 'permission' },
    { when: 'a domain not in the account', status: 404, body: { id: 'not_found', message: 'The resource you were accessing could not be found.' }, reason: 'zone_not_found' },
    { when: 'a record DigitalOcean refuses (a TTL under 30, an SRV without its port)', status: 422, body: { id: 'unprocessable_entity', message: 'TTL must be at least 30 seconds' }, reason: 'write_failed' },
    { when: 'a CNAME where another record of the name stands, or a record beside a CNAME', status: 422, body: { id: 'unprocessable_entity', message: 'CNAME records cannot share a name with other records.' }, reason: 'write_failed' },
    { when: 'DigitalOcean\'s own failure (any call, a POST after a DELETE went through among them)', status: 500, body: { id: 'server_error', message: 'Unexpected server-side error' }, reason: 'temporary' },
  ],
  errorsCite: ['records', 'openapi', 'lego', 'dnsRecords'],
  quirks: [
    { text: 'A record is written by creating and deleting rows (no set-level write, no batch): a new row is created before the row it replaces where both may stand (a new address), a row is deleted first only where the new one cannot stand beside it (a CNAME); a call refused after others went through (422, 500, 429) has what went through put back by Portico, and what cannot be is named with its old values.', cite: ['records', 'lego', 'openapi'] },
    { text: '`links.pages.next` names DigitalOcean\'s own origin (https://api.digitalocean.com/v2/…?page=2) whatever address was asked: Portico rebases its path and query onto the configured base (DNS_PROVIDER_API_BASES).', cite: ['openapi', 'paging'] },
    { text: 'The apex NS rows (ns1–3.digitalocean.com) are listed with the records; Portico never writes them.', cite: ['records'] },
  ],
  seeds: (zone) => [
    { shape: 'a critical CAA iodef row (flags 128)', row: { type: 'CAA', name: '@', data: `mailto:security@${zone}`, priority: null, port: null, ttl: 3600, weight: null, flags: 128, tag: 'iodef' } },
    { shape: 'an SRV row with priority, weight and port', row: { type: 'SRV', name: '_sip._tls', data: 'sipdir.online.lync.com.', priority: 100, port: 443, ttl: 3600, weight: 1, flags: null, tag: null } },
    { shape: 'an SRV row at the www name Portico points elsewhere', row: { type: 'SRV', name: 'www', data: `w.${zone}`, priority: 1, port: 443, ttl: 3600, weight: 1, flags: null, tag: null } },
  ],
  disagreements: [
    'The OpenAPI document gives `ttl` a minimum of 30 while the control panel offers 30 s up; lego and octodns send what they are given. The card follows the document: Portico raises a TTL to 30.',
    'Earlier stand-ins served three rows a page whatever per_page asked; the reference serves as many as asked up to 200, and the stand-in now does.',
    'The earlier stand-in kept a hostname\'s trailing dot as sent; lexicon\'s recording shows DigitalOcean answering `docs.example.com` to `docs.example.com.`. The recording wins: the stand-in answers without the dot and the adapter reads hostnames as absolute.',
  ],
})
