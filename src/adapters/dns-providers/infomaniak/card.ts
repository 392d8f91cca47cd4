import { defineCard } from '../card-types.ts'

export const infomaniak = defineCard({
  id: 'infomaniak',
  name: 'Infomaniak',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/infomaniak/IntegrationTests', fixture: 'provider-recordings/infomaniak.json', note: 'record ids are strings; records carry IDN forms, dyndns_id and a priority; a create answers 201 with the new id; products filtered by customer_name' },
    v1: { kind: 'docs', url: 'https://developer.infomaniak.com/docs/api', note: 'Domain › DNS: GET /1/product?service_name=domain (page, per_page; pages, total), GET/POST /1/domain/{id}/dns/record `{source, type, ttl, target}`, DELETE …/dns/record/{record_id}; records carry `dyndns_id` when kept by dynamic DNS; answers `{result, data}`, errors `{result: "error", error: {code, description, errors?}}`' },
    tokens: { kind: 'docs', url: 'https://manager.infomaniak.com/v3/ng/profile/user/token/list', note: 'API tokens made in the Manager with scopes (domain), sent as Bearer' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/infomaniak/internal/client.go', note: 'Bearer token; records at /2/zones/{zone}/records; error bodies `{result: "error", error: {code: "object_not_found", description}}` and validation_failed with `errors` (fixtures); TTL 300 by default' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/infomaniak/api.go', note: 'base https://api.infomaniak.com/2; records `{id, source, type, ttl, target, updated_at}`' },
  },
  base: { url: 'https://api.infomaniak.com', versions: '/1 (products and domain DNS records, which Portico uses); /2 zones beside it', cite: ['v1', 'dnscontrol'] },
  auth: { scheme: 'Authorization: Bearer <API token>', issued: 'an API token from the Manager (Profile → API tokens) with the domain scope', accepted: ['the token'], cite: ['tokens', 'lego'] },
  listing: {
    zones: { pages: 'page', params: 'page, per_page', end: '`pages` in the answer' },
    records: { pages: false, end: 'GET /1/domain/{id}/dns/record answers the whole zone' },
    cite: ['v1'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'DNAME', 'DS', 'MX', 'NS', 'SMIMEA', 'SRV', 'SSHFP', 'TLSA', 'TXT'],
    names: '`source` relative, `.` the apex',
    values: '`target`: the whole value (MX and SRV with their priority inside)',
    providerOnly: [{ kind: 'dyndns_id', what: 'a record kept up to date by Infomaniak\'s dynamic DNS', portico: 'locked' }],
    cite: ['v1', 'dnscontrol'],
  },
  ttl: { min: 300, default: 3600, cite: ['lego', 'v1'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: { result: 'error', error: { code: 'too_many_request', description: 'Too many requests' } } }),
    signal: 'none: the reference documents no wait, so Portico reports it at once',
    limits: 'not published as a figure',
    cite: ['v1'],
  },
  errors: [
    { when: 'a token Infomaniak does not know', status: 401, body: { result: 'error', error: { code: 'not_authorized', description: 'Authorization required' } }, reason: 'auth' },
    { when: 'a token without the domain scope', status: 403, body: { result: 'error', error: { code: 'forbidden', description: 'Access denied' } }, reason: 'permission' },
    { when: 'a domain id the token does not reach', status: 404, body: { result: 'error', error: { code: 'object_not_found', description: 'Object not found' } }, reason: 'zone_not_found' },
    { when: 'a record Infomaniak refuses', status: 422, body: { result: 'error', error: { code: 'validation_failed', description: 'Validation failed', errors: [{ code: 'attribute_required', description: 'The target attribute is required', context: { attribute: 'target' } }] } }, reason: 'write_failed' },
  ],
  errorsCite: ['lego', 'v1'],
  quirks: [
    { text: 'Domains are addressed by their product id, listed with service_name=domain.', cite: ['v1'] },
    { text: 'TXT targets are sent as zone-file strings, so a text that starts with a quote reads back unchanged.', cite: ['v1'] },
  ],
  seeds: (zone) => [
    { shape: 'a dynamic DNS record', row: { id: 77001, source: 'home', type: 'A', ttl: 300, target: '203.0.113.44', dyndns_id: 512 } },
    { shape: 'an SRV with its priority in the target', row: { id: 77002, source: '_sip._tcp', type: 'SRV', ttl: 3600, target: `10 5 5060 sip.${zone}` } },
    { shape: 'a long non-ASCII TXT', row: { id: 77003, source: 'long', type: 'TXT', ttl: 3600, target: '"' + 'é'.repeat(120) + '" "' + 'é'.repeat(80) + '"' } },
    { shape: 'a dynamic DNS record where Portico points www', row: { id: 77004, source: 'www', type: 'AAAA', ttl: 300, target: '2001:db8::44', dyndns_id: 513 }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in answered a create with 200 and numeric ids; lexicon\'s recording shows 201 and string ids, which the stand-in now gives.',
    'lego and dnscontrol have moved to the /2/zones/{zone}/records API; Portico reads domains and records through /1, which Infomaniak still documents, so it can list the domains a token reaches (the /2 clients take the zone name from their configuration).',
    'The reference gives no TTL floor; lego\'s default of 300 is the card\'s floor, and Portico writes 300 or more.',
  ],
})
