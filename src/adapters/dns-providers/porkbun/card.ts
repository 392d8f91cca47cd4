import { defineCard } from '../card-types.ts'

export const porkbun = defineCard({
  id: 'porkbun',
  name: 'Porkbun',
  sources: {
    docs: { kind: 'docs', url: 'https://porkbun.com/api/json/v3/documentation', note: 'every call a POST of JSON with apikey and secretapikey; /dns/create `{name, type, content, ttl, prio, notes}` (TTL minimum and default 600); /domain/listAll `{start}` up to 1000 a call, read on until an empty list; errors `{status: "ERROR", message}`' },
    llms: { kind: 'docs', url: 'https://porkbun.com/llms/dns', note: 'retrieve answers every editable record (SOA and Porkbun\'s default NS left out); X-API-Key / X-Secret-API-Key headers accepted too; OpenAPI at https://porkbun.com/api/json/v3/spec' },
    spec: { kind: 'description', url: 'https://porkbun.com/api/json/v3/spec', note: 'Porkbun\'s OpenAPI document; served only from porkbun.com (no public repository carries it), so it is not carried here' },
    rate503: { kind: 'docs', url: 'https://github.com/DNSControl/dnscontrol/issues/3225', note: 'past the limit the API answers HTTP 503 "Service Temporarily Unavailable" (an openresty HTML page), no Retry-After; Porkbun support: about one request a second per key (https://github.com/nrdcg/porkbun/issues/3)' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/porkbun/porkbunProvider.go', note: 'minimum TTL 600; URL forwards read from /domain/getUrlForwarding and the ALIAS/CNAME records Porkbun makes for them (targets under porkbun.com) left alone; retries 503 with backoff (api.go)' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/porkbun/porkbun.go', note: 'minTTL 300' },
  },
  base: { url: 'https://api.porkbun.com/api/json/v3', versions: 'v3', cite: ['docs', 'llms'] },
  auth: {
    scheme: '`apikey` and `secretapikey` in every JSON body (or X-API-Key / X-Secret-API-Key headers)',
    issued: 'an API key (`pk1_…`) and its secret (`sk1_…`) shown once at porkbun.com/account/api; API access is then switched on per domain',
    accepted: ['apikey:secretapikey', '{"apikey": …, "secretapikey": …}', 'PORKBUN_API_KEY=… / PORKBUN_SECRET_API_KEY=… lines', 'key and secret on two lines'],
    cite: ['docs', 'llms'],
  },
  listing: {
    zones: { pages: 'offset', params: 'start (the count already read); up to 1000 a call', maxPageSize: 1000, end: 'an empty list' },
    records: { pages: false, end: '/dns/retrieve answers the whole zone' },
    cite: ['docs', 'llms'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'HTTPS', 'MX', 'NS', 'SRV', 'SVCB', 'TLSA', 'TXT'],
    names: '`name` fully qualified when read, relative (empty the apex) when written',
    values: '`content` (TXT unquoted), `prio` apart, numbers as strings; `notes` a person\'s note on the record',
    providerOnly: [
      { kind: 'ALIAS', what: 'a name answered with another name\'s addresses; an A, AAAA or CNAME beside it clashes', portico: 'locked' },
      { kind: 'URL forwarding / parking', what: 'ALIAS and CNAME records Porkbun keeps for a URL forward or its parking page (targets under porkbun.com)', portico: 'locked' },
      { kind: 'notes', what: 'a person\'s note on a record', portico: 'kept' },
      { kind: 'SRV, TLSA, HTTPS, SVCB', what: 'records with fields apart from content', portico: 'locked' },
    ],
    cite: ['docs', 'llms', 'dnscontrol'],
  },
  ttl: { min: 600, default: 600, cite: ['docs', 'dnscontrol'] },
  rateLimit: {
    status: 503,
    answer: () => ({ headers: { 'content-type': 'text/html' }, body: '<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>openresty</center></body></html>' }),
    signal: 'none: an HTML 503 with no wait; Portico waits 1, 2, 4 s and then reports the rate limit',
    limits: 'about one request a second per key',
    cite: ['rate503', 'dnscontrol'],
  },
  temporary: [
    { when: 'past the rate limit', status: 503, body: '503 Service Temporarily Unavailable (HTML)', retry: 'waited out with 1, 2, 4 s within the retry budget; still there after that, reported as a rate limit', cite: ['rate503', 'dnscontrol'] },
  ],
  errors: [
    { when: 'a key or secret Porkbun does not know', status: 400, body: { status: 'ERROR', message: 'Invalid API key. (002)' }, reason: 'auth' },
    { when: 'a domain with API access switched off', status: 400, body: { status: 'ERROR', message: 'Domain is not opted in to API access.' }, reason: 'permission' },
    { when: 'a domain not in the account', status: 400, body: { status: 'ERROR', message: 'Invalid domain.' }, reason: 'zone_not_found' },
    { when: 'a TTL under 600, a type or content Porkbun refuses', status: 400, body: { status: 'ERROR', message: 'TTL must be at least 600.' }, reason: 'write_failed' },
  ],
  errorsCite: ['docs', 'dnscontrol'],
  quirks: [
    { text: 'API access is switched on per domain: a domain without it answers an error, which Portico reports as a missing permission.', cite: ['docs'] },
    { text: 'A URL forward lives in its own API (/domain/getUrlForwarding) and shows in the zone as an ALIAS (and a wildcard CNAME) to Porkbun\'s servers: those records are never touched.', cite: ['dnscontrol'] },
  ],
  seeds: (zone) => [
    { shape: 'a URL forward\'s ALIAS on a subdomain', row: { id: '90000001', name: `go.${zone}`, type: 'ALIAS', content: 'uixie.porkbun.com', ttl: '600', prio: '0', notes: null } },
    { shape: 'a URL forward\'s wildcard CNAME', row: { id: '90000002', name: `*.go.${zone}`, type: 'CNAME', content: 'uixie.porkbun.com', ttl: '600', prio: '0', notes: null } },
    { shape: 'an SRV record with its priority apart', row: { id: '90000003', name: `_sip._tcp.${zone}`, type: 'SRV', content: `5 5060 sip.${zone}`, ttl: '600', prio: '10', notes: '' } },
    { shape: 'an A with a person\'s note where Portico points www (removed under the CNAME, restored with its note)', row: { id: '90000004', name: `www.${zone}`, type: 'A', content: '198.51.100.80', ttl: '600', prio: '0', notes: 'old shop – do not delete' } },
    { shape: 'an ALIAS at the apex, where Portico writes its A', row: { id: '90000005', name: zone, type: 'ALIAS', content: 'site.example.net', ttl: '600', prio: '0', notes: null }, blocks: true },
  ],
  disagreements: [
    'lego allows a TTL of 300; the reference and dnscontrol say 600 is the minimum: the card follows the reference.',
    'The reference documents no rate limit; users measured an HTML 503 at about one request a second per key and Porkbun support confirmed it: the card follows them and treats the 503 as the rate limit.',
  ],
})
