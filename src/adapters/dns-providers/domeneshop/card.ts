import { defineCard } from '../card-types.ts'

export const domeneshop = defineCard({
  id: 'domeneshop',
  name: 'Domeneshop',
  sources: {
    docs: { kind: 'docs', url: 'https://api.domeneshop.no/docs/', note: 'API v0: HTTP Basic with token and secret; /domains, /domains/{id}/dns, /domains/{id}/dns/{recordId}, /domains/{id}/forwards; errors `{help, code, message}`' },
    python: { kind: 'client', url: 'https://github.com/domeneshop/python-domeneshop/blob/master/src/domeneshop/client.py', note: 'the provider\'s own client: types A, AAAA, CNAME, ANAME, TLSA, MX, SRV, DS, CAA, NS, TXT; keys per type (MX priority; SRV priority, weight, port; TLSA usage, selector, dtype; DS tag, alg, digest; CAA flags, tag); errors carry `code` and `help`' },
    pythonForwards: { kind: 'client', url: 'https://github.com/domeneshop/python-domeneshop/blob/master/examples/list_forwards.py', note: 'HTTP forwards listed per domain: host, frame, url' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/domeneshop/internal/client.go', note: 'GET /domains, GET/POST /domains/{id}/dns, DELETE …/dns/{recordId}; Basic auth' },
  },
  base: { url: 'https://api.domeneshop.no/v0', versions: 'v0', cite: ['docs', 'python'] },
  auth: {
    scheme: 'HTTP Basic: token as the user, secret as the password',
    issued: 'an API token and secret (domeneshop.no/admin?view=api)',
    accepted: ['token:secret'],
    cite: ['docs', 'python', 'lego'],
  },
  listing: {
    zones: { pages: false, end: 'GET /domains answers every domain' },
    records: { pages: false, end: 'GET /domains/{id}/dns answers every record' },
    cite: ['docs', 'lego'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'ANAME', 'TLSA', 'MX', 'SRV', 'DS', 'CAA', 'NS', 'TXT'],
    names: '`host` relative, `@` the apex',
    values: '`data` (hostnames without the trailing dot); MX `priority`, CAA `flags`+`tag`, SRV `priority`+`weight`+`port`, TLSA `usage`+`selector`+`dtype`, DS `tag`+`alg`+`digest` apart',
    providerOnly: [
      { kind: 'ANAME', what: 'a flattened alias', portico: 'kept' },
      { kind: 'SRV, TLSA, DS fields', what: 'the fields each keeps beside `data`', portico: 'kept' },
      { kind: 'forwards', what: 'HTTP forwards of a host (`{host, frame, url}`), apart from the DNS records', portico: 'locked' },
    ],
    cite: ['python', 'pythonForwards', 'docs'],
  },
  ttl: { min: 0, default: 3600, cite: ['docs', 'python'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { help: 'https://api.domeneshop.no/docs/', code: 'rate:limited', message: 'Too many requests' } }),
    signal: 'Retry-After',
    limits: 'not given in the sources read',
    cite: ['docs'],
  },
  errors: [
    { when: 'a token or secret Domeneshop does not know', status: 401, body: { help: 'https://api.domeneshop.no/docs/', code: 'auth:invalid', message: 'Invalid credentials' }, reason: 'auth' },
    { when: 'a domain id the token does not reach', status: 404, body: { help: 'https://api.domeneshop.no/docs/', code: 'domain:notFound', message: 'Domain not found' }, reason: 'zone_not_found' },
    { when: 'a record that clashes with one there (a CNAME beside others)', status: 400, body: { help: 'https://api.domeneshop.no/docs/', code: 'record:collision', message: 'Record collides with an existing record' }, reason: 'conflict' },
    { when: 'a record the API refuses', status: 400, body: { help: 'https://api.domeneshop.no/docs/', code: 'record:invalid', message: 'Invalid record' }, reason: 'write_failed' },
  ],
  errorsCite: ['docs', 'python'],
  quirks: [
    { text: 'POST …/dns answers 201 with the new record\'s path in Location.', cite: ['python'] },
    { text: 'Forwards are not DNS records: they live at /domains/{id}/forwards and answer for their host; Portico reads them and never writes where one answers.', cite: ['docs', 'pythonForwards'] },
  ],
  seeds: (zone) => [
    { shape: 'an ANAME at `root`', row: { host: 'root', ttl: 3600, type: 'ANAME', data: `lb.${zone}` } },
    { shape: 'an SRV with weight and port where Portico points www (removed under the CNAME, restored with its fields)', row: { host: 'www', ttl: 3600, type: 'SRV', data: `sip.${zone}`, priority: 10, weight: 5, port: 5060 } },
    { shape: 'a TLSA record', row: { host: '_443._tcp', ttl: 3600, type: 'TLSA', data: 'd2abde240d7cd3ee6b4b28c54df034b97983a1d16e8a410e4561cb106618e971', usage: 3, selector: 1, dtype: 1 } },
    { shape: 'an HTTP forward of `go`', row: { forward: { host: 'go', frame: false, url: 'https://example.net/landing' } } },
    { shape: 'an HTTP forward of www, where Portico points a CNAME', row: { forward: { host: 'www', frame: true, url: 'https://shop.example.net/' } }, blocks: true },
  ],
  disagreements: [
    'lego and the python client read only /dns; the reference also has /forwards, which answer for their host without a DNS record Portico can see: the card reads both.',
    'No TTL floor or rate limit figure is given in the sources read: the stand-in enforces none and answers a limit with 429 and Retry-After.',
  ],
})
