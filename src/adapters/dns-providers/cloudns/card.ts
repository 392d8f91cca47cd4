import { defineCard } from '../card-types.ts'

export const cloudns = defineCard({
  id: 'cloudns',
  name: 'ClouDNS',
  sources: {
    api: { kind: 'docs', url: 'https://www.cloudns.net/wiki/article/41/', note: 'HTTP API: GET or POST, JSON with .json; limited per IP to 20 requests a second, 600 a minute, 36,000 an hour' },
    auth: { kind: 'docs', url: 'https://www.cloudns.net/wiki/article/42/', note: 'auth-id (API user) or sub-auth-id (API sub-user) with auth-password; `{"status":"Failed","statusDescription":"Invalid authentication, incorrect auth-id or auth-password."}`' },
    listZones: { kind: 'docs', url: 'https://api.cloudns.net/dns/list-zones.json (its page under DNS → Zones in the API help, article 41)', note: 'list-zones.json: page, rows-per-page (10, 20, 30, 50 or 100)' },
    records: { kind: 'docs', url: 'https://api.cloudns.net/dns/records.json (its page under DNS → Records in the API help, article 41)', note: 'records.json: the zone as `{id: record}`; a record\'s type, host, record, ttl, status, failover, dynamicurl_status; web redirects with their frame and redirect-type fields; GeoDNS zones with geodns-location' },
    ttls: { kind: 'docs', url: 'https://www.cloudns.net/wiki/article/58/', note: 'the TTLs a record may have: 60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/cloudns/internal/client.go', note: 'sub-auth-id when given, else auth-id; a TTL rounded up to the next accepted value; status "Success" or "Failed"' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/pull/3962', note: '"CLOUDNS: pause when API fails due to rate limit": the limit is answered with HTTP 200 and an error in the JSON body, no headers; dnscontrol waits about half a second and calls again' },
  },
  base: { url: 'https://api.cloudns.net', versions: 'the one HTTP API (/dns/…)', cite: ['api'] },
  auth: {
    scheme: 'parameters auth-id (or sub-auth-id) and auth-password on every call',
    issued: 'an API user (its auth-id, a number) or an API sub-user (its sub-auth-id) with the password set for it (API & Resellers → API users)',
    accepted: ['auth_id:auth_password', '{"auth-id": …, "auth-password": …}', '{"sub-auth-id": …, "auth-password": …} (a sub-user)', 'CLOUDNS_AUTH_ID=… or CLOUDNS_SUB_AUTH_ID=… / CLOUDNS_AUTH_PASSWORD=… lines'],
    cite: ['auth', 'lego'],
  },
  listing: {
    zones: { pages: 'page', params: 'page (from 1), rows-per-page (10, 20, 30, 50 or 100)', maxPageSize: 100, end: 'a page shorter than rows-per-page' },
    records: { pages: false, end: 'records.json answers the whole zone' },
    cite: ['listZones', 'records'],
  },
  records: {
    types: ['A', 'AAAA', 'MX', 'CNAME', 'TXT', 'SPF', 'NS', 'SRV', 'WR', 'ALIAS', 'RP', 'SSHFP', 'PTR', 'NAPTR', 'CAA', 'TLSA'],
    names: '`host` relative, empty for the apex',
    values: '`record` (TXT unquoted, hostnames without the trailing dot); MX `priority`, CAA `caa_flag`, `caa_type`, `caa_value` apart',
    providerOnly: [
      { kind: 'WR', what: 'web redirect: the URL in `record`, with redirect-type, frame, frame-title, frame-keywords, frame-description, mobile-meta, save-path', portico: 'kept' },
      { kind: 'ALIAS', what: 'a flattened alias at any host', portico: 'kept' },
      { kind: 'geodns-location', what: 'GeoDNS: answers per location', portico: 'locked' },
      { kind: 'failover, dynamicurl_status, status 0', what: 'DNS failover, a dynamic-DNS update URL, a switched-off record', portico: 'locked' },
    ],
    cite: ['records'],
  },
  ttl: { min: 60, default: 3600, max: 2592000, cite: ['ttls', 'lego'] },
  rateLimit: {
    status: 200,
    answer: () => ({ headers: {}, body: { status: 'Failed', statusDescription: 'You have exceeded the limit of 20 requests per second. Please try again later.' } }),
    signal: 'the statusDescription of a Failed answer (HTTP 200, no headers, no wait): Portico calls again after 1, 2, 4, 8 s',
    limits: '20 requests a second, 600 a minute, 36,000 an hour, per IP address',
    cite: ['api', 'dnscontrol'],
  },
  errors: [
    { when: 'an auth-id or password ClouDNS does not know', status: 200, body: { status: 'Failed', statusDescription: 'Invalid authentication, incorrect auth-id or auth-password.' }, reason: 'auth' },
    { when: 'a domain not in the account', status: 200, body: { status: 'Failed', statusDescription: 'Missing domain-name' }, reason: 'zone_not_found' },
    { when: 'a TTL that is not one of ClouDNS\'s values', status: 200, body: { status: 'Failed', statusDescription: 'Invalid TTL. Choose from the list of the values we support.' }, reason: 'write_failed', id: 'ttl' },
  ],
  errorsCite: ['auth', 'records', 'ttls'],
  quirks: [
    { text: 'Every answer is HTTP 200; a failure is `{"status": "Failed", "statusDescription"}`, the rate limit included.', cite: ['auth', 'dnscontrol'] },
    { text: 'A TTL must be one of thirteen values; Portico writes the next one up from the TTL it plans.', cite: ['ttls', 'lego'] },
  ],
  seeds: (zone) => [
    { shape: 'a framed web redirect (WR) where Portico points www (removed under the CNAME, restored with its frame settings)', row: { id: '', type: 'WR', host: 'www', record: 'https://shop.example.net/', dynamicurl_status: 0, failover: '0', ttl: '3600', status: 1, 'redirect-type': '0', frame: '1', 'frame-title': 'Shop', 'frame-keywords': 'shop', 'frame-description': 'Our shop', 'mobile-meta': '0', 'save-path': '0' } },
    { shape: 'an ALIAS at `root`', row: { id: '', type: 'ALIAS', host: 'root', record: `lb.${zone}`, dynamicurl_status: 0, failover: '0', ttl: '3600', status: 1 } },
    { shape: 'a GeoDNS A for Europe', row: { id: '', type: 'A', host: 'cdn', record: '198.51.100.60', dynamicurl_status: 0, failover: '0', ttl: '3600', status: 1, 'geodns-location': '4', 'geodns-code': 'EU' } },
    { shape: 'an A under DNS failover', row: { id: '', type: 'A', host: 'api', record: '198.51.100.61', dynamicurl_status: 0, failover: '1', ttl: '60', status: 1 } },
    { shape: 'a switched-off TXT', row: { id: '', type: 'TXT', host: 'old', record: 'retired=1', dynamicurl_status: 0, failover: '0', ttl: '3600', status: 0 } },
    { shape: 'a dynamic-DNS AAAA at www, where Portico points a CNAME', row: { id: '', type: 'AAAA', host: 'www', record: '2001:db8::42', dynamicurl_status: 1, failover: '0', ttl: '60', status: 1 }, blocks: true },
  ],
  disagreements: [
    'The rate-limit page gives limits, not the answer; dnscontrol found it a 200 with an error in the body and no headers: the card follows dnscontrol (the wording of statusDescription is the stand-in\'s; Portico matches "limit" and "requests").',
    'lego rounds a TTL up to the next accepted value; Portico used to take the nearest (600 became 300): the card follows lego, so no TTL is written lower than planned.',
  ],
})
