// The requests that used to answer 500, and the smaller holes found beside them: each is now a 4xx
// in the envelope, naming what was wrong, and nothing reaches the database that it cannot hold.
import { describe, test, expect, beforeAll } from 'bun:test'
import { provision, sharedPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
let ws: Workspace
let other: Workspace

beforeAll(async () => {
  p = await sharedPortico()
  ws = await provision(p)
  other = await provision(p)
})

/** A request with a raw body and content type, as a hostile or careless client sends it. */
async function raw(method: string, path: string, body: BodyInit | undefined, headers: Record<string, string>) {
  const res = await p.handle(new Request(`http://portico.test${path}`, { method, body, headers: { authorization: `Bearer ${ws.apiKey}`, ...headers } }))
  return { status: res.status, body: (await res.json()) as any }
}

describe('strings PostgreSQL cannot store', () => {
  test('NUL in a path id is 404, as an unknown id', async () => {
    for (const [method, path] of [['GET', '/v1/connections/%00'], ['GET', '/v1/connections/a%00b/records'], ['DELETE', '/v1/webhooks/%00'], ['DELETE', '/v1/agent-grants/%00']] as const) {
      const r = await p.api(method, path, { token: ws.apiKey })
      expect(r.status).toBe(404)
      expect(r.body).toMatchObject({ code: 'not_found', title: expect.any(String) })
    }
  })

  test('NUL in a body string is 400 naming the field, even where no credential is needed', async () => {
    const t = await p.api('POST', '/v1/tokens', { body: { application_id: 'a\u0000' } })
    expect(t.status).toBe(400)
    expect(t.body.code).toBe('invalid_request')
    expect(t.body.details[0]).toMatchObject({ in: 'body', field: 'application_id' })
    const a = await p.api('POST', '/v1/applications', { token: ws.apiKey, body: { name: 'a\u0000b' } })
    expect(a.status).toBe(400)
    expect(a.body.details[0].field).toBe('name')
  })

  test('an unpaired surrogate in a body, or NUL in a query, is 400 naming it', async () => {
    const r = await p.api('POST', '/v1/applications', { token: ws.apiKey, body: { name: 'x\ud800' } })
    expect(r.status).toBe(400)
    expect(r.body.details[0].field).toBe('name')
    for (const q of ['action', 'actor_id', 'app_id']) {
      const res = await p.api('GET', `/v1/audit-log?${q}=a%00`, { token: ws.apiKey })
      expect(res.status).toBe(400)
      expect(res.body.details[0]).toMatchObject({ in: 'query', field: q })
    }
  })

  test('agent registration with an unpaired surrogate in client_name is invalid_client_metadata', async () => {
    const res = await p.app.handle(
      new Request('http://portico.test/v1/oauth/agent/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"client_name":"Agent \\ud800","redirect_uris":["http://127.0.0.1:9/cb"]}',
      }),
    )
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client_metadata')
  })

  test('a cursor that decodes to NUL is 400 naming the cursor, on the audit log and the deliveries', async () => {
    for (const path of ['/v1/audit-log?cursor=__4AAYA', '/v1/webhook-deliveries?cursor=__4AAYA', '/v1/connections?cursor=AA']) {
      const r = await p.api('GET', path, { token: ws.apiKey })
      expect(r.status).toBe(400)
      expect(r.body).toMatchObject({ code: 'invalid_request' })
      expect(r.body.details[0].field).toBe('cursor')
    }
  })
})

describe('the smaller holes', () => {
  test('query integers are integers', async () => {
    for (const v of ['1.5', '0x10', '1e2', ' 7']) {
      const r = await p.api('GET', `/v1/audit-log?limit=${encodeURIComponent(v)}`, { token: ws.apiKey })
      expect(r.status).toBe(400)
      expect(r.body.details[0]).toMatchObject({ in: 'query', field: 'limit', message: 'must be an integer' })
    }
    expect((await p.api('GET', '/v1/audit-log?limit=7', { token: ws.apiKey })).status).toBe(200)
  })

  test('a body declared as text or a form is 415 in the envelope; JSON with a charset is fine', async () => {
    const json = JSON.stringify({ name: 'Shop' })
    const text = await raw('POST', '/v1/applications', json, { 'content-type': 'text/plain' })
    expect(text.status).toBe(415)
    expect(text.body).toMatchObject({ code: 'unsupported_media_type', title: expect.any(String) })
    expect((await raw('POST', '/v1/applications', 'name=Shop', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415)
    expect((await raw('POST', '/v1/applications', json, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(201)
  })

  test('a body that is not UTF-8 is 400, not stored with replacement characters', async () => {
    const bytes = new Uint8Array([...Buffer.from('{"name":"caf'), 0xe9, ...Buffer.from('"}')])
    const r = await raw('POST', '/v1/applications', bytes, { 'content-type': 'application/json' })
    expect(r.status).toBe(400)
    expect(r.body.title).toContain('UTF-8')
  })

  test('another tenant’s app_id filter is 404 on every list, as a foreign id is', async () => {
    for (const path of ['/v1/connections', '/v1/connections:count', '/v1/webhooks', '/v1/webhook-deliveries', '/v1/sell/orders', '/v1/monitor/domains']) {
      const r = await p.api('GET', `${path}?app_id=${other.appId}`, { token: ws.apiKey })
      expect(`${path} ${r.status}`).toBe(`${path} 404`)
      expect(r.body.code).toBe('not_found')
      expect((await p.api('GET', `${path}?app_id=${ws.appId}`, { token: ws.apiKey })).status).toBe(200)
    }
  })
})
