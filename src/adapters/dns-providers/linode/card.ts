import { defineCard } from '../card-types.ts'

export const linode = defineCard({
  id: 'linode',
  name: 'Akamai Cloud (Linode) DNS',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/linode4/IntegrationTests', fixture: 'provider-recordings/linode.json', note: "records answered whole; target absolute without the dot; ttl_sec 0 kept as 0" },
    records: { kind: 'docs', url: 'https://techdocs.akamai.com/linode-api/reference/get-domain-records', note: 'record {id, type, name, target, priority, weight, port, service, protocol, tag, ttl_sec}; ttl_sec: any value outside 300, 3600 … 2419200 rounded (the record page says "to the nearest", the domain page "up to the nearest")' },
    paging: { kind: 'docs', url: 'https://techdocs.akamai.com/linode-api/reference/pagination', note: 'page and page_size (25 to 500, default 100); {data, page, pages, results}' },
    rate: { kind: 'docs', url: 'https://techdocs.akamai.com/linode-api/reference/rate-limits', note: '429 with Retry-After; X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset' },
    errors: { kind: 'docs', url: 'https://techdocs.akamai.com/linode-api/reference/errors', note: '{errors: [{reason, field}]}' },
    tokens: { kind: 'docs', url: 'https://techdocs.akamai.com/cloud-computing/docs/manage-personal-access-tokens', note: 'a personal access token with Domains read/write, shown once' },
    openapi: { kind: 'description', url: 'https://github.com/stackql/stackql-provider-linode/blob/f8d6d4c8f7406b6ac88b62760e0af3d1a1430d0f/provider-dev/source/domains.yaml', fixture: 'provider-openapi/linode.json', note: 'the Domains part of Linode\'s published OpenAPI document (https://github.com/linode/linode-api-docs, version 4.208.1), as split by service; carried trimmed to the four operations used, and the contract test checks every exchange against it. The document gives a record\'s name minLength 1 while its prose and the API use "" at the apex' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/linode/linode.go', note: 'linodego: ListDomainRecords, CreateDomainRecord with TTLSec; a minimum TTL of 300' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-linode/blob/main/octodns_linode/__init__.py', note: 'SRV read from priority, weight, port, target, service and protocol' },
  },
  base: { url: 'https://api.linode.com', versions: '/v4', cite: ['records', 'openapi'] },
  auth: { scheme: 'Authorization: Bearer <token>', issued: 'a personal access token (Domains: read/write) from Cloud Manager → Profile → API Tokens, shown once; or a person\'s OAuth grant', accepted: ['the token', 'a person\'s OAuth grant'], cite: ['tokens', 'lego'] },
  listing: {
    zones: { pages: 'page', params: 'page, page_size (25 to 500)', maxPageSize: 500, end: 'page = pages' },
    records: { pages: 'page', params: 'page, page_size (25 to 500)', maxPageSize: 500, end: 'page = pages' },
    cite: ['paging', 'openapi'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'PTR', 'SRV', 'TXT'],
    names: 'relative (`` the apex)',
    values: '`target`; MX `priority`; CAA `tag` and `target` (flags always 0); SRV `service`, `protocol`, `priority`, `weight`, `port`, `target`',
    providerOnly: [
      { kind: 'SRV service and protocol', what: 'kept apart from the name; not rewritten from a value', portico: 'locked' },
      { kind: 'ttl_sec rounding', what: 'a TTL outside 300, 3600 … 2419200 is rounded up (600 → 3600); 0 is the domain default and stays 0 (recorded)', portico: 'kept' },
    ],
    cite: ['records', 'octodns'],
  },
  ttl: { min: 30, default: 3600, cite: ['records', 'lego'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait), 'x-ratelimit-limit': '800', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + wait) }, body: { errors: [{ reason: 'Too Many Requests' }] } }),
    signal: 'Retry-After (seconds)',
    limits: 'per endpoint group, e.g. 800 requests a minute for most reads',
    cite: ['rate'],
  },
  errors: [
    { when: 'a token Linode does not know', status: 401, body: { errors: [{ reason: 'Invalid Token' }] }, reason: 'auth' },
    { when: 'a token without the Domains scope', status: 403, body: { errors: [{ reason: 'Unauthorized' }] }, reason: 'permission' },
    { when: 'a domain not in the account', status: 404, body: { errors: [{ reason: 'Not found' }] }, reason: 'zone_not_found' },
    { when: 'a record Linode refuses', status: 400, body: { errors: [{ reason: 'tag is required for CAA records', field: 'tag' }] }, reason: 'write_failed' },
  ],
  errorsCite: ['errors', 'records'],
  quirks: [
    { text: 'Only master domains have records Portico can write; slave domains are passed over.', cite: ['records'] },
    { text: 'A CAA record\'s flags are not kept (always 0).', cite: ['records', 'octodns'] },
  ],
  seeds: (zone) => [
    { shape: 'an SRV record with service and protocol apart', row: { type: 'SRV', name: '_sip._tls', target: 'sipdir.online.lync.com', priority: 100, weight: 1, port: 443, service: '_sip', protocol: '_tls', ttl_sec: 3600, tag: null } },
    { shape: 'a CAA record where Portico adds its CA', row: { type: 'CAA', name: '', target: 'letsencrypt.org', priority: 0, weight: 0, port: 0, service: null, protocol: null, ttl_sec: 3600, tag: 'issue' } },
    { shape: 'an SRV record at the www name Portico points elsewhere', row: { type: 'SRV', name: 'www', target: `w.${zone}`, priority: 1, weight: 1, port: 443, service: '_https', protocol: '_tcp', ttl_sec: 3600, tag: null }, blocks: true },
  ],
  disagreements: [
    'Rounding: the record reference says a ttl_sec outside the allowed values is rounded "to the nearest valid value", the domain reference "rounded up", and Linode\'s Terraform provider reads it as up (600 → 3600). Portico writes only allowed values (`allowedTtls`, the next one up), so whichever way Linode rounds it stores what Portico wrote; the stand-in rounds up, and keeps 0 as lexicon\'s recording shows.',
    'lego enforces a minimum TTL of 300; the reference now allows 30 and 120 and rounds any other ttl_sec to the nearest allowed value. The card follows the reference: no floor beyond Linode\'s own rounding, which a re-apply reads back and keeps.'],
})
