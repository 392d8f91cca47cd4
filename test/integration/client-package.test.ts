// packages/client against a real Portico listening on loopback: named types from the served document,
// an Idempotency-Key on the operations that take one (the same key on a retry, so the write is done
// once), retries that wait out Retry-After, typed errors by code, async iteration over cursor pages,
// a request timeout, and the webhook verifier (signatures through a secret rotation's overlap, stale
// timestamps, events typed by `type`). The generated files are what the served document generates.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  Portico,
  PorticoConnectionError,
  PorticoError,
  isPorticoError,
  verifyWebhook,
  isEventOf,
  WebhookVerificationError,
  type Connection,
  type PorticoEvent,
  type Fetch,
  type ValidationIssue,
  type components,
} from '../../packages/client/src/index.ts'
import { generate } from '../../packages/client/scripts/generate.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { sweepDue } from '../../src/jobs/verify-sweep.ts'
import { deliverAll } from '../../src/domain/webhook-delivery.ts'

let p: TestPortico
let ws: Workspace
let server: ReturnType<typeof Bun.serve>
let baseUrl = ''
const run = Date.now().toString(36)

beforeAll(async () => {
  p = await startPortico({ WEBHOOK_ALLOW_LOOPBACK: '1' })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => p.handle(req, '127.0.0.1') })
  baseUrl = `http://127.0.0.1:${server.port}`
  ws = await provision(p, { environment: 'test' })
})

afterAll(async () => {
  server?.stop(true)
  await p?.close()
})

/** A fetch that notes each request's method, path and headers, and may stand in for an answer. */
function spy(stand?: (n: number, url: string) => Response | 'drop' | undefined) {
  const seen: { method: string; path: string; headers: Record<string, string> }[] = []
  const f: Fetch = async (url, init) => {
    seen.push({ method: String(init.method), path: new URL(url).pathname, headers: { ...(init.headers as Record<string, string>) } })
    const instead = stand?.(seen.length, url)
    if (instead instanceof Response) return instead
    const res = await fetch(url, init)
    // The answer is lost on the way back: the server did the work, the caller saw a network failure.
    if (instead === 'drop') throw new TypeError('network connection lost')
    return res
  }
  return { seen, fetch: f }
}

