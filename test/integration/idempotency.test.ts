// Idempotency-Key from the integrator's side, against the real handler and PostgreSQL: retries replay,
// a reused key with another body creates nothing, concurrent requests with one key run once, keys
// belong to the credential that sent them and expire after 24 hours; and a domain already connected
// for another end user says so.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let zone: string
let n = 0
const fresh = (label = 'd') => `${label}${++n}-${Date.now().toString(36)}.${zone}`

beforeAll(async () => {
  pdns = await startPdns()
  zone = `idem${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

const connect = (key: string, body: Record<string, unknown>, token = ws.apiKey) =>
  p.api('POST', '/v1/connections', { token, body, headers: { 'idempotency-key': key } })

async function connectionsOf(appId: string): Promise<number> {
  const [r] = await p.db`select count(*)::int as n from connections where application_id = ${appId} and disconnected_at is null`
  return r.n
}

describe('Idempotency-Key', () => {
  test('50 different bodies with one key: one connection, 422 idempotency_key_reused for the other 49', async () => {
    const w = await provision(p)
    const key = `k-${crypto.randomUUID()}`
    const answers = await Promise.all(Array.from({ length: 50 }, () => connect(key, { domain: fresh('many') }, w.apiKey)))
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 422)).toHaveLength(49)
    for (const a of answers.filter((a) => a.status === 422)) expect(a.body.code).toBe('idempotency_key_reused')
    expect(await connectionsOf(w.appId)).toBe(1)
    // Afterwards too: the key stays bound to the first request.
    const late = await connect(key, { domain: fresh('late') }, w.apiKey)
    expect(late.status).toBe(422)
    expect(await connectionsOf(w.appId)).toBe(1)
  })

  test('the same key and body, sent 20 times at once, runs once; a retry replays the first answer', async () => {
    const w = await provision(p)
    const key = `k-${crypto.randomUUID()}`
    const body = { domain: fresh('same'), end_user_ref: 'cust-1' }
    const answers = await Promise.all(Array.from({ length: 20 }, () => connect(key, body, w.apiKey)))
    const created = answers.filter((a) => a.status === 201)
    // One ran; the others either waited for nothing (409 in use, with Retry-After) or were replayed.
    for (const a of answers) {
      if (a.status === 409) {
        expect(a.body.code).toBe('idempotency_key_in_use')
        expect(a.headers.get('retry-after')).toBe('1')
      } else {
        expect(a.status).toBe(201)
      }
    }
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1)
    expect(await connectionsOf(w.appId)).toBe(1)
    const first = created.find((a) => a.headers.get('idempotent-replayed') === null)!
    const retry = await connect(key, body, w.apiKey)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(retry.body).toEqual(first.body)
    expect(Object.keys(retry.body)).toEqual(Object.keys(first.body))
    // Fields in another order are the same request.
    const reordered = await connect(key, { end_user_ref: 'cust-1', domain: body.domain }, w.apiKey)
    expect(reordered.status).toBe(201)
    expect(reordered.body.id).toBe(first.body.id)
  })

  test('keys expire after 24 hours; then the key is free for a new request', async () => {
    const w = await provision(p)
    const key = `k-${crypto.randomUUID()}`
    expect((await connect(key, { domain: fresh('exp') }, w.apiKey)).status).toBe(201)
    p.clock.advance(23 * 3600_000)
    try {
      expect((await connect(key, { domain: fresh('exp') }, w.apiKey)).status).toBe(422)
      p.clock.advance(3600_000 + 1000)
      expect((await connect(key, { domain: fresh('exp') }, w.apiKey)).status).toBe(201)
      expect(await connectionsOf(w.appId)).toBe(2)
    } finally {
      p.clock.reset()
    }
  })

  test('an error answer does not bind the key: corrected, the request goes through', async () => {
    const w = await provision(p)
    const key = `k-${crypto.randomUUID()}`
    const bad = await connect(key, { domain: `nowhere-${Date.now().toString(36)}.invalid` }, w.apiKey)
    expect(bad.status).toBeGreaterThanOrEqual(400)
    const good = await connect(key, { domain: fresh('fix') }, w.apiKey)
    expect(good.status).toBe(201)
    expect(await connectionsOf(w.appId)).toBe(1)
  })

  test('a key belongs to its credential: another key, or another widget token, is another request', async () => {
    const w = await provision(p)
    const key = `k-${crypto.randomUUID()}`
    const hook = { url: 'https://hooks.example.com/idem', events: [] }
    const first = await p.api('POST', '/v1/webhooks', { token: w.apiKey, body: hook, headers: { 'idempotency-key': key } })
    expect(first.status).toBe(201)
    const again = await p.api('POST', '/v1/webhooks', { token: w.apiKey, body: hook, headers: { 'idempotency-key': key } })
    expect(again.body).toEqual(first.body)
    // Another API key of the same workspace sending the same key and body never sees the first secret.
    const second = await p.api('POST', `/v1/applications/${w.appId}/keys`, { token: w.apiKey, body: { role: 'admin' } })
    const other = await p.api('POST', '/v1/webhooks', { token: second.body.key, body: hook, headers: { 'idempotency-key': key } })
    expect(other.status).toBe(201)
    expect(other.headers.get('idempotent-replayed')).toBeNull()
    expect(other.body.id).not.toBe(first.body.id)
    expect(other.body.secret).not.toBe(first.body.secret)
    expect(JSON.stringify(other.body)).not.toContain(first.body.secret)
    // Two widget tokens of one application: each its own key space.
    const domain = fresh('wid')
    const t1 = await widgetToken(p, w)
    const t2 = await widgetToken(p, w)
    const a = await connect(key, { domain }, t1)
    const b = await connect(key, { domain, end_user_ref: 'someone' }, t2)
    expect(a.status).toBe(201)
    expect(b.status).toBe(409)
  })

  test('a malformed key is 400; the header is documented on every retryable POST and on no read', async () => {
    const bad = await connect('with space', { domain: fresh('mal') })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('invalid_request')
    const doc = (await p.api('GET', '/v1/openapi.json')).body
    const header = (path: string, method: string) => (doc.paths[path][method].parameters ?? []).find((x: { name: string }) => x.name === 'Idempotency-Key')
    for (const [path, method] of [['/connections', 'post'], ['/webhooks', 'post'], ['/applications/{id}/keys', 'post'], ['/connections:bulk', 'post'], ['/tenants:provision', 'post']] as const) {
      expect({ path, h: header(path, method)?.in }).toEqual({ path, h: 'header' })
      expect(Object.keys(doc.paths[path][method].responses)).toContain('422')
    }
    for (const [path, method] of [['/connections', 'get'], ['/domains:check', 'post'], ['/tokens', 'post']] as const) {
      expect({ path, h: header(path, method) }).toEqual({ path, h: undefined })
    }
  })
})

describe('a domain already connected for another end user', () => {
  test('409 conflict with the existing connection id, not the other end user\'s connection; without end_user_ref it is answered', async () => {
    const domain = fresh('shared')
    const first = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, end_user_ref: 'alice' } })
    expect(first.status).toBe(201)
    const same = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, end_user_ref: 'alice' } })
    expect(same.status).toBe(200)
    expect(same.body.id).toBe(first.body.id)
    const other = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, end_user_ref: 'bob' } })
    expect(other.status).toBe(409)
    expect(other.body).toMatchObject({ code: 'conflict', details: { connection_id: first.body.id, reason: 'end_user_mismatch' } })
    expect(JSON.stringify(other.body)).not.toContain('alice')
    const plain = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
    expect(plain.status).toBe(200)
    expect(plain.body.id).toBe(first.body.id)
    // In a batch, per domain.
    const bulk = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: [domain, fresh('bulk')], end_user_ref: 'bob' } })
    expect(bulk.body.results[0]).toMatchObject({ domain, status: 'failed', code: 'conflict', connection_id: first.body.id })
    expect(bulk.body.results[1].status).toBe('connected')
    const mine = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: [domain], end_user_ref: 'alice' } })
    expect(mine.body.results[0]).toMatchObject({ status: 'already', connection_id: first.body.id })
    // 50 end users racing for one domain: one wins, every other is told.
    const raced = fresh('race')
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: raced, end_user_ref: `user-${i}` } })))
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 409)).toHaveLength(49)
  })
})
