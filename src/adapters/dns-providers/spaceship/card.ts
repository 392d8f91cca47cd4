import { defineCard } from '../card-types.ts'

export const spaceship = defineCard({
  id: 'spaceship',
  name: 'Spaceship',
  sources: {
    records: { kind: 'docs', url: 'https://docs.spaceship.dev/#tag/DNS-records', note: 'GET /api/v1/dns/records/{domain} (take 1–500, skip; `{items, total}`), PUT with `{force?, items}`, DELETE with a list of items; record types and their fields; `group` of a record' },
    domains: { kind: 'docs', url: 'https://docs.spaceship.dev/#tag/Domains', note: 'GET /api/v1/domains (take, skip; `{items, total}`)' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/spaceship/internal/client.go', note: 'X-Api-Key and X-Api-Secret; PUT …/dns/records/{domain} `{items}` without force; DELETE with the items themselves' },
    legoTypes: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/spaceship/internal/types.go', note: 'a record\'s fields by type: value, address, nameserver, aliasName, pointer, cname, exchange; errors `{detail, data: [{field, details}]}`' },
    legoFixtures: { kind: 'client', url: 'https://github.com/go-acme/lego/tree/master/providers/dns/spaceship/internal/fixtures', note: 'get_records.json: items carry `group: {type: "custom"}`; error.json' },
  },
  base: { url: 'https://spaceship.dev/api/v1', versions: 'v1', cite: ['records', 'lego'] },
  auth: {
    scheme: 'X-API-Key and X-API-Secret headers',
    issued: 'an API key and its secret (API Manager), with the scopes chosen there (dnsrecords:read, dnsrecords:write, domains:read)',
    accepted: ['api_key:api_secret', '{"apiKey": …, "apiSecret": …}', 'SPACESHIP_API_KEY=… / SPACESHIP_API_SECRET=… lines'],
    cite: ['lego', 'records'],
  },
  listing: {
    zones: { pages: 'offset', params: 'take (1–100), skip', maxPageSize: 100, end: '`total` reached' },
    records: { pages: 'offset', params: 'take (1–500), skip', maxPageSize: 500, end: '`total` reached' },
    cite: ['records', 'domains', 'legoFixtures'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'HTTPS', 'MX', 'NS', 'PTR', 'SRV', 'SVCB', 'TLSA', 'TXT'],
    names: '`name` relative, `@` the apex',
    values: 'fields by type: A/AAAA `address`, CNAME `cname`, NS `nameserver`, MX `exchange`+`preference`, TXT `value`, CAA `flag`+`tag`+`value`, ALIAS `aliasName`, PTR `pointer`, HTTPS/SVCB `svcPriority`+`targetName`+`svcParams`, SRV `service`+`protocol`+`priority`+`weight`+`port`+`target`',
    providerOnly: [
      { kind: 'ALIAS', what: 'a flattened alias (`aliasName`)', portico: 'kept' },
      { kind: 'HTTPS, SVCB', what: 'service binding records with their parameters', portico: 'kept' },
      { kind: 'group other than custom', what: 'records a Spaceship product (its email, its hosting) manages', portico: 'locked' },
    ],
    cite: ['records', 'legoTypes', 'legoFixtures'],
  },
  ttl: { min: 60, default: 3600, max: 3600, cite: ['records', 'legoFixtures'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { detail: 'Too many requests' } }),
    signal: 'Retry-After',
    limits: 'per user and endpoint, as the reference states for each operation',
    cite: ['records'],
  },
  errors: [
    { when: 'a key or secret Spaceship does not know', status: 401, body: { detail: 'Unauthorized' }, reason: 'auth' },
    { when: 'a key without the scope', status: 403, body: { detail: 'Forbidden' }, reason: 'permission' },
    { when: 'a domain not in the account', status: 404, body: { detail: 'Domain not found' }, reason: 'zone_not_found' },
    { when: 'an item the API refuses', status: 422, body: { detail: 'Validation failed', data: [{ field: 'items', details: 'a CNAME cannot stand beside other records' }] }, reason: 'write_failed' },
  ],
  errorsCite: ['records', 'legoTypes'],
  quirks: [
    { text: 'Records have no ids: DELETE removes the items that match the fields it is sent, so a record is deleted with exactly its own fields.', cite: ['records', 'lego'] },
    { text: 'PUT with `force: true` overwrites records that conflict; Portico, like lego, sends no force, so a conflict is refused instead of silently replacing what the plan did not name.', cite: ['records', 'lego'] },
  ],
  seeds: (zone) => [
    { shape: 'an ALIAS at `root`', row: { type: 'ALIAS', name: 'root', ttl: 3600, aliasName: `lb.${zone}`, group: { type: 'custom' } } },
    { shape: 'an HTTPS record where Portico points www (removed under the CNAME, restored with its parameters)', row: { type: 'HTTPS', name: 'www', ttl: 3600, svcPriority: 1, targetName: '.', svcParams: 'alpn="h3,h2"', group: { type: 'custom' } } },
    { shape: 'an SVCB record', row: { type: 'SVCB', name: '_dns', ttl: 3600, svcPriority: 1, targetName: `dns.${zone}`, svcParams: 'alpn="dot"', group: { type: 'custom' } } },
    { shape: 'an SRV record', row: { type: 'SRV', name: '_sip._tcp', ttl: 3600, service: '_sip', protocol: '_tcp', priority: 10, weight: 5, port: 5060, target: `sip.${zone}`, group: { type: 'custom' } } },
    { shape: 'a TXT Spaceship\'s email product manages at www, where Portico points a CNAME', row: { type: 'TXT', name: 'www', ttl: 3600, value: 'spaceship-mail=1', group: { type: 'product' } }, blocks: true },
  ],
  disagreements: [
    'lego lists records without take and skip; the reference has both and caps take at 500: the card follows the reference and pages.',
    'The reference read here names no URL-redirect record type (Spaceship\'s URL redirects are a domain setting, not a DNS record): none is seeded.',
  ],
})
