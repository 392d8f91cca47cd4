import { defineCard } from '../card-types.ts'

const armError = (code: string, message: string) => ({ error: { code, message } })

export const azure = defineCard({
  id: 'azure',
  name: 'Azure DNS',
  sources: {
    zonesList: { kind: 'docs', url: 'https://learn.microsoft.com/rest/api/dns/zones/list', note: 'a zone is a resource of a resource group: the same name may stand in several groups and subscriptions, each with its own properties.nameServers (ns1-0x.azure-dns.com …); zoneType Private for a VNet\'s view' },
    recordSets: { kind: 'docs', url: 'https://learn.microsoft.com/rest/api/dns/record-sets', note: 'api-version 2018-05-01: List All By Dns Zone ({value, nextLink}), Create Or Update (PUT replaces the set; If-Match / If-None-Match), Delete' },
    recordSetModel: { kind: 'docs', url: 'https://learn.microsoft.com/rest/api/dns/record-sets/get?view=rest-dns-2018-05-01#recordset', note: 'properties: TTL, metadata, targetResource (alias), ARecords … caaRecords, fqdn, provisioningState' },
    alias: { kind: 'docs', url: 'https://learn.microsoft.com/azure/dns/dns-alias', note: 'alias record sets point A, AAAA or CNAME at an Azure resource (public IP, Traffic Manager, Front Door, CDN) and hold no records of their own' },
    throttling: { kind: 'docs', url: 'https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling', note: '429 with Retry-After; x-ms-ratelimit-remaining-subscription-reads / -writes on every answer' },
    armErrors: { kind: 'docs', url: 'https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/common-deployment-errors', note: 'the {error: {code, message}} body: AuthorizationFailed, ResourceNotFound, ParentResourceNotFound, InvalidAuthenticationToken' },
    sp: { kind: 'docs', url: 'https://learn.microsoft.com/cli/azure/azure-cli-sp-tutorial-1', note: '`az ad sp create-for-rbac` prints {appId, displayName, password, tenant}; the subscription id is apart' },
    openapi: { kind: 'description', url: 'https://github.com/Azure/azure-rest-api-specs/blob/8c75aaec9fbfa51c30d0b7db6d73e52f4fe88778/specification/dns/resource-manager/Microsoft.Network/stable/2018-05-01/dns.json', fixture: 'provider-openapi/azure.json', note: 'the published Swagger 2.0 of the DNS resource provider (RecordSet, RecordSetProperties with targetResource, CloudError); carried trimmed to Zones_List, RecordSets_ListAllByDnsZone, RecordSets_CreateOrUpdate and RecordSets_Delete, and the contract test checks every exchange against it' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/azuredns/azuredns.go', note: 'record sets written whole with CreateOrUpdate; the existing TXT values kept and added to' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-azure/blob/main/octodns_azure/__init__.py', note: 'alias record sets (target_resource) are Azure\'s own; record sets written whole' },
  },
  base: { url: 'https://management.azure.com', versions: 'Microsoft.Network/dnszones api-version 2018-05-01 (subscriptions list 2022-12-01)', cite: ['recordSets', 'openapi'] },
  auth: {
    scheme: 'Authorization: Bearer <Entra ID token for https://management.azure.com/.default> (client-credentials grant), or a person\'s OAuth grant',
    issued: 'a service principal: `az ad sp create-for-rbac` prints appId, password and tenant (the secret shown once); the subscription id is on the subscription\'s page; the principal needs DNS Zone Contributor',
    accepted: ['{tenant_id, client_id, client_secret, subscription_id}', 'the `az ad sp create-for-rbac` output with subscription_id added', 'AZURE_TENANT_ID= … lines', 'a person\'s OAuth grant (zones across their subscriptions)'],
    cite: ['sp', 'lego'],
  },
  listing: {
    zones: { pages: 'link', params: 'the `nextLink` of the answer', end: 'no nextLink' },
    records: { pages: 'link', params: 'the `nextLink` of GET {zone}/all', end: 'no nextLink' },
    cite: ['recordSets', 'openapi'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'DS', 'MX', 'NAPTR', 'NS', 'PTR', 'SOA', 'SRV', 'TLSA', 'TXT'],
    names: 'relative (`@` the apex); the type is in the resource path',
    values: 'one property per type (ARecords: [{ipv4Address}], MXRecords: [{preference, exchange}], TXTRecords: [{value: [strings of at most 255 bytes]}], caaRecords: [{flags, tag, value}], CNAMERecord: {cname})',
    providerOnly: [
      { kind: 'targetResource', what: 'an alias record set pointing at an Azure resource', portico: 'locked' },
      { kind: 'metadata', what: 'a set\'s tags (name/value pairs); a PUT without them drops them', portico: 'kept' },
      { kind: 'SRV, PTR, TLSA, DS, NAPTR', what: 'types Portico does not write', portico: 'locked' },
    ],
    cite: ['recordSetModel', 'alias', 'octodns'],
  },
  ttl: { min: 1, default: 3600, cite: ['recordSetModel', 'lego'] },
  rateLimit: {
    status: 429,
    answer: (wait) => ({ headers: { 'retry-after': String(wait), 'x-ms-ratelimit-remaining-subscription-writes': '0' }, body: armError('TooManyRequests', 'The request is being throttled as the limit has been reached for operation type - Write.') }),
    signal: 'Retry-After (seconds)',
    limits: 'per subscription and principal: a token bucket of reads and writes (ARM)',
    cite: ['throttling'],
  },
  errors: [
    { when: 'a token Resource Manager does not take', status: 401, body: armError('InvalidAuthenticationToken', 'The access token is invalid.'), reason: 'auth' },
    { when: 'a principal without DNS Zone Contributor on the zone', status: 403, body: armError('AuthorizationFailed', 'The client does not have authorization to perform action Microsoft.Network/dnszones/A/write.'), reason: 'permission' },
    { when: 'a zone the subscription does not have', status: 404, body: armError('ParentResourceNotFound', "Can not perform requested operation on nested resource. Parent resource 'example.com' not found."), reason: 'zone_not_found' },
    { when: 'a CNAME beside other record sets', status: 409, body: armError('Conflict', 'The CNAME record set conflicts with another record set.'), reason: 'conflict' },
    { when: 'a set Azure refuses (a TXT string over 255 bytes, records beside an alias)', status: 400, body: armError('BadRequest', 'The record set must have a TTL and records of its type.'), reason: 'write_failed' },
  ],
  errorsCite: ['armErrors', 'recordSets', 'openapi'],
  quirks: [
    { text: 'A record set is written with one PUT answered 200 or 201 when done: record sets are not long-running operations in the published document (no Azure-AsyncOperation to follow), so there is nothing to wait for after the answer (issue 46).', cite: ['openapi'] },
    { text: '`nextLink` names https://management.azure.com whatever address was asked: Portico rebases its path and query onto the configured base (DNS_PROVIDER_API_BASES).', cite: ['recordSets'] },
    { text: 'The same zone name may stand in several resource groups (and subscriptions), each copy with its own name servers. Portico writes the copy the domain is delegated to, else refuses naming the zone ids; Private zones are passed over.', cite: ['zonesList'] },
    { text: 'PUT replaces the whole record set, metadata included: Portico sends a set\'s metadata back whenever it writes the set, and keeps it to restore a set it removed.', cite: ['recordSets', 'recordSetModel'] },
    { text: 'An alias record set has targetResource and no records; a plain PUT at its name and type would turn it into a static set, so it is read as locked.', cite: ['alias', 'octodns'] },
    { text: 'The service principal\'s token comes from login.microsoftonline.com for the tenant; a person\'s grant reaches every subscription they can see, and a subscription that refuses is passed over.', cite: ['sp'] },
  ],
  seeds: (zone) => [
    { shape: 'an alias A set to an Azure CDN endpoint', row: { name: 'cdn', type: 'A', properties: { TTL: 3600, targetResource: { id: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/web/providers/Microsoft.Cdn/profiles/p/endpoints/e' } } } },
    { shape: 'a CAA set with metadata, where Portico adds its CA', row: { name: '@', type: 'CAA', properties: { TTL: 3600, metadata: { team: 'security', ticket: 'SEC-42' }, caaRecords: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] } } },
    { shape: 'an SRV set (a type Portico does not write)', row: { name: '_sip._tls', type: 'SRV', properties: { TTL: 3600, SRVRecords: [{ priority: 100, weight: 1, port: 443, target: 'sipdir.online.lync.com' }] } } },
    { shape: 'an alias AAAA set at the www name Portico points elsewhere', row: { name: 'www', type: 'AAAA', properties: { TTL: 60, targetResource: { id: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/web/providers/Microsoft.Network/frontDoors/fd' } } }, blocks: true },
  ],
  disagreements: [
    'The Swagger types TTL as optional; Azure\'s portal and the PUT examples always send it, and the stand-in refuses a set without it. The card follows the examples.',
    'lego and octodns write record sets whole without If-Match; Azure documents If-Match for optimistic concurrency. Portico, like them, reads the set just before writing it and does not send If-Match.',
  ],
})
