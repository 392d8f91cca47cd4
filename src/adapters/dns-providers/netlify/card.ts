import { defineCard } from '../card-types.ts'

export const netlify = defineCard({
  id: 'netlify',
  name: 'Netlify DNS',
  sources: {
    docs: { kind: 'docs', url: 'https://open-api.netlify.com/#tag/dnsZone' },
    rate: { kind: 'docs', url: 'https://docs.netlify.com/api/get-started/#rate-limiting', note: '500 requests a minute; X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix time) on every answer' },
    tokens: { kind: 'docs', url: 'https://docs.netlify.com/api/get-started/#authentication', note: 'personal access token, or an OAuth token; `Authorization: Bearer`' },
    swagger: { kind: 'description', url: 'https://github.com/netlify/open-api/blob/650803172c55155ec34dcad94602e058477a4a98/swagger.yml', fixture: 'provider-openapi/netlify.json' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/netlify/internal/client.go', note: 'GetRecords is one GET of /dns_zones/{id}/dns_records, no paging' },
  },
  base: { url: 'https://api.netlify.com/api/v1', versions: 'v1', cite: ['docs', 'swagger'] },
  auth: { scheme: 'Authorization: Bearer <token>', issued: 'a personal access token (`nfp_…`) from User settings → Applications, or an OAuth token', accepted: ['the token', 'Bearer <token>'], cite: ['tokens', 'swagger'] },
  listing: {
    zones: { pages: false, end: 'one answer: the whole list (getDnsZones has only `account_slug`)' },
    records: { pages: false, end: 'one answer: the whole list (getDnsRecords has no parameters)' },
    cite: ['swagger', 'lego'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'MX', 'NS', 'SPF', 'SRV', 'TXT', 'NETLIFY', 'NETLIFYv6'],
    names: '`hostname` absolute, no trailing dot',
    values: '`value` (TXT unquoted); MX `priority`; CAA `flag`, `tag` and `value` apart; SRV `priority`, `weight`, `port` apart',
    providerOnly: [
      { kind: 'NETLIFY / NETLIFYv6', what: 'a Netlify site\'s own address, served by Netlify', portico: 'locked' },
      { kind: 'managed: true', what: 'records Netlify created for a site or a mail service', portico: 'locked' },
      { kind: 'SRV weight/port', what: 'SRV fields apart from value', portico: 'locked' },
    ],
    cite: ['swagger', 'docs'],
  },
  ttl: { min: 1, default: 3600, cite: ['swagger', 'docs'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'x-ratelimit-limit': '500', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + wait) }, body: { code: 429, message: 'Rate limit exceeded' } }),
    signal: 'X-RateLimit-Reset, a Unix time in seconds',
    limits: '500 requests a minute',
    cite: ['rate'],
  },
  errors: [
    { when: 'a token Netlify does not know', status: 401, body: { code: 401, message: 'Access Denied: Invalid token' }, reason: 'auth' },
    { when: 'a zone the token does not reach', status: 404, body: { code: 404, message: 'Not Found' }, reason: 'zone_not_found' },
    { when: 'a record Netlify refuses', status: 422, body: { code: 422, message: 'hostname must be within the zone' }, reason: 'write_failed' },
  ],
  errorsCite: ['swagger', 'docs'],
  quirks: [
    { text: 'Netlify DNS is served from NS1\'s fleet on any shard (`dnsN.pNN.nsone.net`), so nameservers cannot tell Netlify from NS1: the domain check names both and NS1\'s rail takes a Netlify token (src/adapters/dns-providers/ns1/card.ts).', cite: ['docs'] },
    { text: 'The API ignores `page` and `per_page`: a client that pages until an empty page never sees one.', cite: ['swagger', 'lego'] },
  ],
  seeds: (zone) => [
    { shape: 'a Netlify site record at the apex', row: { hostname: zone, type: 'NETLIFY', value: 'site-1234.netlify.app', ttl: 3600, priority: null, flag: null, tag: null, site_id: 'site-1234', managed: true } },
    { shape: 'a managed MX', row: { hostname: `mail.${zone}`, type: 'MX', value: 'mx.netlify-mail.example', ttl: 3600, priority: 10, flag: null, tag: null, site_id: null, managed: true } },
    { shape: 'a long non-ASCII TXT', row: { hostname: `long.${zone}`, type: 'TXT', value: 'ü'.repeat(300), ttl: 3600, priority: null, flag: null, tag: null, site_id: null, managed: false } },
    { shape: 'a managed record where Portico points www', row: { hostname: `www.${zone}`, type: 'NETLIFY', value: 'site-1234.netlify.app', ttl: 3600, priority: null, flag: null, tag: null, site_id: 'site-1234', managed: true }, blocks: true },
  ],
  disagreements: ['Earlier Portico stand-ins paged these lists; the published document and lego agree there is no paging, and the card follows them.'],
})
