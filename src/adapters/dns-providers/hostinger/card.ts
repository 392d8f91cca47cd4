import { defineCard } from '../card-types.ts'

export const hostinger = defineCard({
  id: 'hostinger',
  name: 'Hostinger',
  sources: {
    dns: { kind: 'docs', url: 'https://developers.hostinger.com/#tag/dns-zone', note: 'GET, PUT (overwrite) and DELETE (filters) /api/dns/v1/zones/{domain}; record sets {name, type, ttl, records [{content, is_disabled}]}' },
    portfolio: { kind: 'docs', url: 'https://developers.hostinger.com/#tag/domains-portfolio', note: 'GET /api/domains/v1/portfolio: the account\'s domains, one list' },
    rate: { kind: 'docs', url: 'https://developers.hostinger.com/#description/rate-limiting', note: '429 "Too Many Attempts." with Retry-After' },
    openapi: { kind: 'description', url: 'https://github.com/hostinger/api/blob/3859515f4529b43e178ce4c69e7120d8de7ec721/openapi.json', fixture: 'provider-openapi/hostinger.json' },
    tokens: { kind: 'docs', url: 'https://support.hostinger.com/en/articles/10840865-what-is-hostinger-api', note: 'an API token from hPanel → Profile → API, shown once' },
    sdk: { kind: 'client', url: 'https://github.com/hostinger/api-typescript-sdk/blob/main/api.ts', note: 'the provider\'s own SDK generated from the document: DNSZoneApi getDNSRecordsV1, updateDNSRecordsV1 {overwrite, zone}, deleteDNSRecordsV1 {filters}' },
  },
  base: { url: 'https://developers.hostinger.com', versions: '/api/dns/v1, /api/domains/v1', cite: ['dns', 'openapi'] },
  auth: { scheme: 'Authorization: Bearer <API token>', issued: 'an API token from hPanel → Profile → API, shown once', accepted: ['the token'], cite: ['tokens', 'openapi'] },
  listing: {
    zones: { pages: false, end: 'one answer: the portfolio' },
    records: { pages: false, end: 'one answer: the zone' },
    cite: ['openapi', 'sdk'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'MX', 'NS', 'SOA', 'SRV', 'TXT'],
    names: 'relative (`@` the apex)',
    values: '`content`: zone-file text (hostnames with the trailing dot, TXT quoted)',
    providerOnly: [
      { kind: 'is_disabled', what: 'a record switched off in hPanel; the update takes content only, so it cannot be written back switched off', portico: 'locked' },
      { kind: 'ALIAS', what: 'Hostinger\'s apex alias (its CDN)', portico: 'kept' },
    ],
    cite: ['openapi', 'dns'],
  },
  ttl: { min: 60, default: 14400, cite: ['openapi', 'dns'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { message: 'Too Many Attempts.', correlation_id: '00000000-0000-4000-8000-000000000000' } }),
    signal: 'Retry-After (seconds)',
    limits: 'not published per endpoint',
    cite: ['rate'],
  },
  errors: [
    { when: 'a token Hostinger does not know', status: 401, body: { message: 'Unauthenticated', correlation_id: '00000000-0000-4000-8000-000000000000' }, reason: 'auth' },
    { when: 'a domain not in the account', status: 404, body: { message: 'Not found', correlation_id: '00000000-0000-4000-8000-000000000000' }, reason: 'zone_not_found' },
    { when: 'a set Hostinger refuses', status: 422, body: { message: 'The given data was invalid.', correlation_id: '00000000-0000-4000-8000-000000000000', errors: { zone: ['TXT content must be quoted'] } }, reason: 'write_failed' },
  ],
  errorsCite: ['openapi', 'dns'],
  quirks: [
    { text: 'PUT with overwrite true replaces the sets it names (name and type); without it, records are appended. Portico always sends overwrite true with the whole set.', cite: ['openapi', 'sdk'] },
    { text: 'Rate limiting and unknown domains are described for the whole API, not per operation (the contract test notes it as the document\'s gap).', cite: ['rate', 'openapi'] },
  ],
  seeds: (zone) => [
    { shape: 'a TXT set with a record switched off', row: { name: 'old', type: 'TXT', ttl: 14400, records: [{ content: '"old-verification=1"', is_disabled: true }, { content: '"keep=1"', is_disabled: false }] } },
    { shape: 'an SRV set', row: { name: '_sip._tls', type: 'SRV', ttl: 14400, records: [{ content: '100 1 443 sipdir.online.lync.com.', is_disabled: false }] } },
    { shape: 'a switched-off AAAA at the www name Portico points elsewhere', row: { name: 'www', type: 'AAAA', ttl: 14400, records: [{ content: '2001:db8::9', is_disabled: true }] }, blocks: true },
  ],
  disagreements: [
    'The document gives records an `is_disabled` flag when read but the update takes `content` only; the card follows the document: a set holding a switched-off record is not rewritten.',
  ],
})
