import { defineCard } from '../card-types.ts'

export const exoscale = defineCard({
  id: 'exoscale',
  name: 'Exoscale DNS',
  sources: {
    signature: { kind: 'docs', url: 'https://openapi-v2.exoscale.com/topic/topic-api-request-signature', note: 'EXO2-HMAC-SHA256 credential=<key>,expires=<unix time>,signature=<base64 HMAC-SHA256 of "METHOD path\\nbody\\n<query values>\\n<headers>\\nexpires">' },
    openapi: {
      kind: 'description',
      url: 'https://github.com/exoscale/egoscale/blob/286add782fa64f737e3791186d01f057fe1f9875/v3/generator/source.json',
      fixture: 'provider-openapi/exoscale.json',
      note: 'Exoscale\'s OpenAPI 3.0 document (https://openapi-v2.exoscale.com/source.json) as egoscale v3 generates its client from it, trimmed to the four operations used',
    },
    records: { kind: 'docs', url: 'https://openapi-v2.exoscale.com/operation/list-dns-domain-records', note: 'list-dns-domain-records: the whole list, no paging' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/exoscale/exoscale.go', note: 'egoscale v3; EXOSCALE_API_KEY, EXOSCALE_API_SECRET, EXOSCALE_ENDPOINT (default ch-gva-2); finds the zone among ListDNSDomains' },
  },
  base: { url: 'https://api-ch-gva-2.exoscale.com/v2', versions: 'v2', regions: [{ name: 'any zone', url: 'https://api-{zone}.exoscale.com/v2 (ch-gva-2, ch-zrh-1, de-fra-1, de-muc-1, at-vie-1, at-vie-2, bg-sof-1)' }], cite: ['openapi', 'lego'] },
  auth: {
    scheme: 'Authorization: EXO2-HMAC-SHA256 credential=<key>,expires=<unix time>,signature=<…>',
    issued: 'an IAM API key (EXO…) and its secret, shown once (IAM → API keys), under a role allowing the dns service',
    accepted: ['api_key:api_secret', '{"key": …, "secret": …}', 'EXOSCALE_API_KEY=… / EXOSCALE_API_SECRET=… lines'],
    cite: ['signature', 'lego'],
  },
  listing: {
    zones: { pages: false, end: 'GET /dns-domain answers every domain (`dns-domains`)' },
    records: { pages: false, end: 'GET /dns-domain/{id}/record answers every record (`dns-domain-records`)' },
    cite: ['openapi', 'records'],
  },
  records: {
    types: ['NS', 'CAA', 'NAPTR', 'POOL', 'A', 'HINFO', 'CNAME', 'SOA', 'SSHFP', 'SRV', 'AAAA', 'MX', 'TXT', 'ALIAS', 'URL', 'SPF'],
    names: '`name` relative, empty for the apex',
    values: '`content` (hostnames without the trailing dot, TXT unquoted); `priority` apart (MX, SRV)',
    providerOnly: [
      { kind: 'ALIAS', what: 'a flattened alias, at the apex or any name', portico: 'kept' },
      { kind: 'URL', what: 'an HTTP redirect served by Exoscale', portico: 'kept' },
      { kind: 'POOL', what: 'a pool of addresses answered in turn', portico: 'kept' },
      { kind: 'SRV priority', what: 'the priority beside `content` ("weight port target")', portico: 'kept' },
    ],
    cite: ['openapi'],
  },
  ttl: { min: 0, default: 3600, cite: ['openapi', 'lego'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { message: 'Too many requests' } }),
    signal: 'Retry-After',
    limits: 'per organization, not given in the document',
    cite: ['signature'],
  },
  errors: [
    { when: 'a key Exoscale does not know, or a signature made with another secret', status: 403, body: { message: 'Invalid request signature' }, reason: 'auth' },
    { when: 'a domain id the key does not reach', status: 404, body: { message: 'DNS domain not found' }, reason: 'zone_not_found' },
    { when: 'a record the API refuses', status: 400, body: { message: 'Invalid content for record type A' }, reason: 'write_failed' },
  ],
  errorsCite: ['signature', 'openapi'],
  quirks: [
    { text: 'Writes answer with an operation `{id, state, reference: {id}}`, not the record: `pending` until GET /operation/{id} says `success`, or `failure`/`timeout` with a `reason` (the write not carried out). Portico waits for each operation (up to 30 s) and treats a failure as a refusal, putting back what the calls before it changed; `busy`, `unavailable`, `interrupted` and `timeout` are temporary.', cite: ['openapi'] },
    { text: 'SOA and the apex NS come back among the records; they are Exoscale\'s and never written.', cite: ['records'] },
  ],
  seeds: (zone) => [
    { shape: 'an ALIAS at `root`', row: { name: 'root', type: 'ALIAS', content: `lb.${zone}`, ttl: 3600, 'system-record': false } },
    { shape: 'a URL redirect where Portico points www (removed under the CNAME, restored as it was)', row: { name: 'www', type: 'URL', content: 'https://shop.example.net/', ttl: 3600, 'system-record': false } },
    { shape: 'a POOL record', row: { name: 'pool', type: 'POOL', content: '198.51.100.70', ttl: 60, 'system-record': false } },
    { shape: 'an SRV with its priority apart, at the www name Portico points elsewhere (restored with its priority)', row: { name: 'www', type: 'SRV', content: `5 5060 sip.${zone}`, ttl: 3600, priority: 10, 'system-record': false } },
    { shape: 'an SSHFP record', row: { name: 'host', type: 'SSHFP', content: '4 2 123456789abcdef67890123456789abcdef67890123456789abcdef123456789', ttl: 3600, 'system-record': false } },
  ],
  disagreements: [
    'The carried document (2023) has no `system-record` on a record; the live API marks SOA and NS with it: the stand-in sends it and the adapter skips those records by it.',
    'The document gives each operation its 200 only; error answers follow the signature page and the API\'s `{message}` error body: the contract test notes them as exceptions.',
  ],
})
