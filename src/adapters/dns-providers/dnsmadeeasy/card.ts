import { defineCard } from '../card-types.ts'

export const dnsmadeeasy = defineCard({
  id: 'dnsmadeeasy',
  name: 'DNS Made Easy',
  sources: {
    docs: { kind: 'docs', url: 'https://api-docs.dnsmadeeasy.com/', note: 'REST API v2.0: /dns/managed/ and /dns/managed/{id}/records ({data, page, totalPages, totalRecords}); record types A, AAAA, ANAME, CNAME, HTTPRED, MX, NS, PTR, SRV, TXT, SPF, CAA; gtdLocation; 150 requests per 5 minutes' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/dnsmadeeasy/internal/client.go', note: 'x-dnsme-apiKey, x-dnsme-requestDate (RFC 1123), x-dnsme-hmac (hex HMAC-SHA1 of the date); GET /dns/managed/name?domainname=, GET/POST …/records, DELETE …/records/{id}' },
    legoTypes: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/dnsmadeeasy/internal/types.go', note: 'a record {id, type, name, value, ttl, sourceId}; lists under `data`' },
    pythonClient: { kind: 'client', url: 'https://github.com/AnalogJ/lexicon/blob/master/src/lexicon/_private/providers/dnsmadeeasy.py', note: 'lexicon: the rate limit is a 400 whose body is `{"error": ["Rate limit exceeded"]}`, told apart from other 400s and retried' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-dnsmadeeasy/blob/main/octodns_dnsmadeeasy/__init__.py', note: 'records one per value with gtdLocation DEFAULT; tests/fixtures/dnsmadeeasy-records.json holds ANAME and HTTPRED rows' },
  },
  base: { url: 'https://api.dnsmadeeasy.com/V2.0', versions: 'V2.0; sandbox https://api.sandbox.dnsmadeeasy.com/V2.0', cite: ['docs', 'lego'] },
  auth: {
    scheme: 'x-dnsme-apiKey, x-dnsme-requestDate (HTTP date), x-dnsme-hmac = hex HMAC-SHA1(secret, requestDate)',
    issued: 'an API key and a secret key (Config → Account Information)',
    accepted: ['api_key:secret_key', '{"apiKey": …, "secretKey": …}', 'DNSMADEEASY_API_KEY=… / DNSMADEEASY_API_SECRET=… lines'],
    cite: ['lego', 'docs'],
  },
  listing: {
    zones: { pages: 'page', params: 'page, rows', end: 'totalPages' },
    records: { pages: 'page', params: 'page, rows', end: 'totalPages' },
    cite: ['docs', 'legoTypes'],
  },
  records: {
    types: ['A', 'AAAA', 'ANAME', 'CNAME', 'HTTPRED', 'MX', 'NS', 'PTR', 'SRV', 'TXT', 'SPF', 'CAA'],
    names: '`name` relative, empty for the apex',
    values: '`value` (hostnames with the trailing dot, TXT and CAA quoted); MX `mxLevel`, CAA `caaType` and `issuerCritical` apart',
    providerOnly: [
      { kind: 'ANAME', what: 'a flattened alias, at the apex or any name', portico: 'kept' },
      { kind: 'HTTPRED', what: 'HTTP redirection: `value` the URL, with redirectType, title, keywords, description, hardLink', portico: 'kept' },
      { kind: 'gtdLocation', what: 'Global Traffic Director: answers per region (DEFAULT, US_EAST, US_WEST, EUROPE, ASIA_PAC, OCEANIA, SOUTH_AMERICA)', portico: 'locked' },
      { kind: 'monitor, failover, dynamicDns', what: 'DNS failover and system monitoring; a dynamic-DNS record updated by the customer\'s own client', portico: 'locked' },
    ],
    cite: ['docs', 'octodns'],
  },
  ttl: { min: 1, default: 1800, cite: ['docs', 'lego'] },
  rateLimit: {
    status: 400,
    answer: () => ({ headers: { 'x-dnsme-requestlimit': '150', 'x-dnsme-requestsremaining': '0' }, body: { error: ['Rate limit exceeded'] } }),
    signal: 'none: a 400 with x-dnsme-requestsRemaining 0 and no wait; the window is a rolling five minutes, so Portico reports the limit at once rather than wait it out',
    limits: '150 requests per rolling five minutes',
    cite: ['docs', 'pythonClient'],
  },
  errors: [
    { when: 'an API key DNS Made Easy does not know', status: 403, body: { error: ['API key not found'] }, reason: 'auth' },
    { when: 'a signature made with another secret', status: 403, body: { error: ['Invalid hmac'] }, reason: 'auth' },
    { when: 'a domain id the key does not reach', status: 404, body: { error: ['Domain not found'] }, reason: 'zone_not_found' },
    { when: 'the same record again', status: 400, body: { error: ['Record with this type (A), name (www), and value (198.51.100.1) already exists.'] }, reason: 'conflict' },
    { when: 'a record the API refuses (a CNAME beside others, a bad value)', status: 400, body: { error: ['Record already exists and not unique.'] }, reason: 'write_failed' },
  ],
  errorsCite: ['docs', 'pythonClient'],
  quirks: [
    { text: 'The rate limit is a 400, told apart from other 400s only by its text "Rate limit exceeded" (and x-dnsme-requestsRemaining 0 in the headers every answer carries).', cite: ['pythonClient', 'docs'] },
    { text: 'Records are one per value: a set is read by grouping, written by POST and DELETE of single records.', cite: ['lego', 'docs'] },
  ],
  seeds: (zone) => [
    { shape: 'an ANAME at the apex-side name `root`', row: { id: 0, name: 'root', type: 'ANAME', value: `lb.${zone}.`, ttl: 1800, gtdLocation: 'DEFAULT', source: 1, sourceId: 0, failover: false, monitor: false, dynamicDns: false, hardLink: false } },
    { shape: 'HTTP redirection where Portico points www (removed under the CNAME, restored with its title and type)', row: { id: 0, name: 'www', type: 'HTTPRED', value: 'https://shop.example.net/', ttl: 1800, gtdLocation: 'DEFAULT', source: 1, sourceId: 0, failover: false, monitor: false, dynamicDns: false, hardLink: true, redirectType: 'Standard - 301', title: 'Shop', keywords: '', description: '' } },
    { shape: 'a Global Traffic Director A record for Europe', row: { id: 0, name: 'cdn', type: 'A', value: '198.51.100.60', ttl: 1800, gtdLocation: 'EUROPE', source: 1, sourceId: 0, failover: false, monitor: false, dynamicDns: false, hardLink: false } },
    { shape: 'a failover-monitored A record', row: { id: 0, name: 'api', type: 'A', value: '198.51.100.61', ttl: 1800, gtdLocation: 'DEFAULT', source: 1, sourceId: 0, failover: true, monitor: true, dynamicDns: false, hardLink: false } },
    { shape: 'an SPF-type record at the apex', row: { id: 0, name: '', type: 'SPF', value: '"v=spf1 -all"', ttl: 1800, gtdLocation: 'DEFAULT', source: 1, sourceId: 0, failover: false, monitor: false, dynamicDns: false, hardLink: false } },
    { shape: 'a dynamic-DNS AAAA at www, where Portico points a CNAME', row: { id: 0, name: 'www', type: 'AAAA', value: '2001:db8::42', ttl: 60, gtdLocation: 'DEFAULT', source: 1, sourceId: 0, failover: false, monitor: false, dynamicDns: true, hardLink: false }, blocks: true },
  ],
  disagreements: [
    'The reference calls the rate limit "Rate limit exceeded" without a status; lexicon reads it as a 400 with that text and retries: the card follows lexicon on the status but does not wait (a rolling five-minute window outlasts one request), and takes either the text or x-dnsme-requestsRemaining 0 as the sign.',
    'No TTL floor is given in the sources read; lego writes 120 and the console offers 30 and up: the card sets none.',
  ],
})
