import { defineCard } from '../card-types.ts'

export const ovh = defineCard({
  id: 'ovh',
  name: 'OVHcloud',
  sources: {
    console: { kind: 'docs', url: 'https://eu.api.ovh.com/console/?section=%2Fdomain', note: 'GET/POST /domain/zone/{zoneName}/record, GET/PUT/DELETE …/record/{id}, POST …/refresh' },
    start: { kind: 'docs', url: 'https://help.ovhcloud.com/csm/en-api-getting-started-ovhcloud-api', note: 'application key and secret, consumer key; X-Ovh-* headers and the "$1$" SHA1 signature; EU, CA and US endpoints' },
    spf: { kind: 'docs', url: 'https://help.ovhcloud.com/csm/en-dns-spf-record', note: 'OVH\'s SPF record type, and DKIM / DMARC types in the zone editor' },
    schema: { kind: 'description', url: 'https://eu.api.ovh.com/1.0/domain.json', note: 'OVH\'s own API schema format (not OpenAPI); not carried: not fetchable from this build, the stand-in follows the console text' },
    goovh: { kind: 'client', url: 'https://github.com/ovh/go-ovh/blob/master/ovh/configuration.go', note: 'endpoints ovh-eu https://eu.api.ovh.com/1.0, ovh-ca https://ca.api.ovh.com/1.0, ovh-us https://api.us.ovhcloud.com/1.0' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-ovh/blob/main/octodns_ovh/__init__.py', note: 'reads DKIM as TXT; refreshes the zone after changes' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/ovh/ovh.go' },
  },
  base: {
    url: 'https://eu.api.ovh.com/1.0',
    versions: '1.0',
    regions: [
      { name: 'ovh-eu', url: 'https://eu.api.ovh.com/1.0' },
      { name: 'ovh-ca', url: 'https://ca.api.ovh.com/1.0' },
      { name: 'ovh-us', url: 'https://api.us.ovhcloud.com/1.0' },
    ],
    cite: ['start', 'goovh'],
  },
  auth: {
    scheme: 'X-Ovh-Application, X-Ovh-Consumer, X-Ovh-Timestamp, X-Ovh-Signature ("$1$" + SHA1 of secret+consumer+method+url+body+timestamp)',
    issued: 'an application key and secret, and a consumer key validated for GET/POST/PUT/DELETE /domain/zone/*, on one endpoint (EU, CA or US)',
    accepted: ['ak:as:ck', 'ak:as:ck:ovh-ca', '{"application_key", "application_secret", "consumer_key", "endpoint"?}', 'OVH_APPLICATION_KEY=… lines (OVH_ENDPOINT too)'],
    cite: ['start', 'goovh', 'lego'],
  },
  listing: {
    zones: { pages: false, end: 'one answer: every zone name' },
    records: { pages: false, end: 'one answer: every record id; then one GET per id' },
    cite: ['console', 'octodns'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'DKIM', 'DMARC', 'DNAME', 'HTTPS', 'LOC', 'MX', 'NAPTR', 'NS', 'PTR', 'RP', 'SPF', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT'],
    names: '`subDomain` relative, empty for the apex',
    values: '`target` in zone-file form (TXT quoted)',
    providerOnly: [
      { kind: 'SPF', what: 'the domain\'s SPF policy as its own type (quoted text)', portico: 'kept' },
      { kind: 'DKIM', what: 'a DKIM key as its own type', portico: 'kept' },
      { kind: 'DMARC', what: 'a DMARC policy as its own type', portico: 'kept' },
    ],
    cite: ['console', 'spf', 'octodns'],
  },
  ttl: { min: 0, default: 0, cite: ['console'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { message: 'Too many requests', errorCode: 'QUERY_LIMIT_REACHED', httpCode: '429' } }),
    signal: 'Retry-After',
    limits: 'per application; not published as numbers',
    cite: ['start'],
  },
  errors: [
    { when: 'a consumer key OVH does not know', status: 403, body: { errorCode: 'INVALID_CREDENTIAL', httpCode: '403 Forbidden', message: 'This credential does not exist' }, reason: 'auth' },
    { when: 'a signature that does not match', status: 400, body: { errorCode: 'INVALID_SIGNATURE', httpCode: '400 Bad Request', message: 'Invalid signature' }, reason: 'auth' },
    { when: 'a consumer key not granted this call', status: 403, body: { errorCode: 'NOT_GRANTED_CALL', httpCode: '403 Forbidden', message: 'This call has not been granted' }, reason: 'permission' },
    { when: 'a zone not in the account', status: 404, body: { message: 'This service does not exist' }, reason: 'zone_not_found' },
  ],
  errorsCite: ['start', 'octodns'],
  quirks: [
    { text: 'Changes are staged until POST /domain/zone/{zone}/refresh.', cite: ['console', 'octodns'] },
    { text: 'A zone holds SPF, DKIM and DMARC as their own types: a TXT `v=spf1` beside an SPF record is a second SPF policy (RFC 7208 §3.2 makes both void), so a merge must update the SPF record itself (PUT …/record/{id}).', cite: ['spf', 'console'] },
  ],
  baselineWithout: ['SPF'],
  seeds: (zone) => [
    { shape: 'OVH\'s SPF record at the apex', row: { subDomain: '', fieldType: 'SPF', target: '"v=spf1 include:mx.ovh.com ~all"', ttl: 0 } },
    { shape: 'a DKIM record', row: { subDomain: 'ovhmo-selector-1._domainkey', fieldType: 'DKIM', target: 'v=DKIM1;t=s;p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC1', ttl: 0 } },
    { shape: 'a DMARC record', row: { subDomain: '_dmarc', fieldType: 'DMARC', target: 'v=DMARC1;p=quarantine;rua=mailto:dmarc@' + zone, ttl: 0 } },
    { shape: 'a long non-ASCII TXT', row: { subDomain: 'long', fieldType: 'TXT', target: `"${'ç'.repeat(120)}" "${'ç'.repeat(20)}"`, ttl: 3600 } },
    { shape: 'an MX at the apex', row: { subDomain: '', fieldType: 'MX', target: '1 mx1.mail.ovh.net.', ttl: 0 } },
  ],
  disagreements: ['octodns reads only DKIM as its own type and skips SPF and DMARC records; OVH\'s zone editor creates all three: the card follows the zone editor and reads all three as the TXT values they publish.'],
})
