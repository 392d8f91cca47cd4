import { defineCard } from '../card-types.ts'

export const gandi = defineCard({
  id: 'gandi',
  name: 'Gandi LiveDNS',
  sources: {
    recording: { kind: 'recording', url: 'https://github.com/dns-lexicon/dns-lexicon/tree/9c5eba2dc00a0b5e2d09bc1cbb5005b17167ddea/tests/fixtures/cassettes/gandi/REST-IntegrationTests', fixture: 'provider-recordings/gandi.json', note: "a bare TXT value is stored and listed quoted; GET/POST/DELETE on a set and DELETE on a name" },
    livedns: { kind: 'docs', url: 'https://api.gandi.net/docs/livedns/', note: 'domains and records lists take `page` (a page past the last is empty) and `per_page`, answer Total-Count and a Link to the next page; rrset_type includes ALIAS; rrset_ttl minimum 300, maximum 2592000; errors `{cause, code, message, object}`' },
    reference: { kind: 'docs', url: 'https://api.gandi.net/docs/reference/', note: 'authentication `Bearer` personal access token, `Apikey` deprecated; sandbox api.sandbox.gandi.net; 1000 requests a minute' },
    pat: { kind: 'docs', url: 'https://docs.gandi.net/en/managing_an_organization/organizations/personal_access_token.html', note: 'personal access tokens are created per organization with scopes (Domains: manage DNS records) and an expiry' },
    webredir: { kind: 'docs', url: 'https://api.gandi.net/docs/domains/#v5-domain-domains-domain-webredirs', note: 'web forwarding is configured in the Domain API; LiveDNS holds the records that send the name to Gandi\'s forwarding servers (webredir.vip.gandi.net)' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-gandi/blob/716be2f77148677e58680b743c18a00d0f19297e/octodns_gandi/__init__.py', note: 'pages with page/per_page=500 until Total-Count; ALIAS supported; relative targets made absolute' },
    dnscontrol: { kind: 'client', url: 'https://github.com/StackExchange/dnscontrol/blob/7a079bc2a3201df47b4c6969d6231b91a950375f/providers/gandiv5/gandiv5Provider.go', note: 'ALIAS only on the bare domain; TTL raised to 300 and capped at 2592000; personal access token preferred over the deprecated API key' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/a0e15c2daf87956943f176fd54cc6f291f221e2d/providers/dns/gandiv5/internal/client.go', note: 'Bearer personal access token or Apikey; PUT …/records/{name}/{type}' },
  },
  base: { url: 'https://api.gandi.net/v5/livedns', versions: 'v5; sandbox https://api.sandbox.gandi.net/v5/livedns', cite: ['livedns', 'reference'] },
  auth: {
    scheme: 'Authorization: Bearer <personal access token> (Authorization: Apikey <key>, deprecated)',
    issued: 'a personal access token (`pat_…`) made in the organization\'s settings, scoped to its domains, with an expiry',
    accepted: ['the token', 'Bearer <token>', 'Apikey <legacy key>'],
    cite: ['reference', 'pat', 'dnscontrol'],
  },
  listing: {
    zones: { pages: 'page', params: 'page (from 1), per_page', end: 'Total-Count (a page past the last is empty)' },
    records: { pages: 'page', params: 'page (from 1), per_page', end: 'Total-Count (a page past the last is empty)' },
    cite: ['livedns', 'octodns'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CDS', 'CNAME', 'DNAME', 'DS', 'HTTPS', 'KEY', 'LOC', 'MX', 'NAPTR', 'NS', 'OPENPGPKEY', 'PTR', 'RP', 'SOA', 'SPF', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT', 'WKS'],
    names: '`rrset_name` relative, `@` the apex',
    values: '`rrset_values`: zone-file text (TXT as quoted character strings; a bare one is stored quoted, as lexicon\'s recording shows; hostnames with or without the trailing dot)',
    providerOnly: [
      { kind: 'ALIAS', what: 'the apex answered with the addresses of another name; an A, AAAA or CNAME beside it clashes', portico: 'locked' },
      { kind: 'web forwarding', what: 'records pointing a name at Gandi\'s forwarding servers (webredir.vip.gandi.net), set up in the Domain API', portico: 'kept' },
      { kind: 'value text', what: 'TXT split where its owner split it, relative targets', portico: 'kept' },
    ],
    cite: ['livedns', 'webredir', 'dnscontrol'],
  },
  ttl: { min: 300, default: 10800, max: 2592000, cite: ['livedns', 'dnscontrol'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: { code: 429, message: 'Too Many Requests', object: 'HTTPTooManyRequests', cause: 'Too Many Requests' } }),
    signal: 'none: the reference names a limit and no wait, so Portico reports it at once',
    limits: '1000 requests a minute',
    cite: ['reference'],
  },
  errors: [
    { when: 'a token Gandi does not know, or expired', status: 401, body: { code: 401, message: 'The server could not verify that you authorized to access the document you requested.', object: 'HTTPUnauthorized', cause: 'Unauthorized' }, reason: 'auth' },
    { when: 'a token without the domain\'s DNS scope', status: 403, body: { code: 403, message: 'Access was denied to this resource.', object: 'HTTPForbidden', cause: 'Forbidden' }, reason: 'permission' },
    { when: 'a domain not on LiveDNS in the organization', status: 404, body: { code: 404, message: 'Domain not found', object: 'HTTPNotFound', cause: 'Not Found' }, reason: 'zone_not_found' },
    { when: 'a record Gandi refuses (a TTL out of range)', status: 400, body: { code: 400, message: 'Bad Request', object: 'HTTPBadRequest', cause: 'Bad Request', errors: [{ location: 'body', name: 'rrset_ttl', description: 'must be between 300 and 2592000' }] }, reason: 'write_failed' },
    { when: 'a CNAME beside other records', status: 409, body: { code: 409, message: 'A CNAME record cannot coexist with other records', object: 'HTTPConflict', cause: 'Conflict' }, reason: 'conflict' },
    { when: 'an apex ALIAS that clashes with what stands there (refused after the apex A set was removed)', status: 409, body: { code: 409, message: 'A record of this name and type conflicts with another record', object: 'HTTPConflict', cause: 'Conflict' }, reason: 'conflict' },
  ],
  errorsCite: ['livedns', 'octodns'],
  quirks: [
    { text: 'A record set is written whole by name and type (PUT …/records/{name}/{type}); a value Portico does not change is sent back as Gandi holds it. A change of several sets is several calls: sets that may stand beside the ones removed go first, the apex A set is removed right before the ALIAS that replaces it, and a call refused after others went through (the ALIAS answered 409) has what went through put back by Portico.', cite: ['livedns', 'lego'] },
    { text: 'An ALIAS stands only at the apex, where Portico writes its A: Portico refuses that write rather than set an A beside it.', cite: ['dnscontrol', 'livedns'] },
  ],
  seeds: (zone) => [
    { shape: 'web forwarding of a subdomain (CNAME to Gandi\'s forwarding servers)', row: { rrset_name: 'shop', rrset_type: 'CNAME', rrset_ttl: 10800, rrset_values: ['webredir.vip.gandi.net.'] } },
    { shape: 'a relative CNAME target', row: { rrset_name: 'docs', rrset_type: 'CNAME', rrset_ttl: 1800, rrset_values: ['shop'] } },
    { shape: 'an SRV set', row: { rrset_name: '_sip._tcp', rrset_type: 'SRV', rrset_ttl: 10800, rrset_values: [`10 5 5060 sip.${zone}.`] } },
    { shape: 'a TXT split in pieces of its owner\'s choosing', row: { rrset_name: 'dkim._domainkey', rrset_type: 'TXT', rrset_ttl: 10800, rrset_values: ['"v=DKIM1; k=rsa; " "p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC"'] } },
    { shape: 'an ALIAS at the apex, where Portico writes its A', row: { rrset_name: '@', rrset_type: 'ALIAS', rrset_ttl: 10800, rrset_values: ['site.example.net.'] }, blocks: true },
  ],
  disagreements: [
    'The earlier stand-in refused an unquoted TXT and knew no GET or POST on a set; lexicon\'s recording shows Gandi taking a bare TXT and listing it quoted, and answering both: the stand-in now does.',
    'Gandi publishes its reference as pages, not as a downloadable OpenAPI document: none is carried, and the stand-in follows the reference pages.',
    'octodns ends a listing by Total-Count, older clients on an empty page; the reference documents both (a page past the last is empty): the adapter uses Total-Count and stops on an empty or repeated page too.',
    'The reference names no header on a 429; the stand-in sends none and Portico reports the limit at once.',
  ],
})
