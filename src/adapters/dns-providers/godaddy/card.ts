import { defineCard } from '../card-types.ts'

export const godaddy = defineCard({
  id: 'godaddy',
  name: 'GoDaddy',
  sources: {
    docs: { kind: 'docs', url: 'https://developer.godaddy.com/doc/endpoint/domains' },
    keys: { kind: 'docs', url: 'https://developer.godaddy.com/getstarted', note: 'key and secret issued together at developer.godaddy.com/keys; header `Authorization: sso-key KEY:SECRET`' },
    swagger: {
      kind: 'description',
      url: 'https://github.com/azrod/godaddy-domains-client-go/blob/ac3885178c495dd241bde33892ff535926adf79a/swagger_domains.json',
      fixture: 'provider-openapi/godaddy.json',
      note: 'a copy of GoDaddy\'s published https://developer.godaddy.com/swagger/swagger_domains.json',
    },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/godaddy/godaddy.go', note: '`minTTL = 600`; refuses a configured TTL below it' },
    legoClient: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/godaddy/internal/client.go', note: 'sso-key header; PUT /v1/domains/{domain}/records/{type}/{name}' },
    issueTtl: { kind: 'docs', url: 'https://github.com/win-acme/win-acme/issues/1947', note: 'the 422 INVALID_BODY body for a TTL under 600, as GoDaddy answers it' },
  },
  base: { url: 'https://api.godaddy.com', versions: '/v1 (Domains API); OTE sandbox https://api.ote-godaddy.com', cite: ['docs', 'swagger'] },
  auth: {
    scheme: 'Authorization: sso-key KEY:SECRET',
    issued: 'an API key and its secret, shown once together at developer.godaddy.com/keys (Production, not OTE)',
    accepted: ['key:secret', 'sso-key key:secret', '{"key": …, "secret": …}', 'GODADDY_API_KEY=… / GODADDY_API_SECRET=… lines', 'key and secret on two lines'],
    cite: ['docs', 'keys', 'lego'],
  },
  listing: {
    zones: { pages: 'marker', params: 'limit (1–1000), marker (the last domain of the previous page)', maxPageSize: 1000, end: 'a page shorter than limit (a bare array, no total)' },
    records: { pages: 'offset', params: 'offset, limit', end: 'a page shorter than limit (a bare array, no total)' },
    cite: ['swagger', 'docs'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'SOA', 'SRV', 'TXT', 'CAA'],
    names: 'relative to the domain, `@` the apex',
    values: '`data` (TXT unquoted), MX `priority` apart, SRV `service`, `protocol`, `port`, `weight` apart',
    providerOnly: [
      { kind: 'A @ Parked', what: 'the parked page: `data` is the word `Parked`, not an address', portico: 'kept' },
      { kind: 'SRV fields', what: 'service, protocol, port, weight', portico: 'locked' },
    ],
    cite: ['swagger', 'docs'],
  },
  ttl: { min: 600, default: 3600, cite: ['lego', 'issueTtl'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: {}, body: { code: 'TOO_MANY_REQUESTS', message: 'Too many requests received within interval', retryAfterSec: wait } }),
    signal: '`retryAfterSec` in the ErrorLimit body (required there)',
    limits: '60 requests a minute per API key',
    cite: ['swagger', 'docs'],
  },
  temporary: [
    {
      when: 'an edit on the same domain in the seconds after the last one',
      status: 409,
      body: { code: 'CONFLICT', message: 'The domain is being updated; try again later' },
      retry: 'waited out with 1, 2, 4, 8 s; still there after that, reported as a rate limit (try again), never as a record conflict',
      cite: ['swagger', 'docs'],
    },
  ],
  errors: [
    { when: 'a key or secret GoDaddy does not know', status: 401, body: { code: 'UNABLE_TO_AUTHENTICATE', message: 'Unable to authenticate' }, reason: 'auth' },
    { when: 'an account the API is closed to (fewer than 10 domains, no Discount Domain Club)', status: 403, body: { code: 'ACCESS_DENIED', message: 'Authenticated user is not allowed access' }, reason: 'plan_restricted' },
    { when: 'a domain not in the account', status: 404, body: { code: 'UNKNOWN_DOMAIN', message: 'The given domain is not registered, or does not have a zone file' }, reason: 'zone_not_found' },
    {
      when: 'a TTL under 600',
      status: 422,
      body: { code: 'INVALID_BODY', fields: [{ code: 'UNKNOWN_RESTRICTION', message: 'must have a minimum value of 600', path: 'records[0].ttl' }], message: 'Request body doesn\'t fulfill schema, see details in `fields`' },
      reason: 'write_failed',
      id: 'ttl',
    },
  ],
  errorsCite: ['swagger', 'issueTtl', 'lego'],
  quirks: [
    { text: 'The record list is the Swagger\'s GET …/records/{type}/{name} with both left out (its summary: "optionally with the specified Type and/or Name"); clients call GET /v1/domains/{domain}/records.', cite: ['swagger', 'legoClient'] },
    { text: 'PUT …/records/{type}/{name} replaces the whole set of that type and name; DELETE removes it (204).', cite: ['swagger', 'legoClient'] },
  ],
  seeds: (zone) => [
    { shape: 'the parked apex A record', row: { type: 'A', name: 'parked', data: 'Parked', ttl: 600 } },
    { shape: 'an SRV record with its own fields', row: { type: 'SRV', name: '_sip._tcp', data: `sip.${zone}`, ttl: 3600, priority: 10, weight: 5, port: 5060, service: '_sip', protocol: '_tcp' } },
    { shape: 'a TXT beside Portico\'s verification name', row: { type: 'TXT', name: '_portico-challenge', data: 'other-vendor=1', ttl: 600 } },
    { shape: 'an SRV at the www name Portico points elsewhere', row: { type: 'SRV', name: 'www', data: `w.${zone}`, ttl: 3600, priority: 1, weight: 1, port: 443, service: '_https', protocol: '_tcp' }, blocks: true },
  ],
  disagreements: [
    'The Swagger types `ttl` as any positive integer; the API refuses under 600 (lego and the INVALID_BODY answers agree): the card follows the API.',
    'The Swagger documents 409 only on DELETE ("not eligible to have its records changed"); in practice a PUT right after an edit gets 409 for a few seconds: the card treats a 409 as temporary and retries it.',
  ],
})
