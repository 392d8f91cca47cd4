import { defineCard } from '../card-types.ts'

export const gcore = defineCard({
  id: 'gcore',
  name: 'Gcore DNS',
  sources: {
    docs: { kind: 'docs', url: 'https://api.gcore.com/docs/dns#tag/RRsets', note: 'GET /dns/v2/zones (limit, offset; total_amount), GET /dns/v2/zones/{zone}/rrsets (limit, offset), POST/PUT/DELETE /dns/v2/zones/{zone}/{name}/{type}; rrset `{name, type, ttl, filters, meta, resource_records: [{content, meta, enabled}]}`; errors `{error}`' },
    tokens: { kind: 'docs', url: 'https://gcore.com/docs/account-settings/create-use-or-delete-a-permanent-api-token', note: 'a permanent API token (`<id>$<secret>`) sent as `Authorization: APIKey <token>`' },
    openapi: { kind: 'description', url: 'https://api.gcore.com/docs/dns (Gcore\'s OpenAPI document behind the reference)', note: 'served from Gcore\'s documentation site; no public repository carries the DNS part, so it is not carried here' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/gcore/convertMetadata.go', note: 'rrset filters and failover meta, record meta kept as provider metadata; the undocumented `all=true` on the rrset list (gcoreExtend.go)' },
    sdk: { kind: 'client', url: 'https://github.com/G-Core/gcore-dns-sdk-go', note: 'Gcore\'s own Go SDK: PermanentAPIKeyAuth, RRSet with Filters and Meta, ResourceRecord with Meta and Enabled' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/gcore/gcore.go', note: 'the permanent API token; TXT sets added and removed whole' },
  },
  base: { url: 'https://api.gcore.com/dns', versions: 'v2', cite: ['docs', 'dnscontrol'] },
  auth: { scheme: 'Authorization: APIKey <permanent API token>', issued: 'a permanent API token from Profile → API tokens, shown once as `<id>$<secret>`', accepted: ['the token', 'APIKey <token>'], cite: ['tokens', 'sdk'] },
  listing: {
    zones: { pages: 'offset', params: 'limit, offset', end: 'total_amount' },
    records: { pages: 'offset', params: 'limit, offset', end: 'total_amount' },
    cite: ['docs'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'HTTPS', 'MX', 'NS', 'SRV', 'SVCB', 'TXT'],
    names: '`name` absolute',
    values: '`resource_records[].content`: the record\'s fields as a list (MX `[10, "mx."]`, TXT `["text"]`)',
    providerOnly: [
      { kind: 'filters (pickers)', what: 'which records answer: geodns, geodistance, weighted shuffle, healthcheck, first_n', portico: 'locked' },
      { kind: 'meta', what: 'set meta (failover health checks) and record meta (countries, continents, ASN, IP ranges, default)', portico: 'locked' },
      { kind: 'enabled: false', what: 'a record switched off', portico: 'locked' },
    ],
    cite: ['docs', 'dnscontrol', 'sdk'],
  },
  ttl: { min: 0, default: 300, cite: ['docs'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: { error: 'too many requests' } }),
    signal: 'none: the reference documents no wait, so Portico reports it at once',
    limits: 'not published as a figure',
    cite: ['docs'],
  },
  errors: [
    { when: 'a token Gcore does not know', status: 401, body: { error: 'invalid token' }, reason: 'auth' },
    { when: 'a token without DNS rights', status: 403, body: { error: 'forbidden' }, reason: 'permission' },
    { when: 'a zone not in the account', status: 404, body: { error: 'zone not found' }, reason: 'zone_not_found' },
    { when: 'a set created twice', status: 409, body: { error: 'rrset already exists' }, reason: 'conflict' },
    { when: 'a set Gcore refuses', status: 400, body: { error: 'resource_records: content is required' }, reason: 'write_failed' },
  ],
  errorsCite: ['docs', 'sdk'],
  quirks: [
    { text: 'A set is created with POST and replaced with PUT on the same path: POST on a set that exists is a 409.', cite: ['docs', 'sdk'] },
    { text: 'A CNAME at the apex is served flattened (as an ALIAS).', cite: ['dnscontrol'] },
  ],
  seeds: (zone) => [
    { shape: 'a geo-targeted set with a geodns picker', row: { name: `geo.${zone}`, type: 'A', ttl: 120, filters: [{ type: 'geodns', limit: 1, strict: false }], resource_records: [{ id: 91, content: ['198.51.100.60'], enabled: true, meta: { countries: ['DE'] } }, { id: 92, content: ['198.51.100.61'], enabled: true, meta: { default: true } }] } },
    { shape: 'a failover set with a health check', row: { name: `api.${zone}`, type: 'A', ttl: 60, meta: { failover: { protocol: 'HTTP', port: 443, frequency: 60, timeout: 10, method: 'GET', url: '/health', tls: true } }, filters: [{ type: 'healthcheck', strict: true }], resource_records: [{ id: 93, content: ['198.51.100.62'], enabled: true }] } },
    { shape: 'a long non-ASCII TXT', row: { name: `long.${zone}`, type: 'TXT', ttl: 300, resource_records: [{ id: 94, content: ['ø'.repeat(300)], enabled: true }] } },
    { shape: 'a weighted set where Portico points www', row: { name: `www.${zone}`, type: 'AAAA', ttl: 300, filters: [{ type: 'weighted_shuffle', strict: false }], resource_records: [{ id: 95, content: ['2001:db8::80'], enabled: true, meta: { weight: 10 } }] }, blocks: true },
  ],
  disagreements: [
    'dnscontrol reads rrsets with the undocumented `all=true`; the reference pages them by limit and offset: the card follows the reference.',
    'Gcore documents no answer past the rate limit; the stand-in answers 429 with no wait (an assumption, flagged here).',
  ],
})
