import { defineCard } from '../card-types.ts'

export const ns1 = defineCard({
  id: 'ns1',
  name: 'IBM NS1 Connect (and Netlify DNS on the same fleet)',
  sources: {
    docs: { kind: 'docs', url: 'https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/api/API--ns1--ibm-ns1-connect-api', note: 'zones and records: GET /v1/zones, GET /v1/zones/{zone}, PUT/POST/DELETE /v1/zones/{zone}/{domain}/{type}' },
    rate: { kind: 'docs', url: 'https://www.ibm.com/docs/en/ns1-connect?topic=api-rate-limiting', note: 'token bucket per endpoint; every answer carries the tokens per period, the period in seconds and the tokens left; a token comes back every Period / Limit seconds' },
    keys: { kind: 'docs', url: 'https://www.ibm.com/docs/en/ns1-connect?topic=keys-creating-api-key', note: 'an API key from Account settings → API keys, with DNS permissions (view zones, manage zones)' },
    sdk: { kind: 'client', url: 'https://github.com/ns1/ns1-go/blob/01ad78dab0692288a394963506753a5766e93e49/rest/zone.go', note: 'the provider\'s own Go SDK: ZonesService.List and Get follow `Link` headers (DoWithPagination) for zones and a zone\'s records; "zone not found" is the missing-zone message' },
    sdkClient: { kind: 'client', url: 'https://github.com/ns1/ns1-go/blob/00309821417030350b16368155d132a568e06901/rest/client.go', note: 'X-NSONE-Key; X-Ratelimit-Limit, X-Ratelimit-Remaining, X-Ratelimit-Period; WaitTime = Period / Limit; errors `{message}`' },
    sdkRecord: { kind: 'client', url: 'https://github.com/ns1/ns1-go/blob/master/rest/model/dns/record.go', note: 'a record\'s answers (each with meta and region), filters, regions, meta and link (a linked record)' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/ns1/ns1.go', note: 'TXT sets through the SDK: Records.Get, then Create or Update with the answers' },
    netlifyFleet: { kind: 'docs', url: 'https://docs.netlify.com/domains-https/netlify-dns/delegate-to-netlify/', note: 'Netlify DNS hands out dnsN.pNN.nsone.net nameservers: NS1\'s fleet' },
  },
  base: { url: 'https://api.nsone.net/v1', versions: 'v1', cite: ['docs', 'sdkClient'] },
  auth: {
    scheme: 'X-NSONE-Key: <API key>',
    issued: 'an NS1 API key (a plain string) made under Account settings → API keys with DNS view and manage permissions; on the same fleet, a Netlify DNS customer holds a Netlify personal access token (`nfp_…`) or OAuth token instead, which the rail takes too',
    accepted: ['the NS1 API key', 'a Netlify personal access token (`nfp_…`, or `Bearer …`)', 'a Netlify OAuth token (tried at Netlify when NS1 refuses it)'],
    cite: ['keys', 'sdkClient', 'netlifyFleet'],
  },
  listing: {
    zones: { pages: 'link', params: 'the URL in `Link: <…>; rel="next"`', end: 'an answer without a next link (most answers are the whole list)' },
    records: { pages: 'link', params: 'the URL in `Link: <…>; rel="next"` of GET /v1/zones/{zone}', end: 'an answer without a next link' },
    cite: ['sdk', 'docs'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'DS', 'HINFO', 'MX', 'NAPTR', 'NS', 'PTR', 'SPF', 'SRV', 'TXT', 'URLFWD'],
    names: '`domain` absolute, no trailing dot',
    values: 'each answer is a list of rdata fields: MX `[10, "mx.example.com"]`, CAA `[0, "issue", "ca"]`, TXT `[text]`',
    providerOnly: [
      { kind: 'filters', what: 'a filter chain that steers answers (up, geotarget, select_first_n…)', portico: 'locked' },
      { kind: 'answer meta / region, record regions and meta', what: 'what the filters steer by (up, country, weight, note)', portico: 'locked' },
      { kind: 'link', what: 'a linked record, answering with another record\'s answers', portico: 'locked' },
      { kind: 'ALIAS, URLFWD', what: 'NS1\'s apex alias and URL forwarding records', portico: 'kept' },
    ],
    cite: ['sdkRecord', 'docs'],
  },
  ttl: { min: 1, default: 3600, cite: ['docs', 'sdkRecord'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'x-ratelimit-by': 'customer', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-period': String(wait * 10) }, body: { message: 'rate limit exceeded' } }),
    signal: 'X-Ratelimit-Period / X-Ratelimit-Limit: the seconds until the bucket holds a token again',
    limits: 'per endpoint, e.g. 900 GETs per 300 s, POSTs nearer 300 per 300 s',
    cite: ['rate', 'sdkClient'],
  },
  errors: [
    { when: 'a key NS1 does not know', status: 401, body: { message: 'Unauthorized' }, reason: 'auth' },
    { when: 'a key without the zone permissions', status: 403, body: { message: 'insufficient permissions' }, reason: 'permission' },
    { when: 'a zone the key does not reach', status: 404, body: { message: 'zone not found' }, reason: 'zone_not_found' },
    { when: 'a PUT of a set that exists', status: 400, body: { message: 'record already exists' }, reason: 'write_failed' },
  ],
  errorsCite: ['sdk', 'sdkClient', 'docs'],
  quirks: [
    { text: 'A `Link: rel="next"` names https://api.nsone.net/v1/… whatever address was asked: Portico rebases its path and query onto the configured base (DNS_PROVIDER_API_BASES).', cite: ['docs'] },
    { text: 'Netlify DNS is served from the same fleet (any dnsN.pNN.nsone.net shard), so nameservers cannot tell Netlify from NS1: the domain check names both ("IBM NS1 Connect or Netlify DNS"), the credential help names both, and the rail takes either credential (an `nfp_` token goes to Netlify; a key NS1 refuses is tried at Netlify).', cite: ['netlifyFleet', 'docs'] },
    { text: 'A zone lists its sets with short answers only; the full answers, and the filters and metadata that steer them, come from each record.', cite: ['docs', 'sdkRecord'] },
    { text: 'A POST on a record changes the fields it carries and leaves the rest (filters, metadata): sending plain answers to a steered record would break its steering, so those records are never written.', cite: ['docs', 'lego'] },
  ],
  seeds: (zone) => [
    { shape: 'a record steered by a filter chain, its answers carrying metadata', row: { domain: `geo.${zone}`, type: 'A', ttl: 60, answers: [{ answer: ['198.51.100.10'], meta: { up: true, country: ['US'] } }, { answer: ['198.51.100.20'], meta: { up: true, country: ['DE'] } }], filters: [{ filter: 'up' }, { filter: 'geotarget_country' }, { filter: 'select_first_n', config: { N: 1 } }] } },
    { shape: 'a linked record', row: { domain: `api.${zone}`, type: 'A', ttl: 300, answers: [], link: `geo.${zone}` } },
    { shape: 'an ALIAS beside the apex', row: { domain: `lb.${zone}`, type: 'ALIAS', ttl: 300, answers: [{ answer: ['lb-1234.elb.example.net'] }] } },
    { shape: 'a steered AAAA record at the www name Portico points elsewhere', row: { domain: `www.${zone}`, type: 'AAAA', ttl: 60, answers: [{ answer: ['2001:db8::30'], meta: { weight: 10 } }], filters: [{ filter: 'weighted_shuffle' }] }, blocks: true },
  ],
  disagreements: [
    'The API reference does not describe paging; NS1\'s own SDK follows Link headers on the zone list and on a zone\'s records. The card follows the SDK: Portico follows a next link when one comes, bounded, and otherwise reads the answer as the whole list.',
    'The rate-limit pages name the three numbers, not the header names; the SDK reads them as X-Ratelimit-Limit, X-Ratelimit-Remaining and X-Ratelimit-Period. The card follows the SDK.',
  ],
})