describe('the client', () => {
  test('creates and reads a connection with named types; the server saw an Idempotency-Key', async () => {
    const s = spy()
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl, fetch: s.fetch })
    const created: Connection = await portico.connections.create({ domain: `a${run}.live.sandbox.example`, end_user_ref: 'cust_1' })
    expect(created.status).toBe('pending')
    const again: Connection = await portico.connections.get(created.id)
    expect(again.domain).toBe(`a${run}.live.sandbox.example`)
    expect(s.seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/)
    // A read takes no key.
    expect(s.seen[1]!.headers['idempotency-key']).toBeUndefined()
  })

  test('a write whose answer was lost is sent again with the same key, and done once', async () => {
    const s = spy((n) => (n === 1 ? 'drop' : undefined))
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl, fetch: s.fetch })
    const domain = `b${run}.delayed.sandbox.example`
    const c = await portico.connections.create({ domain, end_user_ref: 'cust_2' })
    expect(s.seen.length).toBe(2)
    expect(s.seen[1]!.headers['idempotency-key']).toBe(s.seen[0]!.headers['idempotency-key']!)
    const all = await p.api('GET', `/v1/connections?domain=${domain}`, { token: ws.apiKey })
    expect(all.body.connections.map((x: { id: string }) => x.id)).toEqual([c.id])
  })

  test('a 429 is waited out for its Retry-After, then the call goes through', async () => {
    const s = spy((n) => (n === 1 ? Response.json({ code: 'rate_limited', title: 'Too many requests' }, { status: 429, headers: { 'retry-after': '1' } }) : undefined))
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl, fetch: s.fetch })
    const t0 = performance.now()
    const list = await portico.request('get', '/webhooks')
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950)
    expect(Array.isArray(list.webhooks)).toBe(true)
    expect(s.seen.length).toBe(2)
  })

  test('a Retry-After longer than the client waits is answered as the typed error', async () => {
    const s = spy(() => Response.json({ code: 'rate_limited', title: 'Too many requests' }, { status: 429, headers: { 'retry-after': '3600' } }))
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl, fetch: s.fetch })
    const err = await portico.request('get', '/webhooks').catch((e: unknown) => e)
    expect(isPorticoError(err, 'rate_limited')).toBe(true)
    expect((err as PorticoError).retryAfterMs).toBe(3_600_000)
    expect(s.seen.length).toBe(1)
  })

  test('errors are typed by code, with the server\'s title, details and request id', async () => {
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl })
    const err = await portico.connections.get('con_00000000000000000000000000').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PorticoError)
    const e = err as PorticoError
    expect([e.status, e.code, e.is('not_found')]).toEqual([404, 'not_found', true])
    expect(e.requestId).toBeTruthy()
    const bad = await portico.connections.create({ domain: 'shop.example.com' }).catch((x: unknown) => x)
    expect(isPorticoError(bad, 'invalid_request') && !Array.isArray(bad.details) && bad.details?.reason).toBe('test_domain_required')
    const wrongKey = await new Portico({ apiKey: 'ptc_test_wrong', baseUrl, maxRetries: 0 }).connections.get('con_x').catch((x: unknown) => x)
    expect((wrongKey as PorticoError).code).toBe('unauthorized')
  })

  test('details are what the document declares: a list of issues for a malformed request, an object with a reason otherwise', async () => {
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl })
    const malformed = await portico.connections.create({ domain: 42 as unknown as string }).catch((x: unknown) => x)
    expect(isPorticoError(malformed, 'invalid_request')).toBe(true)
    const details = (malformed as PorticoError).details
    expect(Array.isArray(details)).toBe(true)
    if (Array.isArray(details)) {
      // Typed as the document's list: no cast needed to read an issue.
      const issue: ValidationIssue = details[0]!
      expect([issue.in, issue.field, typeof issue.message]).toEqual(['body', 'domain', 'string'])
    }
    // Test mode's own invalid_request (a domain that is not a test domain) is the object shape, with its reason.
    const notTest = await portico.connections.create({ domain: 'shop.example.com' }).catch((x: unknown) => x)
    const d = (notTest as PorticoError).details
    expect(Array.isArray(d)).toBe(false)
    if (d && !Array.isArray(d)) expect(d.reason).toBe('test_domain_required')
    // The type is the served document's, not a hand-written one.
    const same: [PorticoError['details']] extends [components['schemas']['Error']['details']] ? ([components['schemas']['Error']['details']] extends [PorticoError['details']] ? true : false) : false = true
    expect(same).toBe(true)
  })

  test('a path served at the root (not under /v1) is called there', async () => {
    const health = await new Portico({ apiKey: ws.apiKey, baseUrl }).request('get', '/healthz')
    expect(health.status).toBe('ok')
  })

  test('a cursor-paged list is one async iteration over every page', async () => {
    const mine: string[] = []
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl })
    for (let i = 0; i < 5; i++) mine.push((await portico.connections.create({ domain: `p${i}${run}.setup-incomplete.sandbox.example`, end_user_ref: `pager${run}` })).id)
    const s = spy()
    const paged = new Portico({ apiKey: ws.apiKey, baseUrl, fetch: s.fetch })
    const seen: string[] = []
    for await (const c of paged.connections.list({ end_user_ref: `pager${run}`, limit: 2 })) seen.push(c.id)
    expect(seen).toEqual(mine)
    expect(s.seen.length).toBe(3)
  })

  test('an attempt that gets no answer in time is a timeout error', async () => {
    const pending: ((r: Response) => void)[] = []
    const silent = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Promise<Response>((resolve) => pending.push(resolve)) })
    try {
      const portico = new Portico({ apiKey: ws.apiKey, baseUrl: `http://127.0.0.1:${silent.port}`, timeoutMs: 200, maxRetries: 1 })
      const t0 = performance.now()
      const err = await portico.connections.get('con_x').catch((e: unknown) => e)
      expect(err).toBeInstanceOf(PorticoConnectionError)
      expect((err as PorticoConnectionError).timedOut).toBe(true)
      // Two attempts of 200 ms and a backoff between them, not the default 30 s.
      expect(performance.now() - t0).toBeLessThan(5_000)
      expect(pending.length).toBe(2)
    } finally {
      for (const r of pending) r(new Response(null, { status: 204 }))
      silent.stop(true)
    }
  })
})

/**
 * A loopback proxy in front of Portico that plays one scripted act per request, then passes: the answer's
 * headers then a body that stalls (`hangbody`) or is cut by a dropped connection (`dropbody`), a 200
 * whose body is HTML (`html200`, a captive portal), a proxy's HTML 502 (`html502`).
 */
