import { defineCard } from '../card-types.ts'

export const ionos = defineCard({
  id: 'ionos',
  name: 'IONOS',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/ionos/IntegrationTests', fixture: 'provider-recordings/ionos.json', note: 'names absolute; a bare TXT content stored and answered quoted; a zone read filtered by recordType and recordName' },
    docs: { kind: 'docs', url: 'https://developer.hosting.ionos.com/docs/dns', note: 'GET /dns/v1/zones (one list), GET /dns/v1/zones/{zoneId} (the zone with every record; recordName, recordType filters), POST …/records (a list), DELETE …/records/{recordId}; records `{id, name, rootName, type, content, changeDate, ttl, prio, disabled}`; errors a list `[{code, message}]`' },
    keys: { kind: 'docs', url: 'https://developer.hosting.ionos.com/docs/getstarted', note: 'an API key is issued as a public prefix and a secret, sent as `X-API-Key: prefix.secret`' },
    openapi: { kind: 'description', url: 'https://developer.hosting.ionos.com/docs/dns (OpenAPI document served beside the reference)', note: 'published only on IONOS\'s developer site (no public repository carries it), so it is not carried here' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/internal/ionos/internal/client.go', note: 'X-Api-Key; GET /v1/zones/{id} for records; error bodies `[{code, message}]` (fixtures get_records_error.json: UNAUTHORIZED)' },
    acmesh: { kind: 'client', url: 'https://github.com/acmesh-official/acme.sh/blob/master/dnsapi/dns_ionos.sh', note: 'IONOS_PREFIX and IONOS_SECRET joined with a dot; TTL 60 the lowest the API accepts' },
  },
  base: { url: 'https://api.hosting.ionos.com/dns', versions: 'v1', cite: ['docs', 'lego'] },
  auth: {
    scheme: 'X-API-Key: <public prefix>.<secret>',
    issued: 'an API key at developer.hosting.ionos.com: a public prefix and a secret shown once',
    accepted: ['prefix.secret'],
    cite: ['keys', 'acmesh', 'lego'],
  },
  listing: {
    zones: { pages: false, end: 'GET /dns/v1/zones answers every zone' },
    records: { pages: false, end: 'GET /dns/v1/zones/{zoneId} answers the zone with every record' },
    cite: ['docs', 'lego'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'SOA', 'SRV', 'TXT', 'CAA', 'TLSA', 'SMIMEA', 'SSHFP', 'DS', 'HTTPS', 'SVCB', 'CERT', 'URI', 'RP', 'LOC', 'OPENPGPKEY'],
    names: '`name` absolute; `rootName` the zone',
    values: '`content` (TXT unquoted); `prio` apart for MX and SRV; `disabled` a record switched off',
    providerOnly: [
      { kind: 'disabled', what: 'a record kept in the zone but not served', portico: 'hidden' },
      { kind: 'SRV and other field records', what: 'SRV priority apart from its content; TLSA, HTTPS, SVCB…', portico: 'locked' },
    ],
    cite: ['docs', 'lego'],
  },
  ttl: { min: 60, default: 3600, cite: ['acmesh', 'docs'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: [{ code: 'TOO_MANY_REQUESTS', message: 'Too many requests.' }] }),
    signal: 'none: the reference documents the 429 with no wait, so Portico reports it at once',
    limits: 'per API key, not published as a figure',
    cite: ['docs'],
  },
  errors: [
    { when: 'a key IONOS does not know', status: 401, body: [{ code: 'UNAUTHORIZED', message: 'The customer is not authorized to do this operation.' }], reason: 'auth' },
    { when: 'a key without the DNS product', status: 403, body: [{ code: 'FORBIDDEN', message: 'The customer is not allowed to do this operation.' }], reason: 'permission' },
    { when: 'a zone id the key does not reach', status: 404, body: [{ code: 'ZONE_NOT_FOUND', message: 'Zone not found.' }], reason: 'zone_not_found' },
    { when: 'a record IONOS refuses', status: 400, body: [{ code: 'INVALID_RECORD', message: 'Record is invalid.' }], reason: 'write_failed' },
  ],
  errorsCite: ['docs', 'lego'],
  quirks: [
    { text: 'Zones are addressed by id (a UUID); a SLAVE zone is not IONOS\'s to write and is left out.', cite: ['docs'] },
    { text: 'A record switched off stays in the zone as `disabled`: Portico neither counts nor touches it, and refuses a CNAME beside it rather than find out whether IONOS takes one.', cite: ['docs'] },
  ],
  seeds: (zone) => [
    { shape: 'a disabled A elsewhere (not served, left as it is)', row: { id: '11111111-0000-4000-8000-000000000001', name: `old.${zone}`, rootName: zone, type: 'A', content: '198.51.100.99', ttl: 3600, disabled: true, changeDate: '2026-01-01T00:00:00.000Z' } },
    { shape: 'a disabled TXT at the apex (an old SPF, switched off)', row: { id: '11111111-0000-4000-8000-000000000002', name: zone, rootName: zone, type: 'TXT', content: 'v=spf1 include:old.example.net -all', ttl: 3600, disabled: true, changeDate: '2026-01-01T00:00:00.000Z' } },
    { shape: 'an SRV with its priority apart', row: { id: '11111111-0000-4000-8000-000000000003', name: `_sip._tcp.${zone}`, rootName: zone, type: 'SRV', content: `5 5060 sip.${zone}`, ttl: 3600, prio: 10, disabled: false, changeDate: '2026-01-01T00:00:00.000Z' } },
    { shape: 'a disabled A where Portico points www (a CNAME cannot stand beside it)', row: { id: '11111111-0000-4000-8000-000000000005', name: `www.${zone}`, rootName: zone, type: 'A', content: '198.51.100.98', ttl: 3600, disabled: true, changeDate: '2026-01-01T00:00:00.000Z' }, blocks: true },
    { shape: 'an HTTPS record where Portico points www', row: { id: '11111111-0000-4000-8000-000000000004', name: `www.${zone}`, rootName: zone, type: 'HTTPS', content: '1 . alpn="h2"', ttl: 3600, prio: 0, disabled: false, changeDate: '2026-01-01T00:00:00.000Z' }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in stored TXT content as written; lexicon\'s recording shows IONOS answering a bare value quoted, which the stand-in now does (the adapter reads either).',
    'lego refuses a TTL under 300; acme.sh writes 60, "the minimum accepted by the API": the card takes 60 as the floor and Portico writes 300 or more anyway.',
    'The reference lists 429 with no header; the stand-in sends none (an assumption where IONOS may add one; Portico waits out a Retry-After when one comes).',
  ],
})
