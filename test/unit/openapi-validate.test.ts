// The OpenAPI conformance check catches what it is there to catch: a request body or a response body
// that the provider's published document does not allow, an undocumented status or path, and a
// missing required query parameter (here against DigitalOcean's and Netlify's documents).
import { describe, test, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
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

  test('Swagger 2 documents under a base path are read the same way', () => {
    const row = { id: 'r1', hostname: 'www.example.com', type: 'A', value: '198.51.100.1', ttl: 3600, priority: 0, dns_zone_id: 'z1', site_id: 's1', flag: 0, tag: '', managed: false }
    expect(netlify.check([{ method: 'GET', path: '/api/v1/dns_zones/z1/dns_records', query: {}, requestBody: '', status: 200, responseBody: JSON.stringify([row]) }]).violations).toEqual([])
    const bad = netlify.check([{ method: 'GET', path: '/api/v1/dns_zones/z1/dns_records', query: {}, requestBody: '', status: 200, responseBody: JSON.stringify([{ ...row, ttl: '3600' }]) }])
    expect(bad.violations).toEqual([expect.stringContaining('/*/ttl must be integer')])
  })
})
