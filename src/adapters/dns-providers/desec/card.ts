import { defineCard } from '../card-types.ts'

export const desec = defineCard({
  id: 'desec',
  name: 'deSEC',
  sources: {
    rrsets: { kind: 'docs', url: 'https://desec.readthedocs.io/en/latest/dns/rrsets.html', note: 'RRsets `{subname, type, ttl, records}`; records in zone-file form (TXT quoted); bulk PATCH/PUT on …/rrsets/ is atomic and `records: []` deletes; list paginated by cursor (Link rel="next") above 500 items, a 400 without the parameter; TTL not below the domain\'s minimum_ttl, at most 86400; the apex NS RRset is managed by deSEC' },
    domains: { kind: 'docs', url: 'https://desec.readthedocs.io/en/latest/dns/domains.html', note: 'domain `{name, minimum_ttl, created, published, touched}`; minimum_ttl 3600 unless lowered for the account' },
    auth: { kind: 'docs', url: 'https://desec.readthedocs.io/en/latest/auth/tokens.html', note: '`Authorization: Token <token>`; tokens can be limited by subnet, expiry and per-domain policies (403 when a policy forbids a write)' },
    limits: { kind: 'docs', url: 'https://desec.readthedocs.io/en/latest/rate-limits.html', note: '429 with a human-readable wait and Retry-After; dns_api_read 10/s, 50/min; dns_api_write_rrsets 2/s, 15/min, 100/h, 300/day per domain — "consider using bulk requests"' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/desec/desec.go', note: 'TTL 3600 by default; Token auth' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/desec/desecProvider.go', note: 'minimum_ttl read from the domain; bulk PATCH of the changed RRsets; apex NS left alone' },
  },
  base: { url: 'https://desec.io/api/v1', versions: 'v1', cite: ['rrsets', 'domains'] },
  auth: { scheme: 'Authorization: Token <token>', issued: 'a token made in the deSEC web interface (Token management), optionally limited by subnet, expiry and domain policies', accepted: ['the token', 'Token <token>'], cite: ['auth', 'lego'] },
  listing: {
    zones: { pages: 'cursor', params: 'cursor (empty for the first page); Link rel="next"', end: 'no rel="next" link' },
    records: { pages: 'cursor', params: 'cursor (empty for the first page); Link rel="next"', end: 'no rel="next" link' },
    cite: ['rrsets', 'dnscontrol'],
  },
  records: {
    types: ['A', 'AAAA', 'AFSDB', 'APL', 'CAA', 'CDNSKEY', 'CDS', 'CERT', 'CNAME', 'DHCID', 'DNAME', 'DNSKEY', 'DLV', 'DS', 'EUI48', 'EUI64', 'HINFO', 'HTTPS', 'KX', 'L32', 'L64', 'LOC', 'LP', 'MX', 'NAPTR', 'NID', 'NS', 'OPENPGPKEY', 'PTR', 'RP', 'SMIMEA', 'SPF', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT', 'URI'],
    names: '`subname` relative, empty the apex (`@` in a path)',
    values: '`records`: zone-file text (TXT as quoted character strings, hostnames with the trailing dot)',
    providerOnly: [
      { kind: 'RRset model', what: 'one TTL and one list of records per name and type, written whole', portico: 'kept' },
      { kind: 'apex NS', what: 'deSEC\'s own name servers, managed by deSEC', portico: 'kept' },
      { kind: 'minimum_ttl', what: 'the domain\'s TTL floor (3600 unless lowered)', portico: 'kept' },
    ],
    cite: ['rrsets', 'domains'],
  },
  ttl: { min: 3600, default: 3600, max: 86400, cite: ['rrsets', 'domains', 'lego'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` } }),
    signal: 'Retry-After',
    limits: 'reads 10/s and 50/min; RRset writes 2/s, 15/min, 100/h, 300/day per domain',
    cite: ['limits'],
  },
  errors: [
    { when: 'a token deSEC does not know', status: 401, body: { detail: 'Invalid token.' }, reason: 'auth' },
    { when: 'a token whose policy forbids the write', status: 403, body: { detail: 'Insufficient token permissions.' }, reason: 'permission' },
    { when: 'a domain not in the account', status: 404, body: { detail: 'Not found.' }, reason: 'zone_not_found' },
    { when: 'a TTL under the domain\'s minimum', status: 400, body: [{ ttl: ['Ensure this value is greater than or equal to 3600.'] }], reason: 'write_failed' },
  ],
  errorsCite: ['rrsets', 'auth', 'limits'],
  quirks: [
    { text: 'The `Link` header names https://desec.io/api/v1/… whatever address was asked: Portico rebases the next page\'s path and query onto the configured base (DNS_PROVIDER_API_BASES), never follows it elsewhere.', cite: ['rrsets'] },
    { text: 'A bulk PATCH is all or nothing and one request against the per-domain write limit: Portico sends every change of a write in one.', cite: ['rrsets', 'limits'] },
    { text: 'A list longer than a page must be asked with `cursor`: without it deSEC answers 400.', cite: ['rrsets'] },
  ],
  seeds: (zone) => [
    { shape: 'deSEC\'s apex NS set', row: { subname: '', type: 'NS', ttl: 3600, records: ['ns1.desec.io.', 'ns2.desec.org.'] } },
    { shape: 'an HTTPS set where Portico points www (removed under the CNAME, restored)', row: { subname: 'www', type: 'HTTPS', ttl: 3600, records: ['1 . alpn="h2,h3"'] } },
    { shape: 'a TXT set split in two strings', row: { subname: 'dkim._domainkey', type: 'TXT', ttl: 86400, records: ['"v=DKIM1; k=rsa; " "p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC"'] } },
    { shape: 'an SRV set', row: { subname: '_sip._tcp', type: 'SRV', ttl: 3600, records: [`10 5 5060 sip.${zone}.`] } },
  ],
  disagreements: [
    'lego writes single RRsets; dnscontrol and the reference use bulk requests, atomic and cheaper against the write limit: the card follows the reference.',
    'The minimum TTL is a per-domain setting; Portico takes deSEC\'s default 3600 as the floor for every domain (a domain with a lower minimum still takes 3600).',
  ],
})
