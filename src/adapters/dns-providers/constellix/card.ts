import { defineCard } from '../card-types.ts'

export const constellix = defineCard({
  id: 'constellix',
  name: 'Constellix',
  sources: {
    docs: { kind: 'docs', url: 'https://api.dns.constellix.com/v4/docs', note: 'DNS API v4: Domains, Records (paged: page, perPage; meta.pagination.totalPages); record modes standard, failover, pools, roundRobinFailover' },
    phpClient: { kind: 'client', url: 'https://github.com/digicert/dnstrust-constellix-php-sdk/blob/main/src/Client.php', note: 'the provider\'s SDK: `Authorization: Bearer <apiKey>:<base64 HMAC-SHA1 of the ms timestamp>:<ms timestamp>`; X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (seconds until the reset); 400, 401, 404 typed by status' },
    phpRecord: { kind: 'client', url: 'https://github.com/digicert/dnstrust-constellix-php-sdk/blob/main/src/Models/Record.php', note: 'a record: name, type, ttl, mode, region, ipfilter, ipfilterDrop, geoproximity, enabled, value, lastValues, notes, contacts; HTTP redirection\'s value is one object, not a list' },
    phpTypes: { kind: 'client', url: 'https://github.com/digicert/dnstrust-constellix-php-sdk/blob/main/src/Enums/Records/RecordType.php', note: 'A, AAAA, ANAME, CNAME, HINFO, HTTP, CAA, CERT, MX, NAPTR, NS, PTR, RP, SRV, TXT, SPF (upper case)' },
    phpFixtures: { kind: 'client', url: 'https://github.com/digicert/dnstrust-constellix-php-sdk/tree/main/tests/Unit/fixtures', note: 'requests/domainrecord/create-a-standard-simple.json (`"type": "A"`, `"mode": "standard"`), responses/domainrecord/list.json and httpredirection.json' },
    pythonClient: { kind: 'client', url: 'https://github.com/digicert/dnstrust-constellix-python-sdk', note: 'the same Bearer signature; a refusal with X-RateLimit-Remaining 0 is RequestLimitExceeded' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/constellix/internal/client.go', note: 'still on API v1 (x-cns-security-token); read for the signature only' },
  },
  base: { url: 'https://api.dns.constellix.com/v4', versions: 'v4 (v1 and v2 retired for new keys)', cite: ['docs', 'phpClient'] },
  auth: {
    scheme: 'Authorization: Bearer <apiKey>:<hmac>:<timestamp>, hmac = base64 HMAC-SHA1(secretKey, timestamp in ms)',
    issued: 'an API key and a secret key (Account → Edit My Account → API Keys)',
    accepted: ['api_key:secret_key', '{"apiKey": …, "secretKey": …}', 'CONSTELLIX_API_KEY=… / CONSTELLIX_SECRET_KEY=… lines'],
    cite: ['phpClient', 'pythonClient', 'lego'],
  },
  listing: {
    zones: { pages: 'page', params: 'page (from 1), perPage', end: 'meta.pagination.totalPages' },
    records: { pages: 'page', params: 'page (from 1), perPage', end: 'meta.pagination.totalPages' },
    cite: ['docs', 'phpFixtures'],
  },
  records: {
    types: ['A', 'AAAA', 'ANAME', 'CNAME', 'HINFO', 'HTTP', 'CAA', 'CERT', 'MX', 'NAPTR', 'NS', 'PTR', 'RP', 'SRV', 'TXT', 'SPF'],
    names: '`name` relative, empty for the apex',
    values: 'a record is the whole set: `value` a list of `{value}` (A, AAAA, ANAME, TXT), `{hostname}` (CNAME, NS), `{server, priority}` (MX), `{flag, tag, data}` (CAA), each with `enabled`',
    providerOnly: [
      { kind: 'ANAME', what: 'a flattened alias at any name', portico: 'kept' },
      { kind: 'HTTP', what: 'HTTP redirection: one object `{url, redirectType, hard, title, description, keywords}`', portico: 'kept' },
      { kind: 'mode failover, pools, roundRobinFailover', what: 'answers from Sonar checks or shared pools instead of a fixed list', portico: 'locked' },
      { kind: 'region, ipfilter, geoproximity', what: 'GTD regions, IP filters and geo-proximity answers', portico: 'locked' },
      { kind: 'enabled false', what: 'a switched-off record, or a switched-off value', portico: 'locked' },
      { kind: 'notes, contacts', what: 'a person\'s notes and the contact lists told of changes', portico: 'kept' },
    ],
    cite: ['phpRecord', 'phpTypes', 'phpFixtures'],
  },
  ttl: { min: 0, default: 3600, cite: ['phpFixtures', 'docs'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(wait) }, body: { message: 'Too Many Attempts.' } }),
    signal: 'X-RateLimit-Reset (seconds until the limit resets)',
    limits: 'per API key, announced with every answer in X-RateLimit-Limit and X-RateLimit-Remaining',
    cite: ['phpClient', 'pythonClient'],
  },
  errors: [
    { when: 'a signature the key does not match, or a stale timestamp', status: 401, body: { message: 'Unauthenticated.' }, reason: 'auth' },
    { when: 'a domain or record id the key does not reach', status: 404, body: { message: 'Not found.' }, reason: 'zone_not_found' },
    { when: 'a record the API refuses (a second record of one name and type, a CNAME beside others)', status: 422, body: { message: 'The given data was invalid.' }, reason: 'write_failed' },
  ],
  errorsCite: ['phpClient', 'pythonClient'],
  quirks: [
    { text: 'A record is the whole set of one name and type: POST creates it, PUT replaces it (every field: what is not sent is reset), DELETE removes it.', cite: ['docs', 'phpRecord'] },
    { text: '`value` holds the answer of the record\'s mode; `lastValues` keeps the values of its other modes.', cite: ['phpRecord', 'phpFixtures'] },
  ],
  seeds: (zone) => [
    { shape: 'an ANAME at the apex-side name `root`', row: { id: 0, name: 'root', type: 'ANAME', ttl: 3600, mode: 'standard', region: 'default', ipfilter: null, geoproximity: null, enabled: true, notes: '', contacts: [], value: [{ value: `lb.${zone}.`, enabled: true }] } },
    { shape: 'HTTP redirection where Portico points www (removed under the CNAME, restored whole)', row: { id: 0, name: 'www', type: 'HTTP', ttl: 3600, mode: 'standard', region: 'default', ipfilter: null, geoproximity: null, enabled: true, notes: 'old site', contacts: [], value: { hard: true, redirectType: 301, title: 'Shop', description: '', keywords: '', url: 'https://shop.example.net/' } } },
    { shape: 'a pools-mode A record', row: { id: 0, name: 'app', type: 'A', ttl: 60, mode: 'pools', region: 'default', ipfilter: null, geoproximity: null, enabled: true, notes: '', contacts: [], value: [{ id: 7665, links: { self: 'https://api.dns.constellix.com/v4/pools/a/7665' } }] } },
    { shape: 'a failover-mode A record', row: { id: 0, name: 'api', type: 'A', ttl: 60, mode: 'failover', region: 'default', ipfilter: null, geoproximity: null, enabled: true, notes: '', contacts: [], value: { mode: 'normal', values: [{ enabled: true, order: 1, sonarCheckId: 76627, value: '198.51.100.42' }] } } },
    { shape: 'a CAA with notes and a contact list at the apex (Portico merges its CA into it with a PUT)', row: { id: 0, name: '', type: 'CAA', ttl: 3600, mode: 'standard', region: 'default', ipfilter: null, geoproximity: null, enabled: true, notes: 'CAs we use', contacts: [{ id: 2668228 }], value: [{ flag: 0, tag: 'issue', data: 'letsencrypt.org', enabled: true }] } },
    { shape: 'a geo-proximity AAAA record at www, where Portico points a CNAME', row: { id: 0, name: 'www', type: 'AAAA', ttl: 3600, mode: 'standard', region: 'default', ipfilter: null, geoproximity: { id: 4367769 }, enabled: true, notes: '', contacts: [], value: [{ value: '2001:db8::42', enabled: true }] }, blocks: true },
  ],
  disagreements: [
    'lego and octodns still speak API v1 (x-cns-security-token, `roundRobin`); the v4 reference and DigiCert\'s SDKs use the Bearer header and `value`: the card follows v4.',
    'The sources read give no TTL floor and no error body format (the SDKs type errors by status alone): the stand-in answers `{message}` and takes any TTL from 0.',
  ],
})
