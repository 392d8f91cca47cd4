import { defineCard } from '../card-types.ts'

export const vultr = defineCard({
  id: 'vultr',
  name: 'Vultr DNS',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/vultr/IntegrationTests', fixture: 'provider-recordings/vultr.json', note: "TXT data quoted in and out; CNAME data absolute without the dot; names relative" },
    dns: { kind: 'docs', url: 'https://www.vultr.com/api/#tag/dns', note: 'GET /v2/domains, GET/POST /v2/domains/{dns-domain}/records, DELETE …/records/{record-id}; record {id, type, name, data, priority, ttl}' },
    paging: { kind: 'docs', url: 'https://www.vultr.com/api/#section/Introduction/Meta-and-Pagination', note: 'per_page (default 100, most 500) and cursor; meta.links.next (empty on the last page), meta.total' },
    rate: { kind: 'docs', url: 'https://www.vultr.com/api/#section/Introduction/Rate-Limit', note: '30 requests a second per API key; past it 429' },
    keys: { kind: 'docs', url: 'https://docs.vultr.com/platform/other/api/enable-api-access', note: 'an API key with an access-control list of allowed addresses' },
    openapi: { kind: 'description', url: 'https://github.com/vultr/vultr-java/blob/29228428b068e22fb5cab3937829672db5252cf6/blob/v0.0.1.json', fixture: 'provider-openapi/vultr.json', note: 'Vultr\'s published API v2 OpenAPI document (https://www.vultr.com/api/), the input Vultr generates its Java client from; carried trimmed to the four DNS operations used' },
    govultr: { kind: 'client', url: 'https://github.com/vultr/govultr/blob/master/domain_record.go', note: 'the provider\'s own Go client: DomainRecord {ID, Type, Name, Data, Priority, TTL}; ListOptions PerPage and Cursor' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/vultr/vultr.go', note: 'govultr with cursor paging; TXT data quoted' },
  },
  base: { url: 'https://api.vultr.com', versions: '/v2', cite: ['dns', 'openapi'] },
  auth: { scheme: 'Authorization: Bearer <API key>', issued: 'a personal API key (Account → API), with an access-control list that must allow Portico\'s address', accepted: ['the key'], cite: ['keys', 'govultr'] },
  listing: {
    zones: { pages: 'cursor', params: 'per_page (most 500), cursor', maxPageSize: 500, end: 'meta.links.next empty' },
    records: { pages: 'cursor', params: 'per_page (most 500), cursor', maxPageSize: 500, end: 'meta.links.next empty' },
    cite: ['paging', 'govultr'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'SOA', 'SRV', 'SSHFP', 'TXT'],
    names: 'relative (`` the apex)',
    values: '`data` (TXT as one quoted string, written and answered so: lexicon\'s recording); MX and SRV `priority` apart (SRV data is `weight port target`); CAA data `flags tag "value"`',
    providerOnly: [{ kind: 'SRV priority', what: 'kept apart from `weight port target`', portico: 'kept' }],
    cite: ['dns', 'govultr'],
  },
  ttl: { min: 1, default: 300, cite: ['dns', 'govultr'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: { error: 'Rate limit reached - please try your request again later.', status: 429 } }),
    signal: 'none in the answer: a limit of 30 requests a second; Portico waits 1, 2 s within its bound',
    limits: '30 requests a second per API key',
    cite: ['rate'],
  },
  errors: [
    { when: 'a key Vultr does not know, or one whose access-control list refuses Portico\'s address', status: 401, body: { error: 'Invalid API token.', status: 401 }, reason: 'auth' },
    { when: 'a domain not in the account', status: 404, body: { error: 'Domain not found.', status: 404 }, reason: 'zone_not_found' },
    { when: 'a record Vultr refuses', status: 400, body: { error: 'Invalid record: name, type and data are required', status: 400 }, reason: 'write_failed' },
  ],
  errorsCite: ['dns', 'govultr'],
  quirks: [{ text: 'A key whose access-control list does not allow the caller\'s address is refused like a wrong key (401).', cite: ['keys'] }],
  seeds: (zone) => [
    { shape: 'an SRV record with its priority apart', row: { type: 'SRV', name: '_sip._tls', data: '1 443 sipdir.online.lync.com', priority: 100, ttl: 3600 } },
    { shape: 'an SRV record at the www name Portico points elsewhere', row: { type: 'SRV', name: 'www', data: `1 443 w.${zone}`, priority: 5, ttl: 3600 } },
    { shape: 'a critical CAA record', row: { type: 'CAA', name: '', data: `128 iodef "mailto:security@${zone}"`, priority: -1, ttl: 3600 } },
  ],
  disagreements: [
    'Earlier stand-ins served three rows a page whatever per_page asked; the reference serves as many as asked up to 500, and the stand-in now does.',
    'The earlier stand-in stored TXT bare though lego quotes it; lexicon\'s recording shows the quotes in and out and dnscontrol treats an unquoted TXT from Vultr as an error. The stand-in now refuses bare TXT and the adapter quotes it.',
  ],
})
