import { defineCard } from '../card-types.ts'

export const bunny = defineCard({
  id: 'bunny',
  name: 'bunny.net DNS',
  sources: {
    zones: { kind: 'docs', url: 'https://docs.bunny.net/reference/dnszonepublic_index', note: 'GET /dnszone (page, perPage 5–1000; Items, CurrentPage, TotalItems, HasMoreItems), each zone with its Records; GET /dnszone/{id}' },
    add: { kind: 'docs', url: 'https://docs.bunny.net/reference/dnszonepublic_addrecord', note: 'PUT /dnszone/{zoneId}/records: Type (0 A, 1 AAAA, 2 CNAME, 3 TXT, 4 MX, 5 Redirect, 6 Flatten, 7 PullZone, 8 SRV, 9 CAA, 10 PTR, 11 Script, 12 NS, 13 SVCB, 14 HTTPS, 15 TLSA), Ttl, Value, Name, Weight, Priority, Port, Flags, Tag, Accelerated, PullZoneId, ScriptId, MonitorType, GeolocationLatitude/Longitude, LatencyZone, SmartRoutingType, Disabled, Comment' },
    keys: { kind: 'docs', url: 'https://docs.bunny.net/reference/bunnynet-api-overview', note: '`AccessKey` header with the account API key (Account settings → API); errors `{ErrorKey, Field, Message}`' },
    openapi: { kind: 'description', url: 'https://docs.bunny.net/openapi (bunny.net\'s published OpenAPI document behind the reference)', note: 'served only from bunny.net\'s documentation site (no public repository carries it), so it is not carried here' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/bunnydns/records.go', note: 'Flatten and Script records "ignored with a warning and will remain untouched"; Redirect as BUNNY_DNS_RDR; record type numbers in convert.go; pages of 100 until HasMoreItems is false (api.go)' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/bunny/bunny.go', note: 'AccessKey; TXT added with PUT and removed by id' },
  },
  base: { url: 'https://api.bunny.net', versions: 'the one API (no version in the path)', cite: ['keys', 'zones'] },
  auth: { scheme: 'AccessKey: <account API key>', issued: 'the account API key from Account settings → API', accepted: ['the key'], cite: ['keys', 'lego'] },
  listing: {
    zones: { pages: 'page', params: 'page, perPage (5–1000)', maxPageSize: 1000, end: 'HasMoreItems false' },
    records: { pages: false, end: 'a zone\'s Records come inside GET /dnszone/{id}' },
    cite: ['zones', 'dnscontrol'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'REDIRECT', 'FLATTEN', 'PULLZONE', 'SRV', 'CAA', 'PTR', 'SCRIPT', 'NS', 'SVCB', 'HTTPS', 'TLSA'],
    names: '`Name` relative, empty the apex',
    values: '`Value`; Priority, Weight, Port, Flags, Tag apart; Type a number',
    providerOnly: [
      { kind: 'Redirect (5)', what: 'an HTTP redirect bunny.net serves for the name', portico: 'locked' },
      { kind: 'Flatten (6)', what: 'a CNAME flattened into addresses', portico: 'locked' },
      { kind: 'PullZone (7)', what: 'the name served by a bunny CDN pull zone', portico: 'locked' },
      { kind: 'Script (11)', what: 'the name answered by an edge script', portico: 'locked' },
      { kind: 'record settings', what: 'Weight, Accelerated, MonitorType, geolocation, SmartRoutingType, Comment', portico: 'kept' },
      { kind: 'Disabled', what: 'a record switched off', portico: 'locked' },
    ],
    cite: ['add', 'dnscontrol'],
  },
  ttl: { min: 15, default: 300, cite: ['add'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: { ErrorKey: 'too_many_requests', Field: '', Message: 'Too many requests' } }),
    signal: 'none: the reference documents no wait, so Portico reports it at once',
    limits: 'not published as a figure',
    cite: ['keys'],
  },
  errors: [
    { when: 'a key bunny.net does not know', status: 401, body: { Message: 'Authorization has been denied for this request.' }, reason: 'auth' },
    { when: 'a zone id the key does not reach', status: 404, body: { ErrorKey: 'dnszone.not_found', Field: 'Id', Message: 'The requested DNS zone was not found' }, reason: 'zone_not_found' },
    { when: 'a record bunny.net refuses', status: 400, body: { ErrorKey: 'validation_error', Field: 'Value', Message: 'The Value field is required.' }, reason: 'write_failed' },
  ],
  errorsCite: ['keys', 'add'],
  quirks: [
    { text: 'Record types are numbers; Redirect, Flatten, Pull Zone and Script answer for the whole name, so an A, AAAA or CNAME beside one is refused before writing.', cite: ['add', 'dnscontrol'] },
    { text: 'A record carries its own settings (weight, acceleration, monitoring, geolocation, comment): a record Portico removes is restored with them.', cite: ['add'] },
  ],
  seeds: (zone) => [
    { shape: 'a Redirect record', row: { Id: 990001, Type: 5, Ttl: 300, Value: 'https://example.net/landing', Name: 'go', Weight: 0, Priority: 0, Flags: 0, Tag: '', Disabled: false } },
    { shape: 'a Pull Zone record', row: { Id: 990002, Type: 7, Ttl: 300, Value: 'cdn-zone', Name: 'cdn', Weight: 0, Priority: 0, Flags: 0, Tag: '', Disabled: false, PullZoneId: 4242, LinkName: 'mysite' } },
    { shape: 'a Flatten record', row: { Id: 990003, Type: 6, Ttl: 300, Value: 'app.example.net', Name: 'app', Weight: 0, Priority: 0, Flags: 0, Tag: '', Disabled: false } },
    { shape: 'a weighted, monitored A with a comment where Portico points www (removed under the CNAME, restored with its settings)', row: { Id: 990004, Type: 0, Ttl: 300, Value: '198.51.100.80', Name: 'www', Weight: 50, Priority: 0, Flags: 0, Tag: '', Disabled: false, MonitorType: 1, Comment: 'primary origin' } },
    { shape: 'a switched-off TXT', row: { Id: 990005, Type: 3, Ttl: 300, Value: 'old-verification=1', Name: 'old', Weight: 0, Priority: 0, Flags: 0, Tag: '', Disabled: true } },
    { shape: 'a Redirect at the apex, where Portico writes its A', row: { Id: 990006, Type: 5, Ttl: 300, Value: `https://www.${zone}/`, Name: '', Weight: 0, Priority: 0, Flags: 0, Tag: '', Disabled: false }, blocks: true },
  ],
  disagreements: [
    'dnscontrol ignores Flatten and Script records and writes Redirects; Portico keeps all of them unwritten: the card follows the reference, where they answer for the whole name.',
    'The reference documents no answer past the rate limit; the stand-in answers 429 with no wait (an assumption, flagged here).',
  ],
})
