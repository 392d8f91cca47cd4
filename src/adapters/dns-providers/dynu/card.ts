import { defineCard } from '../card-types.ts'

export const dynu = defineCard({
  id: 'dynu',
  name: 'Dynu',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/dynu/IntegrationTests', fixture: 'provider-recordings/dynu.json', note: 'records carry their zone-file line, hostname and domain name; TXT textData bare' },
    docs: { kind: 'docs', url: 'https://www.dynu.com/en-US/Support/API', note: 'API v2 (Swagger UI): /v2/dns, /v2/dns/{id}/record, /v2/dns/{id}/record/{recordId}, /v2/dns/{id}/webredirect; header API-Key; errors `{statusCode, type, message}`' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/dynu/internal/client.go', note: 'GET /dns/getroot/{hostname}, GET/POST /dns/{id}/record, DELETE …/record/{recordId}; a failure is the body\'s statusCode outside 2xx' },
    legoTypes: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/dynu/internal/types.go', note: 'a record {id, recordType, domainId, domainName, nodeName, hostname, state, content, textData, ttl}; apiException {statusCode, type, message}' },
    legoFixtures: { kind: 'client', url: 'https://github.com/go-acme/lego/tree/master/providers/dns/dynu/internal/fixtures', note: 'get_records.json (`{statusCode: 200, dnsRecords}`), get_records_invalid.json (`{statusCode: 501, type: "Argument Exception", message: "Invalid."}`)' },
  },
  base: { url: 'https://api.dynu.com/v2', versions: 'v2', cite: ['docs', 'lego'] },
  auth: {
    scheme: 'API-Key header',
    issued: 'an API key (Control Panel → API Credentials)',
    accepted: ['the API key'],
    cite: ['docs', 'lego'],
  },
  listing: {
    zones: { pages: false, end: 'GET /dns answers every domain (`domains`)' },
    records: { pages: false, end: 'GET /dns/{id}/record answers every record (`dnsRecords`)' },
    cite: ['docs', 'legoFixtures'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA', 'SRV', 'SPF', 'LOC', 'PTR', 'HINFO', 'RP', 'AFSDB', 'DS', 'TLSA', 'SSHFP', 'UF'],
    names: '`nodeName` relative, empty for the apex',
    values: 'fields by type: A `ipv4Address`, AAAA `ipv6Address`, CNAME/NS `host`, MX `host`+`priority`, TXT `textData`, CAA `flags`+`tag`+`value`; `content` the zone-file line',
    providerOnly: [
      { kind: 'web redirects', what: 'HTTP redirects of a node (`/webredirect`), apart from the DNS records', portico: 'locked' },
      { kind: 'SRV, SPF, LOC, UF and other types', what: 'records Portico does not write', portico: 'locked' },
      { kind: 'state false', what: 'a switched-off record', portico: 'kept' },
    ],
    cite: ['docs', 'legoTypes'],
  },
  ttl: { min: 30, default: 120, cite: ['docs', 'legoFixtures'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { statusCode: 429, type: 'Rate Limit Exception', message: 'Too many requests.' } }),
    signal: 'Retry-After',
    limits: 'not given in the sources read',
    cite: ['docs'],
  },
  errors: [
    { when: 'an API key Dynu does not know', status: 401, body: { statusCode: 401, type: 'Authentication Exception', message: 'Invalid API credential.' }, reason: 'auth' },
    { when: 'a domain id the key does not reach', status: 404, body: { statusCode: 404, type: 'Not Found Exception', message: 'Domain not found.' }, reason: 'zone_not_found' },
    { when: 'a record the API refuses', status: 200, body: { statusCode: 501, type: 'Argument Exception', message: 'Invalid.' }, reason: 'write_failed' },
  ],
  errorsCite: ['legoTypes', 'legoFixtures'],
  quirks: [
    { text: 'The body\'s statusCode is the outcome: an answer can be HTTP 200 and carry an error statusCode.', cite: ['lego', 'legoFixtures'] },
    { text: 'Web redirects are not DNS records: Dynu answers for their node itself; Portico reads them and never writes there.', cite: ['docs'] },
  ],
  seeds: () => [
    { shape: 'an SRV record', row: { nodeName: '_sip._tcp', recordType: 'SRV', ttl: 3600, state: true, content: '_sip._tcp 3600 IN SRV 10 5 5060 sip', priority: 10, weight: 5, port: 5060, host: 'sip' } },
    { shape: 'a switched-off TXT at the apex (Portico merges beside it)', row: { nodeName: '', recordType: 'TXT', ttl: 3600, state: false, content: '"old-verification=1"', textData: 'old-verification=1' } },
    { shape: 'a web redirect of `go`', row: { webRedirect: { id: 1, nodeName: 'go', redirectType: 'UF', url: 'https://example.net/landing' } } },
    { shape: 'a LOC record at www, where Portico points a CNAME', row: { nodeName: 'www', recordType: 'LOC', ttl: 3600, state: true, content: 'www 3600 IN LOC 59 54 0.000 N 10 45 0.000 E 0.00m' }, blocks: true },
    { shape: 'a web redirect of www, where Portico points a CNAME', row: { webRedirect: { id: 2, nodeName: 'www', redirectType: 'UF', url: 'https://shop.example.net/' } }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in answered a record without its hostname, domainName and zone-file `content`; lexicon\'s recording shows them, and the stand-in now does.',
    'The Swagger UI documents each error with its HTTP status; lego trusts only the body\'s statusCode and its fixture shows an error body with 501: the card reads the body.',
    'No rate-limit figure or TTL floor is given in the sources read: the stand-in answers 429 with Retry-After and takes 30 s (the control panel\'s lowest) as the floor, an assumption.',
    'lego reads no web redirects; the listing path /v2/dns/{id}/webredirect is the Swagger UI\'s: where it answers 404 for a domain whose records it just served, the adapter reads no redirects.',
  ],
})
