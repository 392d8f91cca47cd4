import { defineCard } from '../card-types.ts'

export const namesilo = defineCard({
  id: 'namesilo',
  name: 'NameSilo',
  sources: {
    reference: { kind: 'docs', url: 'https://www.namesilo.com/api-reference', note: 'GET /api/{operation}?version=1&type=json&key=…; listDomains (page, pageSize; pager), dnsListRecords (resource_record: record_id, type, host, value, ttl, distance), dnsAddRecord (rrtype, rrhost, rrvalue, rrdistance, rrttl), dnsDeleteRecord (rrid); reply codes 300 success, 110 invalid key, 112 sub-accounts, 113 IP not allowed, 200 domain not active or not the user\'s, 280 DNS modification error' },
    keys: { kind: 'docs', url: 'https://www.namesilo.com/account/api-manager', note: 'one API key per account, optionally restricted to IP addresses; the JSON is converted from the XML answer' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/namesilo/namesilo.go', note: 'TTL between 3600 and 2592000; dnsAddRecord / dnsListRecords / dnsDeleteRecord through github.com/nrdcg/namesilo' },
    nrdcg: { kind: 'client', url: 'https://github.com/nrdcg/namesilo', note: 'the Go client lego uses: reply codes typed, `key` in the query string' },
  },
  base: { url: 'https://www.namesilo.com/api', versions: 'version=1 in every request', cite: ['reference'] },
  auth: { scheme: '`key` in the query string', issued: 'an API key from the API Manager, optionally limited to IP addresses', accepted: ['the key'], cite: ['reference', 'keys'] },
  listing: {
    zones: { pages: 'page', params: 'page, pageSize', end: 'pager.total' },
    records: { pages: false, end: 'dnsListRecords answers the whole zone' },
    cite: ['reference'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA'],
    names: '`host` fully qualified when read, `rrhost` relative (empty the apex) when written',
    values: '`value`; `distance` the MX (and SRV) priority',
    providerOnly: [
      { kind: 'SRV distance', what: 'SRV priority in `distance`, apart from its value', portico: 'locked' },
      { kind: 'forwarding', what: 'URL and email forwarding are their own operations (domainForward, configureEmailForward), not records Portico writes', portico: 'hidden' },
    ],
    cite: ['reference', 'lego'],
  },
  ttl: { min: 3600, default: 7207, max: 2592000, cite: ['lego', 'reference'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: 'Too Many Requests' }),
    signal: 'none: NameSilo documents no wait, so Portico reports it at once',
    limits: 'not published as a figure',
    cite: ['reference'],
  },
  errors: [
    { when: 'a key NameSilo does not know', status: 200, body: { reply: { code: 110, detail: 'Invalid API Key' } }, reason: 'auth' },
    { when: 'a key used from an address it is not allowed from', status: 200, body: { reply: { code: 113, detail: 'This account cannot be accessed from your IP' } }, reason: 'permission' },
    { when: 'a domain not in the account', status: 200, body: { reply: { code: 200, detail: 'Domain is not active, or does not belong to this user' } }, reason: 'zone_not_found' },
    { when: 'a record NameSilo refuses', status: 200, body: { reply: { code: 280, detail: 'DNS record could not be added' } }, reason: 'write_failed' },
  ],
  errorsCite: ['reference', 'nrdcg'],
  quirks: [
    { text: 'Every answer is HTTP 200 with the outcome in reply.code (300 success).', cite: ['reference'] },
    { text: 'The answer is converted from XML: a list of one is the item itself.', cite: ['reference', 'nrdcg'] },
    { text: 'The key travels in the query string, so no request URL ever goes into an error or a log.', cite: ['reference'] },
  ],
  seeds: (zone) => [
    { shape: 'an SRV record with its priority in distance', row: { record_id: 'aa00000000000000000000000000001', type: 'SRV', host: `_sip._tcp.${zone}`, value: `5 5060 sip.${zone}`, ttl: 7207, distance: 10 } },
    { shape: 'a long non-ASCII TXT', row: { record_id: 'aa00000000000000000000000000002', type: 'TXT', host: `long.${zone}`, value: 'ä'.repeat(300), ttl: 7207, distance: 0 } },
    { shape: 'the default TTL of 7207 on an A elsewhere', row: { record_id: 'aa00000000000000000000000000003', type: 'A', host: `shop.${zone}`, value: '198.51.100.70', ttl: 7207, distance: 0 } },
    { shape: 'an SRV at the www name Portico points elsewhere', row: { record_id: 'aa00000000000000000000000000004', type: 'SRV', host: `www.${zone}`, value: `1 443 w.${zone}`, ttl: 7207, distance: 1 }, blocks: true },
  ],
  disagreements: [
    'The reference documents no rate limit; the stand-in answers HTTP 429 with no wait (an assumption, flagged here).',
    'The reference gives 7207 as the default TTL and lego 3600 as the lowest it accepts: the card takes 3600 as the floor.',
  ],
})