async function proxy() {
  const plan: string[] = []
  const seen: { method: string; act: string; key: string | undefined }[] = []
  const open = new Set<import('node:net').Socket>()
  const server = createServer(async (req, res) => {
    open.add(req.socket)
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const act = plan.shift() ?? 'pass'
    seen.push({ method: req.method!, act, key: req.headers['idempotency-key'] as string | undefined })
    const forward = async () => {
      const headers = new Headers()
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers.set(k, v)
      const r = await fetch(`${baseUrl}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined })
      return { status: r.status, body: Buffer.from(await r.arrayBuffer()) }
    }
    if (act === 'html502') return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>')
    if (act === 'html200') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>captive portal</html>')
    const f = await forward()
    if (act === 'pass') return void res.writeHead(f.status, { 'content-type': 'application/json' }).end(f.body)
    // Headers and the first bytes, promising more than is sent.
    res.writeHead(f.status, { 'content-type': 'application/json', 'content-length': String(f.body.length + 10) })
    res.write(f.body.subarray(0, 5))
    if (act === 'dropbody') setTimeout(() => req.socket.destroy(), 50)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    plan,
    seen,
    url,
    close: () => {
      for (const s of open) s.destroy()
      server.close()
    },
  }
}

describe('the client, when the answer\'s body goes wrong', () => {
  let px: Awaited<ReturnType<typeof proxy>>
  beforeAll(async () => {
    px = await proxy()
  })
  afterAll(() => px?.close())
  const reset = (...acts: string[]) => {
    px.plan.length = 0
    px.seen.length = 0
    px.plan.push(...acts)
  }

  test('a body that stalls past the timeout is a timed-out connection error, after the retries', async () => {
    reset('hangbody', 'hangbody')
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl: px.url, timeoutMs: 300, maxRetries: 1 })
    const err = await portico.request('get', '/webhooks').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PorticoConnectionError)
    expect((err as PorticoConnectionError).timedOut).toBe(true)
    expect(px.seen.map((s) => s.act)).toEqual(['hangbody', 'hangbody'])
    // Once the stall is over, the call goes through.
    reset('hangbody')
    const list = await portico.request('get', '/webhooks')
    expect(Array.isArray(list.webhooks)).toBe(true)
    expect(px.seen.length).toBe(2)
  })

  test('a connection dropped mid-body is retried: a read goes through, a keyed write is done once', async () => {
    reset('dropbody')
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl: px.url })
    const list = await portico.request('get', '/webhooks')
    expect(Array.isArray(list.webhooks)).toBe(true)
    expect(px.seen.map((s) => s.act)).toEqual(['dropbody', 'pass'])
    reset('dropbody')
    const domain = `mid${run}.delayed.sandbox.example`
    const c = await portico.connections.create({ domain })
    expect(px.seen.length).toBe(2)
    expect(px.seen[1]!.key).toBe(px.seen[0]!.key!)
    const all = await p.api('GET', `/v1/connections?domain=${domain}`, { token: ws.apiKey })
    expect(all.body.connections.map((x: { id: string }) => x.id)).toEqual([c.id])
    // Dropped on every attempt: a connection error, not a raw one.
    reset('dropbody', 'dropbody')
    const err = await new Portico({ apiKey: ws.apiKey, baseUrl: px.url, maxRetries: 1 }).request('get', '/webhooks').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PorticoConnectionError)
    expect((err as PorticoConnectionError).timedOut).toBe(false)
  })

  test('a 200 whose body is not JSON is retried like a lost answer, then a connection error', async () => {
    reset('html200')
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl: px.url, maxRetries: 1 })
    expect(Array.isArray((await portico.request('get', '/webhooks')).webhooks)).toBe(true)
    expect(px.seen.length).toBe(2)
    reset('html200', 'html200')
    const err = await portico.request('get', '/webhooks').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PorticoConnectionError)
    expect((err as PorticoConnectionError).timedOut).toBe(false)
    expect((err as Error).message).toContain('not JSON (text/html)')
    expect(px.seen.length).toBe(2)
  })

  test('a proxy\'s HTML 502 is retried, then answered as unexpected_response, not as Portico\'s own code', async () => {
    reset('html502', 'html502')
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl: px.url, maxRetries: 1 })
    const err = await portico.request('get', '/webhooks').catch((e: unknown) => e)
    expect(isPorticoError(err, 'unexpected_response')).toBe(true)
    const e = err as PorticoError<'unexpected_response'>
    expect(e.status).toBe(502)
    expect(e.title).not.toContain('<html>')
    expect(e.details).toMatchObject({ status: 502, content_type: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' })
    expect(px.seen.length).toBe(2)
  })
})

describe('the webhook verifier', () => {
  const deliveries: { body: string; headers: Headers }[] = []
  let receiver: ReturnType<typeof Bun.serve>
  let hook: { id: string; secret: string }
  let liveId = ''

  beforeAll(async () => {
    receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        deliveries.push({ body: await req.text(), headers: req.headers })
        return new Response(null, { status: 204 })
      },
    })
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl })
    const w = await portico.webhooks.create({ url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['connection.created', 'connection.live'] })
    hook = { id: w.id, secret: w.secret! }
    liveId = (await portico.connections.create({ domain: `w${run}.live.sandbox.example` })).id
    await deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })
  })

  afterAll(() => receiver?.stop(true))

  const deliver = () => deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })

  test('answers the event typed by its type', async () => {
    const d = deliveries.find((x) => JSON.parse(x.body).connection_id === liveId)!
    const e: PorticoEvent = await verifyWebhook(d.body, d.headers, { secret: hook.secret })
    expect(e.type).toBe('connection.created')
    if (isEventOf(e, 'connection.created')) expect(e.data.records.length).toBeGreaterThan(0)
    // A plain object of headers (as Node's http gives them) works the same.
    const plain = Object.fromEntries(d.headers)
    expect((await verifyWebhook(d.body, plain, { secret: hook.secret })).id).toBe(e.id)
  })

  test('refuses a changed body, another secret, a stale timestamp and missing headers', async () => {
    const d = deliveries[0]!
    const reason = (x: Promise<unknown>) => x.then(() => 'accepted', (err: WebhookVerificationError) => err.reason)
    expect(await reason(verifyWebhook(d.body.replace('"type"', '"type" '), d.headers, { secret: hook.secret }))).toBe('bad_signature')
    expect(await reason(verifyWebhook(d.body, d.headers, { secret: 'whsec_' + btoa('another secret of 32 bytes long!') }))).toBe('bad_signature')
    const later = new Date(Date.now() + 10 * 60_000)
    expect(await reason(verifyWebhook(d.body, d.headers, { secret: hook.secret, now: later }))).toBe('stale_timestamp')
    expect(await reason(verifyWebhook(d.body, new Headers(), { secret: hook.secret }))).toBe('missing_headers')
  })

  /** Signs `body` as Portico does (Standard Webhooks: HMAC-SHA256 of `id.timestamp.body`). */
  async function signed(body: string, ts: number, id = 'evt_forged') {
    const key = await crypto.subtle.importKey('raw', Buffer.from(hook.secret.slice('whsec_'.length), 'base64'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    const sig = Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${ts}.${body}`))).toString('base64')
    return new Headers({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${sig}` })
  }
  const outcome = (x: Promise<unknown>) => x.then(() => 'accepted', (err: Error) => (err instanceof WebhookVerificationError ? err.reason : `${err.name}: ${err.message}`))

  test('a correctly signed body that is not a JSON object is bad_payload', async () => {
    const ts = Math.floor(Date.now() / 1000)
    for (const body of ['null', '[]', '42', '"evt"']) {
      expect({ body, got: await outcome(verifyWebhook(body, await signed(body, ts), { secret: hook.secret })) }).toEqual({ body, got: 'bad_payload' })
    }
  })

  test('an empty secret (not known yet) is bad_signature, not an error of Web Crypto', async () => {
    const d = deliveries[0]!
    for (const secret of ['', [''], [], 'whsec_']) {
      expect({ secret, got: await outcome(verifyWebhook(d.body, d.headers, { secret })) }).toEqual({ secret, got: 'bad_signature' })
    }
  })

  test('toleranceSeconds 0 accepts a timestamp of the same second, and refuses the next', async () => {
    const d = deliveries[0]!
    const ts = Number(d.headers.get('webhook-timestamp'))
    expect(await outcome(verifyWebhook(d.body, d.headers, { secret: hook.secret, toleranceSeconds: 0, now: new Date(ts * 1000 + 999) }))).toBe('accepted')
    expect(await outcome(verifyWebhook(d.body, d.headers, { secret: hook.secret, toleranceSeconds: 0, now: new Date(ts * 1000 + 1000) }))).toBe('stale_timestamp')
  })

  test('through a secret rotation\'s overlap a delivery verifies with the old secret, the new one, or both', async () => {
    const portico = new Portico({ apiKey: ws.apiKey, baseUrl })
    const rotated = await portico.webhooks.rotateSecret(hook.id, { expire_previous_in: 3600 })
    const [oldSecret, newSecret] = [hook.secret, rotated.secret!]
    expect(newSecret).not.toBe(oldSecret)
    const before = deliveries.length
    await sweepDue({ db: p.db, dns: p.services.dns, clock: p.clock })
    await deliver()
    const d = deliveries.slice(before).find((x) => JSON.parse(x.body).type === 'connection.live')!
    expect(d.headers.get('webhook-signature')!.split(' ').length).toBe(2)
    for (const secret of [oldSecret, newSecret, [newSecret, oldSecret]]) {
      const e = await verifyWebhook(d.body, d.headers, { secret })
      expect(e.type).toBe('connection.live')
      if (e.type === 'connection.live') expect(e.data.records_propagated.length).toBeGreaterThan(0)
    }
  })
})

describe('the generated types', () => {
  test('are what the served document generates now', async () => {
    const doc = await (await fetch(`${baseUrl}/v1/openapi.json`)).json()
    const files = await generate(doc as Record<string, unknown>)
    for (const [name, text] of Object.entries(files)) {
      expect({ name, same: readFileSync(join(import.meta.dir, '../../packages/client/src/generated', name), 'utf8') === text }).toEqual({ name, same: true })
    }
  })
})
