import { defineCard } from '../card-types.ts'

export const mythicBeasts = defineCard({
  id: 'mythic-beasts',
  name: 'Mythic Beasts',
  sources: {
    docs: { kind: 'docs', url: 'https://www.mythic-beasts.com/support/api/dnsv2', note: 'DNS API v2: /dns/v2/zones, /dns/v2/zones/{zone}/records[/{host}[/{type}]]; GET, POST (add), PUT (replace), DELETE; records `{host, ttl, type, data, mx_priority…}`; ANAME, SSHFP, TLSA, SRV, CAA among the types' },
    auth: { kind: 'docs', url: 'https://auth.mythic-beasts.com/login', note: 'the token endpoint for API keys (client credentials with the key id and secret); lego\'s notes: "the username is the API ID for your API key, and the password is the API secret"' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/mythicbeasts/internal/client.go', note: 'POST and DELETE …/zones/{zone}/records/{host}/{type} with `{records: [{host, ttl, type, data}]}`; a non-200 is an error' },
    legoIdentity: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/mythicbeasts/internal/identity.go', note: 'the key id and secret as Basic credentials for a client_credentials token' },
  },
  base: { url: 'https://api.mythic-beasts.com/dns/v2', versions: 'v2', cite: ['docs', 'lego'] },
  auth: {
    scheme: 'HTTP Basic with the API key id and secret (or a bearer token they obtain)',
    issued: 'an API key (id and secret, the secret shown once) made in the control panel, allowed to chosen zones',
    accepted: ['key_id:secret'],
    cite: ['auth', 'legoIdentity'],
  },
  listing: {
    zones: { pages: false, end: 'GET /zones answers every zone name' },
    records: { pages: false, end: 'GET /zones/{zone}/records answers every record' },
    cite: ['docs'],
  },
  records: {
    types: ['A', 'AAAA', 'ANAME', 'CAA', 'CNAME', 'DNAME', 'MX', 'NS', 'PTR', 'SRV', 'SSHFP', 'TLSA', 'TXT'],
    names: '`host` relative, `@` the apex',
    values: '`data` (hostnames with the trailing dot, TXT as the text itself); MX `mx_priority` apart',
    providerOnly: [
      { kind: 'ANAME', what: 'a flattened alias answering A and AAAA at its name', portico: 'kept' },
      { kind: 'SSHFP, TLSA, SRV', what: 'records Portico never writes, read and left as they are', portico: 'kept' },
      { kind: 'ANAME beside an A or AAAA Portico would write', what: 'an ANAME already answers addresses at that name', portico: 'locked' },
    ],
    cite: ['docs'],
  },
  ttl: { min: 60, default: 300, cite: ['docs', 'lego'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait) }, body: { error: 'Rate limit exceeded' } }),
    signal: 'Retry-After',
    limits: 'not given in the sources read',
    cite: ['docs'],
  },
  errors: [
    { when: 'a key id or secret Mythic Beasts does not know', status: 401, body: { error: 'Authentication failed' }, reason: 'auth' },
    { when: 'a zone the key is not allowed (or the account does not have)', status: 403, body: { error: 'Key not authorised for zone' }, reason: 'zone_not_found' },
    { when: 'records the API refuses', status: 400, body: { error: 'CNAME records cannot coexist with other records' }, reason: 'write_failed' },
  ],
  errorsCite: ['docs', 'auth'],
  quirks: [
    { text: 'PUT on /records/{host}/{type} replaces every record of that host and type; DELETE removes them.', cite: ['docs', 'lego'] },
    { text: 'A zone the key may not touch and a zone the account lacks both answer 403 "Key not authorised for zone".', cite: ['auth'] },
  ],
  seeds: (zone) => [
    { shape: 'an ANAME at `root`', row: { host: 'root', ttl: 300, type: 'ANAME', data: `lb.${zone}.` } },
    { shape: 'an SSHFP record', row: { host: 'host', ttl: 3600, type: 'SSHFP', data: '4 2 123456789abcdef67890123456789abcdef67890123456789abcdef123456789' } },
    { shape: 'an SRV at the www name Portico points elsewhere (restored as it was)', row: { host: 'www', ttl: 3600, type: 'SRV', data: `10 5 5060 sip.${zone}.` } },
    { shape: 'a TLSA record', row: { host: '_443._tcp', ttl: 3600, type: 'TLSA', data: '3 1 1 d2abde240d7cd3ee6b4b28c54df034b97983a1d16e8a410e4561cb106618e971' } },
    { shape: 'an ANAME at the apex, where Portico would write an A', row: { host: '@', ttl: 300, type: 'ANAME', data: `lb.${zone}.` }, blocks: true },
  ],
  disagreements: [
    'lego authenticates by a bearer token from auth.mythic-beasts.com; the DNS API also takes the key as HTTP Basic: Portico uses Basic and needs no token endpoint.',
    'No TTL floor or rate-limit figure is given in the sources read: the card takes 60 s as the floor (what the control panel offers) and 429 with Retry-After for a limit.',
  ],
})
