import { defineCard } from '../card-types.ts'

export const simply = defineCard({
  id: 'simply-com',
  name: 'Simply.com',
  sources: {
    docs: { kind: 'docs', url: 'https://www.simply.com/en/docs/api/', note: 'API v2: HTTP Basic with the account name and API key; /my/products, /my/products/{object}/dns/records' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/simply/internal/client.go', note: 'Basic auth (account name, API key); GET/POST …/my/products/{zone}/dns/records/, PUT and DELETE …/records/{id}/' },
    legoTypes: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/simply/internal/types.go', note: 'a record {record_id, name, data, type, ttl, priority}; errors `{"error": …}`' },
    legoFixtures: { kind: 'client', url: 'https://github.com/go-acme/lego/tree/master/providers/dns/simply/internal/fixtures', note: 'get_records.json (`{status, message, records}`, apex NS ns1–ns3.simply.com), bad_auth_error.json ("Invalid account authorization"), bad_zone_error.json ("Unknown or invalid product reference")' },
  },
  base: { url: 'https://api.simply.com/2', versions: '2', cite: ['docs', 'lego'] },
  auth: {
    scheme: 'HTTP Basic: account name (S123456) as the user, API key as the password',
    issued: 'the account name and an API key (Account → API)',
    accepted: ['account:api_key'],
    cite: ['docs', 'lego'],
  },
  listing: {
    zones: { pages: false, end: 'GET /my/products answers every product' },
    records: { pages: false, end: 'GET …/dns/records answers every record' },
    cite: ['docs', 'legoFixtures'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'TLSA', 'SSHFP', 'DS'],
    names: '`name` relative, `@` the apex',
    values: '`data` (hostnames without the trailing dot); `priority` apart (MX, SRV)',
    providerOnly: [
      { kind: 'SRV priority', what: 'the priority beside `data` ("weight port target")', portico: 'kept' },
      { kind: 'apex NS', what: 'Simply.com\'s own name servers, listed with the records', portico: 'kept' },
    ],
    cite: ['legoTypes', 'legoFixtures', 'docs'],
  },
  ttl: { min: 60, default: 3600, cite: ['docs', 'legoFixtures'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { error: 'Too many requests' } }),
    signal: 'Retry-After',
    limits: 'not given in the sources read',
    cite: ['docs'],
  },
  errors: [
    { when: 'an account name or key Simply.com does not know', status: 401, body: { error: 'Invalid account authorization' }, reason: 'auth' },
    { when: 'a product the account does not hold', status: 404, body: { error: 'Unknown or invalid product reference' }, reason: 'zone_not_found' },
    { when: 'a record the API refuses', status: 400, body: { error: 'Invalid record' }, reason: 'write_failed' },
  ],
  errorsCite: ['legoFixtures', 'legoTypes'],
  quirks: [
    { text: 'Errors come as `{"error": "…"}`; successes as `{status, message, …}`.', cite: ['legoTypes', 'legoFixtures'] },
    { text: 'A product is addressed by its object reference; for a domain product lego uses the domain name itself.', cite: ['lego', 'docs'] },
  ],
  seeds: (zone) => [
    { shape: 'Simply.com\'s apex NS records', row: { name: '@', ttl: 3600, data: 'ns1.simply.com', type: 'NS', priority: 0 } },
    { shape: 'an SRV with its priority apart, at the www name Portico points elsewhere (restored with its priority)', row: { name: 'www', ttl: 3600, data: `5 5060 sip.${zone}`, type: 'SRV', priority: 10 } },
    { shape: 'an SSHFP record', row: { name: 'host', ttl: 3600, data: '4 2 123456789abcdef67890123456789abcdef67890123456789abcdef123456789', type: 'SSHFP', priority: 0 } },
  ],
  disagreements: [
    'lego reads an error as `{"error"}`; Portico\'s stand-in once answered `{status, message}`: the card follows lego\'s fixtures, taken from the API.',
    'No TTL floor or rate-limit figure is given in the sources read: the card takes the console\'s 60 s floor as an assumption, and 429 with Retry-After for a limit.',
  ],
})
