import { defineCard } from '../card-types.ts'

const gError = (code: number, status: string, message: string, reason: string) => ({ error: { code, message, status, errors: [{ domain: 'global', reason, message }] } })

export const googleCloudDns = defineCard({
  id: 'google-cloud-dns',
  name: 'Google Cloud DNS',
  sources: {
    managedZones: { kind: 'docs', url: 'https://cloud.google.com/dns/docs/reference/rest/v1/managedZones', note: 'managed zones are named by the project; several may have one dnsName (staging and prod), each with its own nameServers; visibility private for a VPC\'s view' },
    rrsets: { kind: 'docs', url: 'https://cloud.google.com/dns/docs/reference/rest/v1/resourceRecordSets', note: 'ResourceRecordSet {name, type, ttl, rrdatas, signatureRrdatas, routingPolicy}; list with maxResults (the server decides how many) and pageToken' },
    changes: { kind: 'docs', url: 'https://cloud.google.com/dns/docs/reference/rest/v1/changes/create', note: 'one Change {additions, deletions}, applied whole; a deletion must match the set exactly' },
    routing: { kind: 'docs', url: 'https://cloud.google.com/dns/docs/zones/manage-routing-policies', note: 'geo, weighted round robin and failover (primaryBackup) policies: items carry their own rrdatas and health-checked targets' },
    quotas: { kind: 'docs', url: 'https://cloud.google.com/dns/quotas', note: 'per-project request quotas; past them 429 RESOURCE_EXHAUSTED, to be retried with exponential back-off' },
    errors: { kind: 'docs', url: 'https://cloud.google.com/dns/docs/troubleshooting', note: '412 conditionNotMet (a deletion that no longer matches), 409 alreadyExists, 403 accessNotConfigured (the API off in the project)' },
    keys: { kind: 'docs', url: 'https://cloud.google.com/iam/docs/keys-create-delete', note: 'a service account key: the JSON file Google issues (project_id, client_email, private_key)' },
    discovery: { kind: 'description', url: 'https://github.com/googleapis/discovery-artifact-manager/blob/644834f8e9366e023ab4d13a6b1a4915c4b4747a/discoveries/dns.v1.json', fixture: 'provider-openapi/google-cloud-dns.json', note: 'the discovery document Google serves at https://dns.googleapis.com/$discovery/rest?version=v1 (schemas ResourceRecordSet, Change, RRSetRoutingPolicy); carried trimmed to managedZones.list, resourceRecordSets.list and changes.create, and the contract test checks every exchange against it (test/harness/discovery.ts reads it as OpenAPI)' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/gcloud/googlecloud.go', note: 'changes.create with the old set in deletions and the new in additions; the service-account JSON as the credential' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-googlecloud/blob/main/octodns_googlecloud/__init__.py', note: 'record sets read with their rrdatas; changes sent as additions and deletions of whole sets' },
  },
  base: { url: 'https://dns.googleapis.com', versions: '/dns/v1', cite: ['rrsets', 'discovery'] },
  auth: {
    scheme: 'Authorization: Bearer <access token>, traded at oauth2.googleapis.com/token for a JWT signed with the service account\'s key (scope ndev.clouddns.readwrite); or a person\'s OAuth grant',
    issued: 'a service account key, the JSON file downloaded from IAM → Service accounts → Keys (shown once)',
    accepted: ['the key JSON as downloaded', 'a person\'s OAuth grant (zones across their projects)'],
    cite: ['keys', 'lego'],
  },
  listing: {
    zones: { pages: 'cursor', params: 'maxResults, pageToken', end: 'no nextPageToken (a page may hold fewer than asked)' },
    records: { pages: 'cursor', params: 'maxResults, pageToken', end: 'no nextPageToken' },
    cite: ['rrsets', 'discovery'],
  },
  records: {
    types: ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'DNSKEY', 'DS', 'HTTPS', 'IPSECKEY', 'MX', 'NAPTR', 'NS', 'PTR', 'SOA', 'SPF', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT'],
    names: 'absolute with the trailing dot',
    values: '`rrdatas`: zone-file text (TXT quoted strings, hostnames with the trailing dot)',
    providerOnly: [
      { kind: 'routingPolicy (geo, wrr, primaryBackup)', what: 'answers chosen by the client\'s location, by weight or by health; the set has no rrdatas of its own', portico: 'locked' },
      { kind: 'signatureRrdatas', what: 'DNSSEC signatures beside a set\'s data', portico: 'kept' },
      { kind: 'private zones', what: 'a VPC\'s own view of a name', portico: 'hidden' },
    ],
    cite: ['rrsets', 'routing'],
  },
  ttl: { min: 0, default: 300, cite: ['rrsets', 'lego'] },
  rateLimit: {
    status: 429,
    answer: () => ({ headers: {}, body: gError(429, 'RESOURCE_EXHAUSTED', "Quota exceeded for quota metric 'Change requests' of service 'dns.googleapis.com'", 'rateLimitExceeded') }),
    signal: 'none in the answer: Google asks for exponential back-off, so Portico waits 1, 2, 4 s within its bound',
    limits: 'per-project quotas (requests per minute; changes per zone per minute)',
    cite: ['quotas'],
  },
  errors: [
    { when: 'an access token Google does not take', status: 401, body: gError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.', 'authError'), reason: 'auth' },
    { when: 'the Cloud DNS API off in the project, or a role without dns.changes.create', status: 403, body: gError(403, 'PERMISSION_DENIED', 'Cloud DNS API has not been used in project p before or it is disabled.', 'accessNotConfigured'), reason: 'permission' },
    { when: 'a managed zone the project does not have', status: 404, body: gError(404, 'NOT_FOUND', "The 'parameters.managedZone' resource named 'z' does not exist.", 'notFound'), reason: 'zone_not_found' },
    { when: 'an addition of a set that exists', status: 409, body: gError(409, 'ALREADY_EXISTS', "The resource 'entity.change.additions[a.example.][A]' already exists", 'alreadyExists'), reason: 'conflict' },
    { when: 'a deletion that no longer matches the set (the zone changed between Portico\'s read and its change; nothing written): read again and sent once more, then 409 conflict zone_changed', status: 412, body: gError(412, 'FAILED_PRECONDITION', "The resource 'entity.change.deletions[a.example.][A]' does not match the current state", 'conditionNotMet'), reason: 'zone_changed' },
  ],
  errorsCite: ['errors', 'changes', 'discovery'],
  quirks: [
    { text: 'changes.create answers a Change with status `pending`, later `done`: that is the change reaching Google\'s name servers, not an outcome still to come; a Change has no failed state (it is taken whole or refused in the answer), so Portico does not wait for `done` (issue 46).', cite: ['changes', 'discovery'] },
    { text: 'Several public managed zones may serve one dnsName (a staging and a prod zone, in one project or across the projects a grant reaches); each has its own nameServers. Portico writes the one the domain is delegated to, else refuses naming the zone ids.', cite: ['managedZones'] },
    { text: 'A deletion is matched against the set exactly, so the sets Portico replaces are sent back as Google gave them (rrdatas and signatures), never re-serialised.', cite: ['changes', 'lego'] },
    { text: 'A set with a routing policy carries `routingPolicy` and no `rrdatas`; a plain addition at its name and type would fail (alreadyExists) or drop the policy, so it is read as locked.', cite: ['routing', 'rrsets'] },
  ],
  seeds: (zone) => [
    { shape: 'a geo routing policy', row: { kind: 'dns#resourceRecordSet', name: `geo.${zone}.`, type: 'A', ttl: 300, routingPolicy: { geo: { items: [{ location: 'us-east1', rrdatas: ['198.51.100.1'] }, { location: 'europe-west1', rrdatas: ['198.51.100.2'] }], enableFencing: false } } } },
    { shape: 'a weighted round robin policy', row: { kind: 'dns#resourceRecordSet', name: `wrr.${zone}.`, type: 'CNAME', ttl: 60, routingPolicy: { wrr: { items: [{ weight: 0.8, rrdatas: ['blue.example.net.'] }, { weight: 0.2, rrdatas: ['green.example.net.'] }] } } } },
    { shape: 'an SRV set', row: { kind: 'dns#resourceRecordSet', name: `_sip._tcp.${zone}.`, type: 'SRV', ttl: 3600, rrdatas: ['10 5 5060 sip.example.net.'] } },
    { shape: 'a failover policy at the www name Portico points elsewhere', row: { kind: 'dns#resourceRecordSet', name: `www.${zone}.`, type: 'AAAA', ttl: 60, routingPolicy: { primaryBackup: { primaryTargets: { externalEndpoints: ['2001:db8::1'] }, backupGeoTargets: { items: [{ location: 'us-east1', rrdatas: ['2001:db8::2'] }] }, trickleTraffic: 0 } } }, blocks: true },
  ],
  disagreements: [
    'The REST reference gives a 429 for exceeded quotas but no wait; Google\'s general guidance is truncated exponential back-off. The card follows that guidance.',
    'maxResults is a maximum, not a page size: "the server decides how many results to return". The stand-in serves at most three a page whatever is asked, which the reference allows.',
  ],
})
