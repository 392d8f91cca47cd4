import { defineCard } from '../card-types.ts'

export const scaleway = defineCard({
  id: 'scaleway',
  name: 'Scaleway Domains and DNS',
  sources: {
    docs: { kind: 'docs', url: 'https://www.scaleway.com/en/developers/api/domains-and-dns/', note: 'ListDNSZones, ListDNSZoneRecords (page, page_size; total_count), UpdateDNSZoneRecords: add, set, delete by id or id_fields, applied together; records with comment and dynamic configurations (geo_ip_config, http_service_config, weighted_config, view_config)' },
    keys: { kind: 'docs', url: 'https://www.scaleway.com/en/docs/iam/how-to/create-api-keys/', note: 'an API key is an access key (`SCW…`) and a secret key (a UUID) shown once; the secret goes in X-Auth-Token' },
    errors: { kind: 'docs', url: 'https://www.scaleway.com/en/developers/api/#errors', note: 'errors `{message, type, …}`: denied_authentication, permissions_denied, not_found, invalid_arguments, conflict, quotas_exceeded' },
    openapi: { kind: 'description', url: 'https://github.com/Qovery/scaleway-api-rs/blob/74473ed3fb5433fa61c510f76499e37beee692f9/.generation/scaleway.domain.v2beta1.Api.yml', fixture: 'provider-openapi/scaleway.json', note: 'a copy of Scaleway\'s published domain v2beta1 OpenAPI document, carried trimmed to the three operations used' },
    sdk: { kind: 'client', url: 'https://github.com/scaleway/scaleway-sdk-go/blob/master/scw/errors.go', note: 'a 409 of `type` transient_state (`resource`, `resource_id`, `current_state`) is its own TransientStateError, apart from conflict: the resource is still applying an earlier change' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/scaleway/scaleway.go', note: 'the Scaleway Go SDK\'s UpdateDNSZoneRecords with `set`/`delete` by id_fields; minTTL 60; secret key as the token' },
  },
  base: { url: 'https://api.scaleway.com/domain/v2beta1', versions: 'v2beta1', cite: ['docs', 'openapi'] },
  auth: { scheme: 'X-Auth-Token: <secret key>', issued: 'an API key pair from IAM → API keys: an access key and a secret key (a UUID); the secret key is the token', accepted: ['the secret key'], cite: ['keys', 'lego'] },
  listing: {
    zones: { pages: 'page', params: 'page, page_size (up to 1000); domain filter', maxPageSize: 1000, end: 'total_count' },
    records: { pages: 'page', params: 'page, page_size (up to 1000); name and type filters', maxPageSize: 1000, end: 'total_count' },
    cite: ['docs', 'openapi'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'TXT', 'SRV', 'TLSA', 'MX', 'NS', 'PTR', 'CAA', 'ALIAS', 'LOC', 'SSHFP', 'HINFO', 'RP', 'URI', 'DS', 'NAPTR', 'DNAME', 'SVCB', 'HTTPS'],
    names: '`name` relative, empty the apex',
    values: '`data` zone-file text (TXT quoted, hostnames with the trailing dot); `priority` apart for MX; `comment`',
    providerOnly: [
      { kind: 'ALIAS', what: 'CNAME-like at the apex; an A, AAAA or CNAME beside it clashes', portico: 'locked' },
      { kind: 'dynamic records', what: 'geo-IP, HTTP health-checked, weighted and view records', portico: 'locked' },
      { kind: 'comment', what: 'a person\'s note on a record', portico: 'kept' },
    ],
    cite: ['docs', 'openapi'],
  },
  ttl: { min: 60, default: 3600, cite: ['lego', 'docs'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: { message: 'too many requests', type: 'too_many_requests' } }),
    signal: 'none: the reference documents no wait, so Portico reports it at once',
    limits: 'not published as a figure',
    cite: ['errors'],
  },
  temporary: [
    { when: 'a write on a zone still applying an earlier change', status: 409, body: { message: 'resource is in a transient state', resource: 'dns_zone', resource_id: 'example.com', current_state: 'pending', type: 'transient_state' }, retry: 'waited out every 2 s within the retry budget; still there after that, temporary (503 provider_temporary with Retry-After)', cite: ['sdk', 'errors'] },
  ],
  errors: [
    { when: 'a secret key Scaleway does not know', status: 401, body: { message: 'authentication is denied', type: 'denied_authentication', method: 'api_key', reason: 'invalid_argument' }, reason: 'auth' },
    { when: 'a key whose IAM policy lacks DNS permissions', status: 403, body: { message: 'insufficient permissions', type: 'permissions_denied', details: [{ resource: 'dns_zone', action: 'write' }] }, reason: 'permission' },
    { when: 'a zone the key\'s project does not hold', status: 404, body: { message: 'resource is not found', type: 'not_found', resource: 'dns_zone', resource_id: 'not-mine.example' }, reason: 'zone_not_found' },
    { when: 'a PATCH deleting a set by id_fields that was removed between Portico\'s read and its PATCH (all or none, nothing written): read again and sent once more, then 409 conflict zone_changed', status: 404, body: { message: 'resource is not found', type: 'not_found', resource: 'dns_record' }, reason: 'zone_changed' },
    { when: 'a CNAME beside other records', status: 409, body: { message: 'CNAME record conflicts with other records', type: 'conflict' }, reason: 'conflict' },
    { when: 'a record Scaleway refuses', status: 400, body: { message: 'invalid argument(s)', type: 'invalid_arguments', details: [{ argument_name: 'changes', reason: 'constraint', help_message: 'TXT data must be quoted' }] }, reason: 'write_failed' },
  ],
  errorsCite: ['errors', 'docs'],
  quirks: [
    { text: 'Every change of a write goes in one PATCH, applied all or none.', cite: ['docs', 'openapi'] },
    { text: 'The document marks the `domain` and `name` list filters required (it is generated from Scaleway\'s protocol buffers); Portico sends them empty, meaning every item, as Scaleway\'s SDKs do.', cite: ['openapi', 'lego'] },
  ],
  seeds: (zone) => [
    { shape: 'a weighted dynamic A record', row: { id: 'dddddddd-0000-4000-8000-000000000001', data: '198.51.100.40', name: 'lb', priority: 0, ttl: 300, type: 'A', comment: null, weighted_config: { weighted_ips: [{ ip: '198.51.100.40', weight: 1 }, { ip: '198.51.100.41', weight: 3 }] } } },
    { shape: 'a commented TXT where Portico verifies (merged beside, comment kept)', row: { id: 'dddddddd-0000-4000-8000-000000000002', data: '"other-vendor=2"', name: '_portico-challenge', priority: 0, ttl: 3600, type: 'TXT', comment: 'vendor verification, keep' } },
    { shape: 'a commented A where Portico points www (removed under the CNAME, restored with its comment)', row: { id: 'dddddddd-0000-4000-8000-000000000003', data: '198.51.100.81', name: 'www', priority: 0, ttl: 3600, type: 'A', comment: 'legacy origin' } },
    { shape: 'a geo-IP record where Portico writes its A', row: { id: 'dddddddd-0000-4000-8000-000000000004', data: '198.51.100.50', name: '', priority: 0, ttl: 300, type: 'A', comment: null, geo_ip_config: { matches: [{ countries: ['FR'], continents: [], data: '198.51.100.51' }], default: '198.51.100.50' } }, blocks: true },
    { shape: 'an ALIAS at the apex, where Portico writes its A', row: { id: 'dddddddd-0000-4000-8000-000000000005', data: 'site.example.net.', name: '', priority: 0, ttl: 3600, type: 'ALIAS', comment: null }, blocks: true },
  ],
  disagreements: [
    'The document marks the list filters `domain` and `name` required; the API and its SDKs take them empty: Portico sends them empty, which satisfies both.',
    'The document lists only a 200 answer per operation; errors and the rate limit are described for the whole API: the contract test states that exception.',
    'Scaleway documents no wait on a 429; the stand-in sends none and Portico reports the limit at once.',
  ],
})
