// The OpenAPI conformance check catches what it is there to catch: a request body or a response body
// that the provider's published document does not allow, an undocumented status or path, and a
// missing required query parameter (here against DigitalOcean's and Netlify's documents).
import { describe, test, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { mergeParts, trimAwsModel, trimDiscovery } from '../../scripts/trim-openapi.ts'
import { AwsRestXmlModel } from '../harness/aws-model-validate.ts'
import { discoveryToOpenApi } from '../harness/discovery.ts'
import { OpenApiDocument, type Exchange } from '../harness/openapi-validate.ts'

const fixture = (id: string) => JSON.parse(readFileSync(join(import.meta.dir, '../fixtures/provider-openapi', `${id}.json`), 'utf8'))
const digitalocean = new OpenApiDocument(fixture('digitalocean'), '')
const netlify = new OpenApiDocument(fixture('netlify'), '/api/v1')

const record = { id: 28448429, type: 'A', name: '@', data: '198.51.100.1', priority: null, port: null, ttl: 1800, weight: null, flags: null, tag: null }
const ex = (e: Partial<Exchange>): Exchange => ({ method: 'GET', path: '/v2/domains/example.com/records', query: {}, requestBody: '', status: 200, responseBody: '', ...e })
const list = (rows: unknown[]) => JSON.stringify({ domain_records: rows, links: {}, meta: { total: rows.length } })

describe('OpenAPI conformance', () => {
  test('a documented exchange passes and counts the operation as covered', () => {
    const r = digitalocean.check([ex({ responseBody: list([record]) })])
    expect(r.violations).toEqual([])
    expect([...r.covered]).toEqual(['GET /v2/domains/{domain_name}/records'])
  })

  test('a response body of the wrong shape is a violation', () => {
    const r = digitalocean.check([ex({ responseBody: list([{ ...record, ttl: 'an hour' }]) })])
    expect(r.violations).toEqual([expect.stringContaining('/domain_records/*/ttl must be integer')])
  })

  test('a request body without a required field is a violation', () => {
    const r = digitalocean.check([ex({ method: 'POST', requestBody: JSON.stringify({ name: 'www', data: '198.51.100.1' }), status: 201, responseBody: JSON.stringify({ domain_record: record }) })])
    expect(r.violations.join('\n')).toContain("request (body) must have required property 'type'")
  })

  test('an undocumented status or path is a violation; a status under `default` takes its error schema', () => {
    const hostinger = new OpenApiDocument(fixture('hostinger'), '')
    expect(hostinger.check([{ method: 'GET', path: '/api/dns/v1/zones/example.com', query: {}, requestBody: '', status: 418, responseBody: '{}' }]).violations).toEqual(['GET /api/dns/v1/zones/{domain} (418): status 418 is not documented'])
    expect(digitalocean.check([ex({ status: 418, responseBody: '{}' })]).violations).toContain("GET /v2/domains/{domain_name}/records (418): response (body) must have required property 'message'")
    expect(digitalocean.check([ex({ path: '/v2/domains/example.com/zonefile' })]).violations).toEqual(['GET /v2/domains/example.com/zonefile (200): not an operation of the document'])
  })

  test('a nullable enum allows null and nothing outside the enum (OpenAPI 3.0.3); a 4xx range in lower case is a range', () => {
    const linode = new OpenApiDocument(fixture('linode'), '/v4')
    const row = { id: 1, type: 'CAA', name: 'www', target: 'letsencrypt.org', priority: 0, weight: 0, port: 0, service: null, protocol: null, ttl_sec: 3600, tag: null as string | null }
    const list = (r: typeof row) => ({ method: 'GET', path: '/v4/domains/1/records', query: {}, requestBody: '', status: 200, responseBody: JSON.stringify({ data: [r], page: 1, pages: 1, results: 1 }) })
    expect(linode.check([list(row), list({ ...row, tag: 'issue' })]).violations).toEqual([])
    expect(linode.check([list({ ...row, tag: 'issuer' })]).violations).toEqual(['GET /domains/{domainId}/records (200): response /data/*/tag must be equal to one of the allowed values'])
    const hetzner = new OpenApiDocument(fixture('hetzner'), '/v1')
    expect(hetzner.check([{ method: 'GET', path: '/v1/zones', query: {}, requestBody: '', status: 404, responseBody: JSON.stringify({ error: { code: 'not_found', message: 'zone not found', details: {} } }) }]).violations).toEqual([])
  })

  test('overlapping oneOf alternatives are read as anyOf only where the document asks for it (Vercel)', () => {
    const records = { records: [{ id: 'rec_1', slug: 's', name: '', type: 'A', value: '198.51.100.1', creator: 'system', created: null, updated: null, createdAt: null, updatedAt: null }], pagination: { count: 1, next: null, prev: null } }
    const ex = { method: 'GET', path: '/v4/domains/example.com/records', query: { teamId: 'team_1' }, requestBody: '', status: 200, responseBody: JSON.stringify(records) }
    // A page with pagination matches two of the three alternatives, which strict oneOf refuses.
    expect(new OpenApiDocument(fixture('vercel'), '').check([ex]).violations).toEqual(['GET /v4/domains/{domain}/records (200): response (body) must be string', 'GET /v4/domains/{domain}/records (200): response (body) must match exactly one schema in oneOf'])
    expect(new OpenApiDocument(fixture('vercel'), '', { oneOfAsAnyOf: true }).check([ex]).violations).toEqual([])
    const wrong = { ...ex, responseBody: JSON.stringify({ ...records, records: [{ ...records.records[0], type: 'SPF' }] }) }
    expect(new OpenApiDocument(fixture('vercel'), '', { oneOfAsAnyOf: true }).check([wrong]).violations).toEqual([
      'GET /v4/domains/{domain}/records (200): response (body) must be string',
      'GET /v4/domains/{domain}/records (200): response /records/*/type must be equal to one of the allowed values',
      'GET /v4/domains/{domain}/records (200): response (body) must match a schema in anyOf',
    ])
  })

  test('a document split by service is trimmed as one; a component two parts define differently is refused', () => {
    const part = (paths: object, schemas: object) => ({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths, components: { schemas } })
    const merged = mergeParts([part({ '/a': { get: {} } }, { X: { type: 'string' } }), part({ '/b': { get: {} } }, { X: { type: 'string' }, Y: { type: 'number' } })])
    expect(Object.keys(merged.paths)).toEqual(['/a', '/b'])
    expect(merged.components.schemas).toEqual({ X: { type: 'string' }, Y: { type: 'number' } })
    expect(() => mergeParts([part({}, { X: { type: 'string' } }), part({}, { X: { type: 'integer' } })])).toThrow('components.schemas.X differs between parts')
  })

  test('Swagger 2 documents under a base path are read the same way', () => {
    const row = { id: 'r1', hostname: 'www.example.com', type: 'A', value: '198.51.100.1', ttl: 3600, priority: 0, dns_zone_id: 'z1', site_id: 's1', flag: 0, tag: '', managed: false }
    expect(netlify.check([{ method: 'GET', path: '/api/v1/dns_zones/z1/dns_records', query: {}, requestBody: '', status: 200, responseBody: JSON.stringify([row]) }]).violations).toEqual([])
    const bad = netlify.check([{ method: 'GET', path: '/api/v1/dns_zones/z1/dns_records', query: {}, requestBody: '', status: 200, responseBody: JSON.stringify([{ ...row, ttl: '3600' }]) }])
    expect(bad.violations).toEqual([expect.stringContaining('/*/ttl must be integer')])
  })
})

describe('AWS REST-XML service model conformance (Route 53)', () => {
  const route53 = new AwsRestXmlModel(fixture('route53'))
  const NS = 'https://route53.amazonaws.com/doc/2013-04-01/'
  const set = (inner: string) => `<ResourceRecordSet><Name>www.example.com.</Name><Type>A</Type>${inner}</ResourceRecordSet>`
  const rrsets = (sets: string) => ({ method: 'GET', path: '/2013-04-01/hostedzone/Z1D633PJN98FT9/rrset', query: {}, requestBody: '', status: 200, responseBody: `<?xml version="1.0"?>\n<ListResourceRecordSetsResponse xmlns="${NS}"><ResourceRecordSets>${sets}</ResourceRecordSets><IsTruncated>false</IsTruncated><MaxItems>300</MaxItems></ListResourceRecordSetsResponse>` })
  const change = (changes: string) => ({ method: 'POST', path: '/2013-04-01/hostedzone/Z1D633PJN98FT9/rrset/', query: {}, requestBody: `<?xml version="1.0" encoding="UTF-8"?>\n<ChangeResourceRecordSetsRequest xmlns="${NS}"><ChangeBatch><Changes>${changes}</Changes></ChangeBatch></ChangeResourceRecordSetsRequest>`, status: 200, responseBody: `<ChangeResourceRecordSetsResponse xmlns="${NS}"><ChangeInfo><Id>/change/C2682N5HXP0BZ4</Id><Status>PENDING</Status><SubmittedAt>2026-11-26T12:00:00.000Z</SubmittedAt></ChangeInfo></ChangeResourceRecordSetsResponse>` })

  test('a documented exchange passes and counts the operation as covered', () => {
    const r = route53.check([rrsets(set('<TTL>300</TTL><ResourceRecords><ResourceRecord><Value>198.51.100.1</Value></ResourceRecord></ResourceRecords>')), change(`<Change><Action>UPSERT</Action>${set('<TTL>300</TTL><ResourceRecords><ResourceRecord><Value>198.51.100.1</Value></ResourceRecord></ResourceRecords>')}</Change>`)])
    expect(r.violations).toEqual([])
    expect([...r.covered].sort()).toEqual(['GET /2013-04-01/hostedzone/{Id}/rrset', 'POST /2013-04-01/hostedzone/{Id}/rrset/'])
  })

  test('a response of the wrong shape is a violation: an unknown element, a value out of its enum, a negative TTL, a missing required member', () => {
    const r = route53.check([rrsets(set('<TTL>-1</TTL><Values><ResourceRecord><Value>198.51.100.1</Value></ResourceRecord></Values>').replace('<Type>A</Type>', '<Type>ALIAS</Type>'))])
    expect(r.violations.map((v) => v.replace(/^GET \S+ \(200\): /, '')).sort()).toEqual([
      'response ListResourceRecordSetsResponse/ResourceRecordSets/*/TTL: -1 is outside 0..2147483647 (TTL)',
      'response ListResourceRecordSetsResponse/ResourceRecordSets/*/Type: "ALIAS" is not one of RRType (SOA, A, TXT, NS, CNAME, MX, NAPTR, PTR, SRV, SPF, AAAA, CAA, DS, TLSA, SSHFP, SVCB, HTTPS)',
      'response ListResourceRecordSetsResponse/ResourceRecordSets/*: <Values> is not a member of ResourceRecordSet',
    ])
    expect(route53.check([{ ...rrsets(''), responseBody: `<ListResourceRecordSetsResponse xmlns="${NS}"><ResourceRecordSets></ResourceRecordSets></ListResourceRecordSetsResponse>` }]).violations.sort()).toEqual([
      'GET /2013-04-01/hostedzone/{Id}/rrset (200): response ListResourceRecordSetsResponse: required member IsTruncated missing (ListResourceRecordSetsResponse)',
      'GET /2013-04-01/hostedzone/{Id}/rrset (200): response ListResourceRecordSetsResponse: required member MaxItems missing (ListResourceRecordSetsResponse)',
    ])
  })

  test('a request of the wrong shape is a violation: a wrong action, an empty record list, a wrong root, an unknown query parameter', () => {
    expect(route53.check([change(`<Change><Action>REPLACE</Action>${set('<TTL>300</TTL><ResourceRecords></ResourceRecords>')}</Change>`)]).violations.sort()).toEqual([
      'POST /2013-04-01/hostedzone/{Id}/rrset/ (200): request ChangeResourceRecordSetsRequest/ChangeBatch/Changes/*/Action: "REPLACE" is not one of ChangeAction (CREATE, DELETE, UPSERT)',
      'POST /2013-04-01/hostedzone/{Id}/rrset/ (200): request ChangeResourceRecordSetsRequest/ChangeBatch/Changes/*/ResourceRecordSet/ResourceRecords: fewer than 1 items (ResourceRecords)',
    ])
    const wrongRoot = change('').requestBody.replace(/ChangeResourceRecordSetsRequest/g, 'ChangeBatchRequest')
    expect(route53.check([{ ...change(''), requestBody: wrongRoot }]).violations).toEqual(['POST /2013-04-01/hostedzone/{Id}/rrset/ (200): request root <ChangeBatchRequest>, not <ChangeResourceRecordSetsRequest>'])
    expect(route53.check([{ ...rrsets(''), query: { startname: 'www.example.com.' } }]).violations).toEqual(['GET /2013-04-01/hostedzone/{Id}/rrset (200): query parameter startname is not an input of ListResourceRecordSets'])
  })

  test('trimming keeps the operations asked for and every shape they reach, without the documentation', () => {
    const model = fixture('route53')
    model.operations.GetChange = { name: 'GetChange', http: { method: 'GET', requestUri: '/2013-04-01/change/{Id}' }, input: { shape: 'GetChangeRequest' }, documentation: '<p>Returns the current status of a change batch.</p>' }
    model.shapes.GetChangeRequest = { type: 'structure', required: ['Id'], members: { Id: { shape: 'ChangeId', location: 'uri', locationName: 'Id', documentation: '<p>The ID of the change batch.</p>' } } }
    model.shapes.ChangeId = { type: 'string', max: 6500 }
    expect(trimAwsModel(model, ['GetChange'])).toEqual({ version: model.version, metadata: model.metadata, operations: { GetChange: { name: 'GetChange', http: { method: 'GET', requestUri: '/2013-04-01/change/{Id}' }, input: { shape: 'GetChangeRequest' } } }, shapes: { ChangeId: { type: 'string', max: 6500 }, GetChangeRequest: { type: 'structure', required: ['Id'], members: { Id: { shape: 'ChangeId', location: 'uri', locationName: 'Id' } } } } })
    expect(trimAwsModel(model, ['ListHostedZones', 'ListResourceRecordSets', 'ChangeResourceRecordSets'])).toEqual(fixture('route53'))
  })

  test('an error must be one the operation documents, with its status', () => {
    const err = (code: string, status: number) => ({ ...rrsets(''), status, responseBody: `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>m</Message></Error><RequestId>r</RequestId></ErrorResponse>` })
    expect(route53.check([err('NoSuchHostedZone', 404)]).violations).toEqual([])
    expect(route53.check([err('NoSuchHostedZone', 400)]).violations).toEqual(['GET /2013-04-01/hostedzone/{Id}/rrset (400): error NoSuchHostedZone is documented with status 404'])
    expect(route53.check([err('InvalidChangeBatch', 400)]).violations).toEqual(['GET /2013-04-01/hostedzone/{Id}/rrset (400): error InvalidChangeBatch is not documented for ListResourceRecordSets'])
    expect(route53.check([{ ...err('x', 404), responseBody: '{"message":"not found"}' }]).violations).toEqual(['GET /2013-04-01/hostedzone/{Id}/rrset (404): the error is not <ErrorResponse><Error><Code>'])
  })
})

describe('Google discovery document conformance (Cloud DNS)', () => {
  const google = new OpenApiDocument(discoveryToOpenApi(fixture('google-cloud-dns')), '')
  const rrsets = (rows: unknown[]) => ({ method: 'GET', path: '/dns/v1/projects/p1/managedZones/z1/rrsets', query: { maxResults: '1000' }, requestBody: '', status: 200, responseBody: JSON.stringify({ kind: 'dns#resourceRecordSetsListResponse', rrsets: rows }) })
  const a = { kind: 'dns#resourceRecordSet', name: 'www.example.com.', type: 'A', ttl: 300, rrdatas: ['198.51.100.1'] }

  test('a documented exchange passes and counts the method as covered', () => {
    const change = { method: 'POST', path: '/dns/v1/projects/p1/managedZones/z1/changes', query: {}, requestBody: JSON.stringify({ additions: [a], deletions: [] }), status: 200, responseBody: JSON.stringify({ kind: 'dns#change', id: '7', status: 'done', additions: [a] }) }
    const r = google.check([rrsets([a]), change])
    expect(r.violations).toEqual([])
    expect([...r.covered].sort()).toEqual(['GET /dns/v1/projects/{project}/managedZones/{managedZone}/rrsets', 'POST /dns/v1/projects/{project}/managedZones/{managedZone}/changes'])
  })

  test('a body of the wrong shape is a violation: a TTL as text, rrdatas as one string, a status out of its enum', () => {
    expect(google.check([rrsets([{ ...a, ttl: '300' }])]).violations).toEqual(['GET /dns/v1/projects/{project}/managedZones/{managedZone}/rrsets (200): response /rrsets/*/ttl must be integer'])
    const change = { method: 'POST', path: '/dns/v1/projects/p1/managedZones/z1/changes', query: {}, requestBody: JSON.stringify({ additions: [{ ...a, rrdatas: '198.51.100.1' }] }), status: 200, responseBody: JSON.stringify({ kind: 'dns#change', status: 'applied' }) }
    expect(google.check([change]).violations.sort()).toEqual([
      'POST /dns/v1/projects/{project}/managedZones/{managedZone}/changes (200): request /additions/*/rrdatas must be array',
      'POST /dns/v1/projects/{project}/managedZones/{managedZone}/changes (200): response /status must be equal to one of the allowed values',
    ])
  })

  test('errors are not in a discovery document, and a method it does not have is not an operation', () => {
    expect(google.check([{ ...rrsets([]), status: 404, responseBody: '{"error":{"code":404}}' }]).violations).toEqual(['GET /dns/v1/projects/{project}/managedZones/{managedZone}/rrsets (404): status 404 is not documented'])
    expect(google.check([{ ...rrsets([]), path: '/dns/v1/projects/p1/managedZones/z1/rrsets/www.example.com./A' }]).violations).toEqual(['GET /dns/v1/projects/p1/managedZones/z1/rrsets/www.example.com./A (200): not an operation of the document'])
  })

  test('trimming keeps the methods asked for and the schemas they reach, without their prose', () => {
    const doc = fixture('google-cloud-dns')
    doc.resources.policies = { methods: { list: { id: 'dns.policies.list', path: 'dns/v1/projects/{project}/policies', httpMethod: 'GET', description: 'Enumerates all Policies.', response: { $ref: 'PoliciesListResponse' } } } }
    doc.schemas.PoliciesListResponse = { id: 'PoliciesListResponse', type: 'object', properties: { description: { type: 'string', description: 'a property called description stays' } } }
    doc.schemas.Change.description = 'A Change represents a set of ResourceRecordSet additions and deletions.'
    const trimmed = trimDiscovery(doc, ['dns.policies.list'])
    expect(Object.keys(trimmed.resources)).toEqual(['policies'])
    expect(trimmed.schemas).toEqual({ PoliciesListResponse: { id: 'PoliciesListResponse', type: 'object', properties: { description: { type: 'string' } } } })
    expect(trimDiscovery(doc, ['dns.managedZones.list', 'dns.resourceRecordSets.list', 'dns.changes.create'])).toEqual(fixture('google-cloud-dns'))
    expect(() => trimDiscovery(doc, ['dns.projects.get'])).toThrow('dns.projects.get is not a method of the document')
  })
})
