import { defineCard } from '../card-types.ts'

export const dynadot = defineCard({
  id: 'dynadot',
  name: 'Dynadot',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/acmesh-official/acme.sh/blob/f70397da0041e385cb355d0d89db343aca32a9ab/dnsapi/dns_dynadot.sh', fixture: 'provider-recordings/dynadot.json', note: 'Dynadot\'s answer {ResponseCode -1, Error "problem with connection to main server"} recorded in the script\'s header, with Dynadot support\'s word that it is temporary' },
    api3: { kind: 'docs', url: 'https://www.dynadot.com/domain/api3.html', note: 'Advanced Domain API: api3.json?key=…&command=…; list_domain, get_dns, set_dns2 (main_record_type0–19, subdomain0–99, sub_record_type…, main_recordx/sub_recordx the MX distance, forward type, stealth title or email alias; ttl); answers `{…Response: {ResponseCode, Status, Error}}`' },
    tips: { kind: 'docs', url: 'https://www.dynadot.com/community/blog/2014/01/getting-the-most-out-of-api.html', note: '"Only one request can be processed at a time"; the key is used from whitelisted IP addresses only' },
    apiv2: { kind: 'docs', url: 'https://www.dynadot.com/domain/api-document?api-version=2.0.0#set_dns', note: 'the RESTful successor; set_dns replaces the zone unless add_dns_to_current_setting' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/dynadot/internal/client.go', note: 'set_dns with add_dns_to_current_setting to add a record without replacing the zone; record_value2 for the extra field' },
    mcp: { kind: 'client', url: 'https://glama.ai/mcp/servers/mikusnuz/dynadot-mcp/tools/set_dns', note: 'set_dns2 record types a/aaaa/cname/forward/txt/mx/stealth/email; main_recordx the MX distance, forward type, stealth title or email alias' },
  },
  base: { url: 'https://api.dynadot.com/api3.json', versions: 'Advanced Domain API (api3); the RESTful v2 API beside it', cite: ['api3', 'apiv2'] },
  auth: {
    scheme: '`key` in the query string; the calling address must be on the key\'s allow-list',
    issued: 'one API key per account (Tools → API), used only from the IP addresses listed there',
    accepted: ['the key'],
    cite: ['api3', 'tips'],
  },
  listing: {
    zones: { pages: false, end: 'list_domain answers every domain' },
    records: { pages: false, end: 'get_dns answers the whole zone: MainDomains (apex) and SubDomains (Subhost)' },
    cite: ['api3'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'CAA', 'SRV', 'FORWARD', 'STEALTH', 'EMAIL'],
    names: 'apex rows apart (MainDomains), others by `Subhost` relative',
    values: '`Value`; `Value2` the MX distance, forward type, stealth title or email alias; record types lowercase on the wire',
    providerOnly: [
      { kind: 'forward', what: 'URL forwarding (301/302) served by Dynadot', portico: 'locked' },
      { kind: 'stealth', what: 'framed (stealth) forwarding', portico: 'locked' },
      { kind: 'email', what: 'email forwarding for the name', portico: 'locked' },
      { kind: 'zone TTL', what: 'one TTL for every record of the zone', portico: 'kept' },
      { kind: 'NameServerSettings.Type', what: 'whether the domain is on Dynadot DNS, parked or forwarded; set_dns2 switches it to Dynadot DNS', portico: 'kept' },
    ],
    cite: ['api3', 'mcp'],
  },
  ttl: { min: 60, default: 3600, cite: ['api3'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: 'Too Many Requests' }),
    signal: 'none: Dynadot documents one request at a time per key and no wait, so Portico reports it at once',
    limits: 'one request at a time per key',
    cite: ['tips'],
  },
  errors: [
    { when: 'a key Dynadot does not know', status: 200, body: { GetDnsResponse: { ResponseCode: '-1', Status: 'error', Error: 'invalid key' } }, reason: 'auth' },
    { when: 'a key used from an address not on its allow-list', status: 200, body: { GetDnsResponse: { ResponseCode: '-1', Status: 'error', Error: 'ip address not allowed for this key' } }, reason: 'permission' },
    { when: 'a domain not in the account', status: 200, body: { GetDnsResponse: { ResponseCode: '-1', Status: 'error', Error: 'could not find domain in your account' } }, reason: 'zone_not_found' },
  ],
  errorsCite: ['api3', 'tips'],
  quirks: [
    { text: 'set_dns2 replaces every record of the domain: a write sends back every row as get_dns gave it, forwards and email forwarding included, or they are gone.', cite: ['api3', 'apiv2', 'lego'] },
    { text: 'set_dns2 puts the domain on Dynadot DNS: a parked or forwarded domain would lose that setting, so Portico never writes one.', cite: ['api3'] },
    { text: 'At most 20 apex records and 100 below it in one set_dns2.', cite: ['api3'] },
  ],
  settings: { Type: 'Dynadot DNS', WithAds: 'no' },
  seeds: (zone) => [
    { shape: 'a URL forward (301) on a subdomain', row: { sub: 'go', type: 'forward', value: 'https://example.net/landing', value2: '301' } },
    { shape: 'a stealth forward with its title', row: { sub: 'framed', type: 'stealth', value: 'http://example.org/', value2: 'Example – framed' } },
    { shape: 'email forwarding on a subdomain', row: { sub: 'lists', type: 'email', value: 'owner@example.net', value2: 'info' } },
    { shape: 'an SRV record', row: { sub: '_sip._tcp', type: 'srv', value: `10 5 5060 sip.${zone}` } },
    { shape: 'a long non-ASCII TXT', row: { sub: 'long', type: 'txt', value: 'ü'.repeat(300) } },
    { shape: 'a URL forward where Portico points www', row: { sub: 'www', type: 'forward', value: 'https://example.net/', value2: '302' }, blocks: true },
  ],
  disagreements: [
    'lego has moved to the RESTful v2 API (set_dns with add_dns_to_current_setting); the api3 set_dns2 Portico uses replaces the zone: the card keeps every row by sending it back, the safe reading of both.',
    'Neither reference documents the answer past the rate limit; the stand-in answers HTTP 429 with no wait (an assumption, flagged here).',
  ],
})
