import { defineCard } from '../card-types.ts'

const hzError = (code: string, message: string) => ({ error: { code, message, details: {} } })

export const hetzner = defineCard({
  id: 'hetzner',
  name: 'Hetzner DNS (Hetzner Console / Cloud API)',
  sources: {
    rrsets: { kind: 'docs', url: 'https://docs.hetzner.cloud/reference/cloud#zone-rrsets', note: 'RRSet {id, name, type, ttl (null: the zone\'s), labels, protection {change}, records [{value, comment}]}; create, delete, actions set_records, change_ttl, change_protection' },
    zones: { kind: 'docs', url: 'https://docs.hetzner.cloud/reference/cloud#zones', note: 'zones with mode primary or secondary; DNS moved from dns.hetzner.com into the Cloud API' },
    paging: { kind: 'docs', url: 'https://docs.hetzner.cloud/reference/cloud#pagination', note: 'page and per_page (default 25, most 50); meta.pagination {page, per_page, previous_page, next_page, last_page, total_entries}' },
    rate: { kind: 'docs', url: 'https://docs.hetzner.cloud/reference/cloud#rate-limiting', note: '3600 requests an hour per project; RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (a UNIX timestamp); 429 rate_limit_exceeded' },
    errors: { kind: 'docs', url: 'https://docs.hetzner.cloud/reference/cloud#errors', note: '{error: {code, message, details}}: unauthorized, forbidden, not_found, uniqueness_error, invalid_input, protected, locked (423: "there is already an Action running"), conflict (409: "the resource has changed during the request, please retry"), rate_limit_exceeded' },
    actions: { kind: 'docs', url: 'https://docs.hetzner.cloud/reference/cloud#actions', note: 'every rrset write (#zone-rrset-actions, create, delete) answers 201 with an Action {id, command, status running|success|error, error {code, message}}; "make sure to wait for the Action completion": GET /actions/{id}' },
    waitfor: { kind: 'client', url: 'https://github.com/hetznercloud/hcloud-go/blob/main/hcloud/action_waiter.go', note: 'the provider\'s SDK waits for each action (WaitFor polls GET /actions until it is no longer running) and turns an action ending `error` into an error' },
    openapi: { kind: 'description', url: 'https://github.com/apigen-dotnet/hetzner/blob/7407c5739407e285c76e06969822a17258d791a8/specs/cloud.spec.json', fixture: 'provider-openapi/hetzner.json', note: 'a copy of Hetzner\'s published OpenAPI document (https://docs.hetzner.cloud/cloud.spec.json): Zone (authoritative_nameservers, registrar, protection), RRSet (labels, protection, records with comments), the 4xx error body; carried trimmed to the eight operations used (GET /actions/{id} with them), and the contract test checks every exchange against it' },
    hcloud: { kind: 'client', url: 'https://github.com/hetznercloud/hcloud-go/blob/main/hcloud/zone.go', note: 'the provider\'s own Go SDK: ZoneRRSet with Records [{Value, Comment}], Protection, Labels; SetRRSetRecords, ChangeRRSetTTL' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/hetzner/hetzner.go', note: 'a Cloud API token; TXT values written as quoted strings' },
  },
  base: { url: 'https://api.hetzner.cloud', versions: '/v1', cite: ['zones', 'openapi'] },
  auth: { scheme: 'Authorization: Bearer <API token>', issued: 'a project API token (Security → API tokens), Read & Write, shown once', accepted: ['the token'], cite: ['rrsets', 'lego'] },
  listing: {
    zones: { pages: 'page', params: 'page, per_page (most 50)', maxPageSize: 50, end: 'meta.pagination.next_page null' },
    records: { pages: 'page', params: 'page, per_page (most 50)', maxPageSize: 50, end: 'meta.pagination.next_page null' },
    cite: ['paging', 'hcloud'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'DS', 'HINFO', 'HTTPS', 'MX', 'NS', 'PTR', 'RP', 'SOA', 'SRV', 'SVCB', 'TLSA', 'TXT'],
    names: 'relative (`@` the apex)',
    values: 'zone-file text: hostnames with the trailing dot, TXT as quoted strings',
    providerOnly: [
      { kind: 'records[].comment', what: 'a note on each record, written back with it', portico: 'kept' },
      { kind: 'protection.change', what: 'a set protected against changes (refused with `protected`)', portico: 'locked' },
      { kind: 'labels', what: 'key/value labels on a set; set_records leaves them alone', portico: 'hidden' },
    ],
    cite: ['rrsets', 'hcloud'],
  },
  ttl: { min: 60, default: 3600, cite: ['rrsets', 'openapi'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'ratelimit-limit': '3600', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + wait) }, body: hzError('rate_limit_exceeded', 'limit of 3600 requests per hour reached') }),
    signal: 'RateLimit-Reset, a UNIX timestamp',
    limits: '3600 requests an hour per project, refilled one a second',
    cite: ['rate'],
  },
  errors: [
    { when: 'a token Hetzner does not know', status: 401, body: hzError('unauthorized', 'unable to authenticate'), reason: 'auth' },
    { when: 'a read-only token', status: 403, body: hzError('forbidden', 'insufficient permissions for this request'), reason: 'permission' },
    { when: 'a zone the project does not have', status: 404, body: hzError('not_found', 'zone not found'), reason: 'zone_not_found' },
    { when: 'a set that exists', status: 409, body: hzError('uniqueness_error', 'rrset already exists'), reason: 'conflict' },
    { when: 'a set under change protection', status: 423, body: hzError('protected', 'the rrset is protected against changes'), reason: 'write_failed' },
    { when: 'a record Hetzner refuses', status: 422, body: hzError('invalid_input', 'invalid input in fields records'), reason: 'write_failed' },
    { when: 'a write that met a change made during the request (waited out and sent again first)', status: 409, body: hzError('conflict', 'the resource has changed during the request, please retry'), reason: 'temporary' },
    { when: 'a write while another action on the zone is running (waited out and sent again first)', status: 423, body: hzError('locked', 'the item you are trying to access is locked (there is already an action running)'), reason: 'temporary' },
  ],
  errorsCite: ['errors', 'rrsets'],
  quirks: [
    { text: 'set_records replaces every record of the set: comments are sent again with their values, or they are lost.', cite: ['rrsets', 'hcloud'] },
    { text: 'A write answered 201 is only accepted: its action runs on, and may end `error` (action_failed) with the zone unchanged. Portico waits for each action (GET /actions/{id}, up to 30 s) and treats one ending in error as a refusal, putting back what the calls before it changed.', cite: ['actions', 'waitfor'] },
    { text: 'Hetzner Robot / konsoleH DNS is another product with another API; its nameservers are catalogued apart.', cite: ['zones'] },
  ],
  seeds: (zone) => [
    // Hetzner has no SPF type (the published document's RRSet types: A, AAAA, CAA, CNAME, DS, HINFO,
    // HTTPS, MX, NS, PTR, RP, SOA, SRV, SVCB, TLSA, TXT): the policy lives in the apex TXT set.
    { shape: 'a TXT set whose records carry comments, at the apex where Portico merges SPF', row: { name: '@', type: 'TXT', ttl: 3600, records: [{ value: '"google-site-verification=abc"', comment: 'Search Console' }, { value: '"v=spf1 include:_spf.google.com ~all"', comment: 'mail, keep' }] } },
    { shape: 'an RP set (a type Portico does not write)', row: { name: '@', type: 'RP', ttl: 3600, records: [{ value: `hostmaster.${zone}. .` }] } },
    { shape: 'a set under change protection', row: { name: 'vpn', type: 'A', ttl: 300, records: [{ value: '198.51.100.77', comment: 'office VPN' }], protection: { change: true }, labels: { owner: 'it' } } },
    { shape: 'a CAA set with a comment where Portico adds its CA', row: { name: '@', type: 'CAA', ttl: 3600, records: [{ value: '0 issue "letsencrypt.org"', comment: 'ACME' }] } },
    { shape: 'a protected AAAA set at the www name Portico points elsewhere', row: { name: 'www', type: 'AAAA', ttl: 300, records: [{ value: '2001:db8::7' }], protection: { change: true } }, blocks: true },
  ],
  disagreements: [
    'The adapter used to ask 100 a page; the reference caps per_page at 50, which the card and the adapter now follow.',
    'Earlier stand-ins answered a 429 with Retry-After; Hetzner documents RateLimit-Reset as a UNIX timestamp.',
  ],
})
