import { defineCard } from '../card-types.ts'

export const cloudflare = defineCard({
  id: 'cloudflare',
  name: 'Cloudflare',
  sources: {
    zoneList: { kind: 'docs', url: 'https://developers.cloudflare.com/api/resources/zones/methods/list/', note: 'each zone with its status (initializing, pending, active, moved) and its assigned name_servers (vanity_name_servers on plans that have them); a token reaching several accounts lists each account\'s copy of a name (cloudflare-go TestZoneIDByNameWithNonUniqueZones: "ambiguous zone name")' },
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/cloudflare/IntegrationTests', fixture: 'provider-recordings/cloudflare.json', note: 'names absolute; a bare TXT taken and answered as written; records carry zone_id and zone_name; listings filtered by name and type' },
    records: { kind: 'docs', url: 'https://developers.cloudflare.com/api/resources/dns/subresources/records/', note: 'list (page, per_page up to 5,000,000; result_info.total_pages), batch, record fields proxied, comment, tags, settings, data' },
    batch: { kind: 'docs', url: 'https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/batch/', note: 'deletes, patches, puts, posts in that order, all or nothing' },
    limits: { kind: 'docs', url: 'https://developers.cloudflare.com/fundamentals/api/reference/limits/', note: '1200 requests per five minutes per user; 429 with Retry-After' },
    tokens: { kind: 'docs', url: 'https://developers.cloudflare.com/fundamentals/api/get-started/create-token/', note: 'API token (Bearer); the Global API Key with X-Auth-Email is the legacy form' },
    schema: { kind: 'description', url: 'https://github.com/cloudflare/api-schemas/blob/main/openapi.yaml', note: 'Cloudflare\'s OpenAPI document; over 10 MB and absent from every stored snapshot, and the one split copy found (a StackQL provider\'s) flattens the record variants and the TTL, so none is carried: the stand-in follows the reference pages above' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-cloudflare/blob/main/octodns_cloudflare/__init__.py', note: 'keeps `proxied` as a record option; pages by result_info' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/main/providers/cloudflare/cloudflareProvider.go', note: 'proxied and comments as record metadata' },
  },
  base: { url: 'https://api.cloudflare.com/client/v4', versions: 'v4', cite: ['records'] },
  auth: { scheme: 'Authorization: Bearer <API token>', issued: 'an API token with Zone:Read and DNS:Edit, from My Profile → API Tokens', accepted: ['the token'], cite: ['tokens'] },
  listing: {
    zones: { pages: 'page', params: 'page, per_page (5–50)', maxPageSize: 50, end: 'result_info.total_pages' },
    records: { pages: 'page', params: 'page, per_page', end: 'result_info.total_pages' },
    cite: ['records', 'octodns'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CERT', 'CNAME', 'DNSKEY', 'DS', 'HTTPS', 'LOC', 'MX', 'NAPTR', 'NS', 'PTR', 'SMIMEA', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT', 'URI'],
    names: '`name` absolute',
    values: '`content` (TXT as quoted character strings, as the reference asks; a bare one is taken and answered as written: lexicon\'s recording); MX `priority`; CAA, SRV, HTTPS, SVCB, LOC, URI… as structured `data`',
    providerOnly: [
      { kind: 'proxied', what: 'the orange cloud: traffic through Cloudflare\'s proxy', portico: 'kept' },
      { kind: 'comment, tags', what: 'a person\'s notes on a record', portico: 'kept' },
      { kind: 'structured data (SRV, HTTPS, SVCB, LOC, URI, …)', what: 'fields Portico does not model', portico: 'locked' },
    ],
    cite: ['records', 'octodns', 'dnscontrol'],
  },
  ttl: { min: 1, default: 1, max: 86400, cite: ['records'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { success: false, errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }], messages: [], result: null } }),
    signal: 'Retry-After',
    limits: '1200 requests per five minutes',
    cite: ['limits'],
  },
  errors: [
    { when: 'a token Cloudflare does not know', status: 403, body: { success: false, errors: [{ code: 10000, message: 'Authentication error' }] }, reason: 'auth' },
    { when: 'a zone id the token does not reach', status: 404, body: { success: false, errors: [{ code: 7003, message: 'Could not route to /zones/…, perhaps your object identifier is invalid?' }] }, reason: 'zone_not_found' },
    { when: 'a record that already exists', status: 400, body: { success: false, errors: [{ code: 81057, message: 'Record already exists.' }] }, reason: 'conflict' },
    { when: 'a CNAME beside other records', status: 400, body: { success: false, errors: [{ code: 81053, message: 'An A, AAAA, or CNAME record with that host already exists.' }] }, reason: 'conflict' },
    { when: 'a batch deleting a record by an id that no longer exists (removed or rewritten between Portico\'s read and its batch; the batch is all or nothing, nothing written): read again and sent once more, then 409 conflict zone_changed', status: 404, body: { success: false, errors: [{ code: 81044, message: 'Record does not exist.' }] }, reason: 'zone_changed' },
  ],
  errorsCite: ['records', 'limits'],
  quirks: [
    { text: 'A token reaching several accounts lists every copy of a name, and a copy may be pending (name servers not yet changed) or moved (the domain went elsewhere). Portico writes the active copy on the delegated name servers; none or several is refused naming the zone ids, and a lone pending or moved copy off the delegated name servers too.', cite: ['zoneList'] },
    { text: 'TTL 1 is "automatic".', cite: ['records'] },
    { text: 'A batch applies deletes before posts, all or nothing.', cite: ['batch'] },
  ],
  seeds: (zone) => [
    { shape: 'a proxied A where Portico points www (removed under the CNAME, restored proxied)', row: { type: 'A', name: `www.${zone}`, content: '198.51.100.80', ttl: 1, proxied: true, comment: 'origin behind the proxy', tags: ['team:web'] } },
    { shape: 'a proxied A elsewhere', row: { type: 'A', name: `app.${zone}`, content: '198.51.100.81', ttl: 1, proxied: true } },
    { shape: 'a TXT with a comment at the apex (Portico merges beside it)', row: { type: 'TXT', name: zone, content: '"ms=ms12345"', ttl: 3600, proxied: false, comment: 'Microsoft 365 verification' } },
    { shape: 'an SRV with structured data', row: { type: 'SRV', name: `_sip._tcp.${zone}`, content: '10 5060 sip.example.net', ttl: 3600, proxied: false, priority: 10, data: { weight: 10, port: 5060, target: 'sip.example.net' } } },
    { shape: 'an HTTPS record where Portico points www', row: { type: 'HTTPS', name: `www.${zone}`, content: '1 . alpn="h3,h2"', ttl: 300, proxied: false, data: { priority: 1, target: '.', value: 'alpn="h3,h2"' } }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in refused TXT content that was not quoted (the reference asks for quotes); lexicon\'s recording shows Cloudflare taking and answering a bare TXT. The recording wins: the stand-in takes either, and the adapter still writes quoted strings as the reference asks.','octodns keeps proxied as an octodns-only option and drops comments; the API returns and accepts both: the card follows the API and keeps both.'],
})
