import { defineCard } from '../card-types.ts'

const xmlError = (code: string, message: string) => `<?xml version="1.0"?>\n<ErrorResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>00000000-0000-0000-0000-000000000000</RequestId></ErrorResponse>`

export const route53 = defineCard({
  id: 'route53',
  name: 'Amazon Route 53',
  sources: {
    getZone: { kind: 'docs', url: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_GetHostedZone.html', note: 'GET /2013-04-01/hostedzone/{Id}: the zone and its DelegationSet/NameServers; several public hosted zones may share a name, each with its own four name servers (lego issue #192 / PR #201 wrote into the first listed; octodns-route53 #146 refuses such zones)' },
    listRrsets: { kind: 'docs', url: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html', note: 'name/type/identifier paging, maxitems up to 300, IsTruncated, NextRecordName/Type/Identifier' },
    listZones: { kind: 'docs', url: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZones.html', note: 'marker / NextMarker, maxitems up to 100' },
    change: { kind: 'docs', url: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html', note: 'one ChangeBatch applied whole or not at all; DELETE must match the set exactly; errors InvalidChangeBatch, NoSuchHostedZone, PriorRequestNotComplete (retry at increasing intervals), Throttling' },
    rrsetModel: { kind: 'docs', url: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_ResourceRecordSet.html', note: 'AliasTarget, SetIdentifier with Weight / Region / Failover / GeoLocation / GeoProximityLocation / CidrRoutingConfig / MultiValueAnswer, HealthCheckId' },
    limits: { kind: 'docs', url: 'https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/DNSLimitations.html#limits-api-requests', note: 'five requests a second per AWS account; answered 400 Throttling "Rate exceeded"' },
    commonErrors: { kind: 'docs', url: 'https://docs.aws.amazon.com/Route53/latest/APIReference/CommonErrors.html', note: 'InvalidClientTokenId, SignatureDoesNotMatch, AccessDenied (403), ThrottlingException' },
    keys: { kind: 'docs', url: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html', note: 'an access key ID and secret access key, shown once; the console offers them as a .csv download' },
    botocore: { kind: 'description', url: 'https://github.com/boto/botocore/blob/0e6e2404b85dc336dd2889814e089bde7d1a4c55/botocore/data/route53/2013-04-01/service-2.json', fixture: 'provider-openapi/route53.json', note: 'the service model (REST-XML) the AWS SDKs are generated from: operations, shapes (ResourceRecordSet, AliasTarget, RRType, TTL 0–2147483647) and each operation\'s errors; carried trimmed to ListHostedZones, ListResourceRecordSets and ChangeResourceRecordSets, and the contract test checks every exchange against it (test/harness/aws-model-validate.ts)' },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/0459f9a5e43f82fc8a4f8f361c62ff045cc5b4d7/providers/dns/route53/route53.go', note: 'a custom retryer backing off ~400 ms doubling (Route 53\'s account-wide 5 req/s); UPSERT of the whole set; private zones passed over' },
    octodns: { kind: 'client', url: 'https://github.com/octodns/octodns-route53/blob/main/octodns_route53/provider.py', note: 'alias records and routing policies (weighted, geo, failover with health checks) read as Route 53\'s own' },
  },
  base: { url: 'https://route53.amazonaws.com', versions: '/2013-04-01 (REST with XML bodies, SigV4 region us-east-1, service route53)', cite: ['change', 'botocore'] },
  auth: {
    scheme: 'AWS Signature Version 4 (Authorization: AWS4-HMAC-SHA256 …, X-Amz-Date)',
    issued: 'an IAM access key: an access key ID (`AKIA…`) and a secret access key, shown once, offered as a CSV download',
    accepted: ['access_key_id:secret_access_key', 'the downloaded CSV (Access key ID,Secret access key)', '`aws iam create-access-key` JSON', 'AWS_ACCESS_KEY_ID= / AWS_SECRET_ACCESS_KEY= lines'],
    cite: ['keys', 'lego'],
  },
  listing: {
    zones: { pages: 'marker', params: 'marker, maxitems (default and most 100)', maxPageSize: 100, end: 'IsTruncated false' },
    records: { pages: 'marker', params: 'name, type, identifier (inside a routing-policy set), maxitems (default and most 300)', maxPageSize: 300, end: 'IsTruncated false' },
    cite: ['listZones', 'listRrsets'],
  },
  records: {
    types: ['A', 'AAAA', 'CAA', 'CNAME', 'DS', 'HTTPS', 'MX', 'NAPTR', 'NS', 'PTR', 'SOA', 'SPF', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT'],
    names: 'absolute with the trailing dot; some characters as \\ddd octal escapes (`*` is \\052)',
    values: 'zone-file text: TXT as quoted strings of at most 255 characters, hostnames with the trailing dot',
    providerOnly: [
      { kind: 'AliasTarget', what: 'an alias to an AWS resource or another set (no TTL, no values)', portico: 'locked' },
      { kind: 'SetIdentifier (weighted, latency, failover, geolocation, multivalue, CIDR)', what: 'several sets under one name and type, with a routing policy and often a health check', portico: 'locked' },
      { kind: 'private hosted zones', what: 'a VPC\'s own view of a name', portico: 'hidden' },
    ],
    cite: ['rrsetModel', 'octodns', 'lego'],
  },
  ttl: { min: 0, default: 300, cite: ['rrsetModel', 'lego'] },
  rateLimit: {
    status: 400,
    answer: () => ({ headers: { 'content-type': 'text/xml' }, body: xmlError('Throttling', 'Rate exceeded') }),
    signal: 'none: a 400 Throttling with no wait; AWS asks for growing intervals, so Portico waits 0.5, 1, 2, 4 s within its bound',
    limits: 'five requests a second per AWS account',
    cite: ['limits', 'change', 'lego'],
  },
  temporary: [
    { when: 'a change to the hosted zone while an earlier one is still being applied', status: 400, body: xmlError('PriorRequestNotComplete', 'The request was rejected because Route 53 was still processing a prior request.'), retry: 'waited out with 0.5, 1, 2, 4 s, then reported as a rate limit', cite: ['change'] },
  ],
  errors: [
    { when: 'an access key ID AWS does not know', status: 403, body: xmlError('InvalidClientTokenId', 'The security token included in the request is invalid.'), reason: 'auth' },
    { when: 'a secret that does not match the key', status: 403, body: xmlError('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'), reason: 'auth' },
    { when: 'a key whose policy does not allow route53:ChangeResourceRecordSets', status: 403, body: xmlError('AccessDenied', 'User is not authorized to perform: route53:ChangeResourceRecordSets'), reason: 'permission' },
    { when: 'a hosted zone the account does not have', status: 404, body: xmlError('NoSuchHostedZone', 'No hosted zone found with ID: Z000'), reason: 'zone_not_found' },
    { when: 'a batch Route 53 refuses (a CNAME beside other data)', status: 400, body: xmlError('InvalidChangeBatch', '[RRSet of type CNAME with DNS name www.example.com. is not permitted as it conflicts with other records with the same DNS name in zone example.com.]'), reason: 'write_failed' },
    { when: 'a DELETE that no longer matches the set (it changed between Portico\'s read and its batch; nothing written): read again and sent once more, then 409 conflict zone_changed', status: 400, body: xmlError('InvalidChangeBatch', "[Tried to delete resource record set [name='www.example.com.', type='CNAME'] but the values provided do not match the current values]"), reason: 'zone_changed' },
  ],
  errorsCite: ['change', 'commonErrors', 'botocore'],
  quirks: [
    { text: 'ChangeResourceRecordSets answers ChangeInfo `PENDING`, which GetChange later turns `INSYNC`: that is the change reaching Route 53\'s name servers, not an outcome still to come (the batch is checked and taken whole, or refused in the answer), so Portico does not wait for INSYNC (issue 46).', cite: ['change', 'botocore'] },
    { text: 'Several public hosted zones may share one name (a stale copy, another team\'s); each has its own delegation set, which only GetHostedZone answers. Portico asks it only then and writes into the copy the domain is delegated to, else refuses naming the zone ids (zone_ambiguous, zone_not_delegated).', cite: ['getZone', 'listZones'] },
    { text: 'A DELETE must name the set exactly as it stands (TTL and every value), so the current sets are read before each batch.', cite: ['change', 'lego'] },
    { text: 'Routing-policy sets share a name and type; a plain set cannot be created beside them (InvalidChangeBatch), so a change there is refused before writing.', cite: ['rrsetModel', 'change'] },
    { text: 'Amazon Lightsail DNS zones are served from the same awsdns nameservers through Lightsail\'s own API; a Route 53 key does not reach them, so the domain check names both and offers the Route 53 rail only for Route 53\'s zones.', cite: ['listZones'] },
  ],
  seeds: (zone) => [
    { shape: 'an alias A set to a CloudFront distribution', row: { name: `cdn.${zone}.`, type: 'A', ttl: 0, values: [], aliasTarget: { hostedZoneId: 'Z2FDTNDATAQYW2', dnsName: 'd111111abcdef8.cloudfront.net.', evaluateTargetHealth: false } } },
    { shape: 'weighted sets with a health check', row: { name: `api.${zone}.`, type: 'A', ttl: 60, values: ['198.51.100.11'], setIdentifier: 'blue', weight: 90, healthCheckId: 'abcdef11-2222-3333-4444-555555fedcba' } },
    { shape: 'the other weighted set', row: { name: `api.${zone}.`, type: 'A', ttl: 60, values: ['198.51.100.12'], setIdentifier: 'green', weight: 10 } },
    { shape: 'failover sets', row: { name: `status.${zone}.`, type: 'CNAME', ttl: 60, values: ['primary.example.net.'], setIdentifier: 'primary', failover: 'PRIMARY', healthCheckId: 'abcdef11-2222-3333-4444-555555fedcbb' } },
    { shape: 'a latency set', row: { name: `eu.${zone}.`, type: 'A', ttl: 60, values: ['198.51.100.13'], setIdentifier: 'eu-west-1', region: 'eu-west-1' } },
    { shape: 'an alias AAAA set at the www name Portico points elsewhere', row: { name: `www.${zone}.`, type: 'AAAA', ttl: 0, values: [], aliasTarget: { hostedZoneId: 'Z2FDTNDATAQYW2', dnsName: 'd111111abcdef8.cloudfront.net.', evaluateTargetHealth: false } }, blocks: true },
  ],
  disagreements: [
    'The API reference lists Throttling among the common errors as 400 (and the SDKs\' ThrottlingException); none gives a wait. The card follows lego and the AWS SDK retryers: a growing back-off.',
    'The botocore model describes the shapes, not the XML a stand-in should answer with; the stand-in follows the API reference\'s examples for element order, and the model for what may be absent (an alias set has no TTL and no ResourceRecords).',
  ],
})
