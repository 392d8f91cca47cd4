import { defineCard } from '../card-types.ts'

export const namecom = defineCard({
  id: 'namecom',
  name: 'Name.com',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/namecom/IntegrationTests', fixture: 'provider-recordings/namecom.json', note: "a create answers the record with its fqdn; a whole zone in one page (perPage up to 1000)" },
    docs: { kind: 'docs', url: 'https://www.name.com/api-docs/DNS', note: 'v4 DNS: ListRecords (page, perPage; nextPage, lastPage), CreateRecord `{host, type, answer, ttl, priority}`, DeleteRecord; types A, AAAA, ANAME, CNAME, MX, NS, SRV, TXT; TTL at least 300; SRV priority apart from its answer' },
    intro: { kind: 'docs', url: 'https://www.name.com/api-docs', note: 'HTTP Basic with the user name and an API token (production and test tokens are issued apart); errors `{message, details}`; rate limit 20 requests a second and 3000 an hour' },
    forwarding: { kind: 'docs', url: 'https://www.name.com/api-docs/URLForwarding', note: 'URL forwarding is its own resource (…/url/forwarding), apart from the records' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/namedotcom/records.go', note: 'ALIAS written as ANAME; pages by NextPage; a long client timeout as "the namecom library doesn\'t make it easy to do a clean retry-on-429"' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/namedotcom/namedotcom.go', note: 'minTTL 300; user name and token' },
  },
  base: { url: 'https://api.name.com', versions: '/v4; test environment https://api.dev.name.com', cite: ['intro'] },
  auth: {
    scheme: 'HTTP Basic: user name and API token',
    issued: 'an API token for the account\'s user name, made at name.com/account/settings/api (a production token and a test token apart)',
    accepted: ['username:token'],
    cite: ['intro', 'lego'],
  },
  listing: {
    zones: { pages: 'page', params: 'page, perPage (up to 1000)', maxPageSize: 1000, end: 'no nextPage in the answer' },
    records: { pages: 'page', params: 'page, perPage (up to 1000)', maxPageSize: 1000, end: 'no nextPage in the answer' },
    cite: ['docs', 'dnscontrol'],
  },
  records: {
    types: ['A', 'AAAA', 'ANAME', 'CAA', 'CNAME', 'MX', 'NS', 'SRV', 'TXT'],
    names: '`host` relative (empty the apex), `fqdn` absolute with the trailing dot',
    values: '`answer` (TXT unquoted, hostnames without the trailing dot); `priority` apart for MX and SRV',
    providerOnly: [
      { kind: 'ANAME', what: 'a name answered with another name\'s addresses; an A, AAAA or CNAME beside it clashes', portico: 'locked' },
      { kind: 'SRV priority', what: 'SRV priority apart from its answer', portico: 'locked' },
      { kind: 'URL forwarding', what: 'its own resource, not among the records: never touched', portico: 'hidden' },
    ],
    cite: ['docs', 'forwarding', 'dnscontrol'],
  },
  ttl: { min: 300, default: 300, cite: ['docs', 'lego'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: { message: 'Too Many Requests' } }),
    signal: 'none: no wait is documented, so Portico reports it at once',
    limits: '20 requests a second, 3000 an hour',
    cite: ['intro', 'dnscontrol'],
  },
  errors: [
    { when: 'a user name or token Name.com does not know (or a test token in production)', status: 401, body: { message: 'Unauthenticated' }, reason: 'auth' },
    { when: 'a token without API access to the domain', status: 403, body: { message: 'Permission Denied' }, reason: 'permission' },
    { when: 'a domain not in the account', status: 404, body: { message: 'Not Found' }, reason: 'zone_not_found' },
    { when: 'a record Name.com refuses (a TTL under 300, a bad answer)', status: 400, body: { message: 'Invalid Argument', details: 'TTL must be at least 300' }, reason: 'write_failed' },
  ],
  errorsCite: ['intro', 'docs'],
  quirks: [
    { text: 'Each record is its own object: a set is read by grouping and written by deleting and creating records.', cite: ['docs', 'dnscontrol'] },
    { text: 'An ANAME where Portico writes an A is refused before anything is written.', cite: ['docs'] },
  ],
  seeds: (zone) => [
    { shape: 'an ANAME on a subdomain', row: { id: 900001, domainName: zone, host: 'shop', fqdn: `shop.${zone}.`, type: 'ANAME', answer: 'shops.example.net', ttl: 300 } },
    { shape: 'an SRV with its priority apart', row: { id: 900002, domainName: zone, host: '_sip._tcp', fqdn: `_sip._tcp.${zone}.`, type: 'SRV', answer: `5 5060 sip.${zone}`, ttl: 300, priority: 10 } },
    { shape: 'a long non-ASCII TXT', row: { id: 900003, domainName: zone, host: 'long', fqdn: `long.${zone}.`, type: 'TXT', answer: 'ß'.repeat(300), ttl: 3600 } },
    { shape: 'an ANAME at the apex, where Portico writes its A', row: { id: 900004, domainName: zone, host: '', fqdn: `${zone}.`, type: 'ANAME', answer: 'site.example.net', ttl: 300 }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in served three rows a page; lexicon\'s recording lists a whole zone in one page (perPage up to 1000), which the stand-in now does.',
    'The v4 reference lists A, AAAA, ANAME, CNAME, MX, NS, SRV and TXT; Name.com\'s record editor also offers CAA, and the card lets the stand-in take it (not confirmed against the live API: flagged here).',
    'dnscontrol calls the record ALIAS and writes it as ANAME; the API\'s type is ANAME: the card follows the API.',
    'Neither the reference nor the clients document the answer past the rate limit; the stand-in answers 429 with no wait (an assumption, flagged here).',
  ],
})
