// Webhooks end to end: real HTTP receivers on loopback verify every delivery with the
// `standardwebhooks` package; attempts are visible in the delivery log; the SSRF guard refuses
// private targets; a killed worker loses nothing.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { spawn } from 'bun'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { testDatabaseUrl } from '../harness/db.ts'
import { deliverAll } from '../../src/domain/webhook-delivery.ts'
import { verifyWebhook } from '../../src/adapters/webhook-signing.ts'
import { eventsAlong } from '../../src/domain/transitions.ts'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let zone: string
const EDGE = 'edge.portico.test'

interface Received {
  headers: Record<string, string>
  body: string
}

/** A loopback receiver; `answer` decides each response. */
function receiver(answer: (n: number, r: Received) => Response | Promise<Response> = () => new Response('ok')) {
  const got: Received[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const r = { headers: Object.fromEntries(req.headers), body: await req.text() }
      got.push(r)
      return answer(got.length, r)
    },
  })
  return { got, url: `http://127.0.0.1:${server.port}/hooks`, stop: () => server.stop(true) }
}

const deliver = () => deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })

beforeAll(async () => {
  pdns = await startPdns()
  zone = `wh${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  await pdns.setRecords(`evil.${zone}`, 'A', ['10.0.0.1'])
  await pdns.setRecords(`meta.${zone}`, 'A', ['169.254.169.254'])
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

describe('endpoints', () => {
  test('create returns the secret once; lists omit it; registering the same URL again is a new endpoint with its own secret', async () => {
    const rx = receiver()
    try {
      const c = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url, events: ['connection.live', 'nothing.real'] } })
      expect(c.status).toBe(201)
      expect(c.body.id).toStartWith('whk_')
      expect(c.body.secret).toStartWith('whsec_')
      expect(c.body.events).toEqual(['connection.live', 'nothing.real'])
      const again = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url, events: ['nothing.real', 'connection.live'] } })
      expect(again.status).toBe(201)
      expect(again.body.id).not.toBe(c.body.id)
      expect(again.body.secret).toStartWith('whsec_')
      expect(again.body.secret).not.toBe(c.body.secret)
      await p.api('DELETE', `/v1/webhooks/${again.body.id}`, { token: ws.apiKey })
      const list = await p.api('GET', '/v1/webhooks', { token: ws.apiKey })
      expect(JSON.stringify(list.body)).not.toContain(c.body.secret)
      expect(list.body.webhooks.map((w: { id: string }) => w.id)).toContain(c.body.id)
      const del = await p.api('DELETE', `/v1/webhooks/${c.body.id}`, { token: ws.apiKey })
      expect(del.body).toEqual({ id: c.body.id, deleted: true })
      expect((await p.api('DELETE', `/v1/webhooks/${c.body.id}`, { token: ws.apiKey })).status).toBe(200)
    } finally {
      rx.stop()
    }
  })

  test('an application-scoped widget token manages its own application only; end-user tokens get 403', async () => {
    const other = await provision(p)
    for (const extra of [{}, { domain: `shop.${zone}` }, { domain: `shop.${zone}`, scope: 'app' }]) {
      const t = await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, ...extra } })
      const r = await p.api('POST', '/v1/webhooks', { token: t.body.token, body: { url: 'https://hooks.example.com/x' } })
      expect({ extra, status: r.status, code: r.body.code }).toEqual({ extra, status: 403, code: 'forbidden' })
    }
    const mine = await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, scope: 'app' } })
    const c = await p.api('POST', '/v1/webhooks', { token: mine.body.token, body: { url: 'https://hooks.example.com/x' } })
    expect(c.status).toBe(201)
    expect(c.body.application_id).toBe(ws.appId)
    expect((await p.api('POST', '/v1/webhooks', { token: mine.body.token, body: { url: 'https://hooks.example.com/x', application_id: other.appId } })).status).toBe(404)
    const theirs = await p.api('POST', '/v1/webhooks', { token: other.apiKey, body: { url: 'https://hooks.example.com/y' } })
    expect((await p.api('DELETE', `/v1/webhooks/${theirs.body.id}`, { token: mine.body.token })).status).toBe(404)
    await p.api('DELETE', `/v1/webhooks/${c.body.id}`, { token: ws.apiKey })
  })

  test('registration refuses non-https and private, loopback (without the setting) and metadata literals', async () => {
    const strict = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress })
    try {
      const w = await provision(strict)
      for (const url of ['http://hooks.example.com/x', 'https://10.0.0.1/x', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/x', 'http://[::1]:8080/x', 'https://2130706433/x', 'https://0x7f.1/x', 'not a url']) {
        const r = await strict.api('POST', '/v1/webhooks', { token: w.apiKey, body: { url } })
        expect({ url, status: r.status, code: r.body.code }).toEqual({ url, status: 400, code: 'invalid_request' })
      }
    } finally {
      await strict.close()
    }
  })
})

describe('secret rotation', () => {
  // As a receiver with the standardwebhooks rules would check, at the moved clock's time.
  const signedBy = (secret: string, r: Received) => verifyWebhook(secret, r.headers, r.body, Math.floor(p.clock.now().getTime() / 1000))

  test('a new secret is shown once to the API key; the old one signs beside it for a day, or stops at once', async () => {
    const w9 = await provision(p)
    const rx = receiver()
    try {
      const w = await p.api('POST', '/v1/webhooks', { token: w9.apiKey, body: { url: rx.url, events: ['connection.created'] } })
      const appToken = await p.api('POST', '/v1/tokens', { body: { application_id: w9.appId, client_secret: w9.clientSecret, scope: 'app' } })
      const refused = await p.api('POST', `/v1/webhooks/${w.body.id}:rotate-secret`, { token: appToken.body.token })
      expect(refused.status).toBe(403)
      const viewer = await p.api('POST', `/v1/applications/${w9.appId}/keys`, { token: w9.apiKey, body: { role: 'viewer' } })
      expect((await p.api('POST', `/v1/webhooks/${w.body.id}:rotate-secret`, { token: viewer.body.key })).status).toBe(403)
      const other = await provision(p)
      expect((await p.api('POST', `/v1/webhooks/${w.body.id}:rotate-secret`, { token: other.apiKey })).status).toBe(404)

      const r = await p.api('POST', `/v1/webhooks/${w.body.id}:rotate-secret`, { token: w9.apiKey })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ id: w.body.id, url: rx.url })
      expect(r.body.secret).toStartWith('whsec_')
      expect(r.body.secret).not.toBe(w.body.secret)
      const list = await p.api('GET', '/v1/webhooks', { token: w9.apiKey })
      expect(JSON.stringify(list.body)).not.toContain(r.body.secret)

      const connect = async (label: string) => {
        await p.api('POST', '/v1/connections', { token: w9.apiKey, body: { domain: `${label}.${zone}` } })
        await deliver()
        return rx.got[rx.got.length - 1]!
      }
      const during = await connect(`rot1-${Date.now().toString(36)}`)
      expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2)
      expect(signedBy(r.body.secret, during)).toBe(true)
      expect(signedBy(w.body.secret, during)).toBe(true)

      p.clock.advance(24 * 3600_000 + 1000)
      const after = await connect(`rot2-${Date.now().toString(36)}`)
      expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1)
      expect(signedBy(r.body.secret, after)).toBe(true)
      expect(signedBy(w.body.secret, after)).toBe(false)

      const leaked = await p.api('POST', `/v1/webhooks/${w.body.id}:rotate-secret`, { token: w9.apiKey, body: { expire_previous_in: 0 } })
      const now = await connect(`rot3-${Date.now().toString(36)}`)
      expect(signedBy(leaked.body.secret, now)).toBe(true)
      expect(signedBy(r.body.secret, now)).toBe(false)
    } finally {
      p.clock.reset()
      rx.stop()
    }
  })
})

describe('delivery', () => {
  test('connection.created and connection.live arrive signed, with every envelope field', async () => {
    const rx = receiver()
    try {
      const w = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url, events: [] } })
      const domain = `shop.${zone}`
      const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, end_user_ref: 'cust-7' } })
      await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
      await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
      await deliver()
      const verifier = new Webhook(w.body.secret)
      const payloads = rx.got.map((r) => verifier.verify(r.body, r.headers) as Record<string, any>)
      expect(payloads.map((e) => e.type)).toEqual(eventsAlong('created', 'said_added', 'records_resolved'))
      for (const [i, e] of payloads.entries()) {
        expect(rx.got[i]!.headers['webhook-id']).toBe(e.id)
        expect(e.id).toStartWith('evt_')
        expect(e).toMatchObject({ connection_id: c.body.id, application_id: ws.appId, user_id: 'cust-7', domain, subdomain: 'shop', provider: 'powerdns', setup_type: 'manual' })
        expect(Date.parse(e.created_at)).not.toBeNaN()
      }
      const live = payloads.find((e) => e.type === 'connection.live')!
      expect(payloads.find((e) => e.type === 'connection.created')!.propagation_status).toBe('pending')
      expect(live.propagation_status).toBe('success')
      expect(live.data).toEqual({ records_propagated: [{ type: 'CNAME', host: 'shop', value: EDGE }], records_non_propagated: [] })
      await p.api('DELETE', `/v1/webhooks/${w.body.id}`, { token: ws.apiKey })
    } finally {
      rx.stop()
    }
  })

  test('a receiver that fails twice then succeeds gets exactly three attempts, all in the log', async () => {
    const rx = receiver((n) => new Response('nope', { status: n <= 2 ? 500 : 200 }))
    const w2 = await provision(p)
    try {
      await p.api('POST', '/v1/webhooks', { token: w2.apiKey, body: { url: rx.url } })
      const c = await p.api('POST', '/v1/connections', { token: w2.apiKey, body: { domain: `retry.${zone}` } })
      try {
        await deliver()
        expect(rx.got).toHaveLength(1)
        await deliver() // not due yet: backoff
        expect(rx.got).toHaveLength(1)
        p.clock.advance(11_000)
        await deliver()
        expect(rx.got).toHaveLength(2)
        p.clock.advance(61_000)
        await deliver()
        p.clock.advance(3_600_000)
        await deliver()
      } finally {
        p.clock.reset()
      }
      expect(rx.got).toHaveLength(3)
      expect(new Set(rx.got.map((r) => r.headers['webhook-id']))).toEqual(new Set([rx.got[0]!.headers['webhook-id']]))
      const log = await p.api('GET', '/v1/webhook-deliveries?type=connection.created', { token: w2.apiKey })
      expect(log.body.count).toBe(3)
      const rows = [...log.body.deliveries].reverse()
      expect(rows.map((d: any) => [d.attempts, d.status_code, d.delivered])).toEqual([[1, 500, false], [2, 500, false], [3, 200, true]])
      expect(rows[0]).toMatchObject({ event_type: 'connection.created', domain: `retry.${zone}`, url: rx.url, error: 'HTTP 500' })
      expect(rows[0].event_id).toStartWith('evt_')
      void c
    } finally {
      rx.stop()
    }
  })

  test('at most three attempts; 410 disables the endpoint; Retry-After delays; manual replay', async () => {
    const w3 = await provision(p)
    const down = receiver((n) => new Response('busy', { status: 503, headers: n === 1 ? { 'retry-after': '120' } : {} }))
    try {
      await p.api('POST', '/v1/webhooks', { token: w3.apiKey, body: { url: down.url } })
      await p.api('POST', '/v1/connections', { token: w3.apiKey, body: { domain: `busy.${zone}` } })
      try {
        await deliver()
        p.clock.advance(61_000)
        await deliver()
        expect(down.got).toHaveLength(1) // Retry-After: 120 s, not the 10 s backoff
        p.clock.advance(60_000)
        await deliver()
        expect(down.got).toHaveLength(2)
        for (let i = 0; i < 5; i++) {
          p.clock.advance(3_600_000)
          await deliver()
        }
      } finally {
        p.clock.reset()
      }
      expect(down.got).toHaveLength(3)
      const log = await p.api('GET', '/v1/webhook-deliveries', { token: w3.apiKey })
      const last = log.body.deliveries[0]
      const replay = await p.api('POST', `/v1/webhook-deliveries/${last.id}:retry`, { token: w3.apiKey })
      expect(replay.status).toBe(200)
      expect(replay.body).toMatchObject({ attempts: 4, status_code: 503, delivered: false })
      expect(down.got).toHaveLength(4)
    } finally {
      down.stop()
    }

    const gone = receiver(() => new Response('gone', { status: 410 }))
    try {
      const hook = await p.api('POST', '/v1/webhooks', { token: w3.apiKey, body: { url: gone.url } })
      await p.api('POST', '/v1/connections', { token: w3.apiKey, body: { domain: `gone1.${zone}` } })
      await deliver()
      expect(gone.got).toHaveLength(1)
      const list = await p.api('GET', '/v1/webhooks', { token: w3.apiKey })
      const disabled = list.body.webhooks.find((h: { id: string }) => h.id === hook.body.id)
      expect(disabled.disabled_at).not.toBeNull()
      await p.api('POST', '/v1/connections', { token: w3.apiKey, body: { domain: `gone2.${zone}` } })
      await deliver()
      expect(gone.got).toHaveLength(1)
    } finally {
      gone.stop()
    }
  })

  test('a name resolving to a private or metadata address is refused at delivery, and recorded', async () => {
    const w4 = await provision(p)
    const strict = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
    try {
      for (const host of [`evil.${zone}`, `meta.${zone}`]) {
        expect((await strict.api('POST', '/v1/webhooks', { token: w4.apiKey, body: { url: `https://${host}/hook` } })).status).toBe(201)
      }
      await strict.api('POST', '/v1/connections', { token: w4.apiKey, body: { domain: `ssrf.${zone}` } })
      await deliverAll({ db: strict.db, clock: strict.clock, config: strict.config, dns: strict.services.dns })
      const log = await strict.api('GET', '/v1/webhook-deliveries', { token: w4.apiKey })
      expect(log.body.count).toBe(2)
      for (const d of log.body.deliveries) {
        expect(d.delivered).toBe(false)
        expect(d.status_code).toBeNull()
        expect(d.error).toMatch(/refused: .* resolves to a (private|metadata) address/)
      }
    } finally {
      await strict.close()
    }
  })

  test('a secret never appears in a list or a log line', async () => {
    const lines: string[] = []
    const write = process.stdout.write.bind(process.stdout)
    const w5 = await provision(p)
    const rx = receiver()
    let secret = ''
    const { flushLogs, setLogLevel } = await import('../../src/logger.ts')
    setLogLevel('debug')
    ;(process.stdout as any).write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk))
      return write(chunk as string, ...(rest as []))
    }
    try {
      secret = (await p.api('POST', '/v1/webhooks', { token: w5.apiKey, body: { url: rx.url } })).body.secret
      await p.api('GET', '/v1/webhooks', { token: w5.apiKey })
      await p.api('POST', '/v1/connections', { token: w5.apiKey, body: { domain: `quiet.${zone}` } })
      await deliver()
      await p.api('GET', '/v1/webhook-deliveries', { token: w5.apiKey })
      flushLogs()
    } finally {
      ;(process.stdout as any).write = write
      setLogLevel((process.env.TEST_LOG_LEVEL as 'error') || 'silent')
      rx.stop()
    }
    expect(lines.join('').length).toBeGreaterThan(0)
    expect(lines.join('')).not.toContain(secret)
    expect(lines.join('')).not.toContain(secret.slice(6))
    const rows = await p.db`select * from webhooks where tenant_id = ${w5.tenantId}`
    expect(JSON.stringify(rows)).not.toContain(secret.slice(6))
  })
})

describe('crash safety', () => {
  test('a worker killed in the middle of a batch loses no event', async () => {
    const w6 = await provision(p)
    const seen = new Set<string>()
    // Each answer takes 100 ms: a worker sends its first batch at once (and more once answers come),
    // so the kill is timed by the first requests arriving, while they are still out.
    const rx = receiver(async (_n, r) => {
      seen.add(r.headers['webhook-id']!)
      await Bun.sleep(100)
      return new Response('ok')
    })
    const env = {
      ...process.env,
      DATABASE_URL: await testDatabaseUrl(),
      PORTICO_ROLE: 'worker',
      APP_ENV: 'test',
      SECRETS_KEY: '11'.repeat(32),
      WEBHOOK_ALLOW_LOOPBACK: '1',
      DNS_RESOLVERS: pdns.dnsAddress,
      PORT: '0',
      LOG_LEVEL: 'warn',
      PUBLIC_URL: 'http://portico.test',
    }
    const startWorker = () => spawn([process.execPath, 'src/main.ts'], { env, stdout: 'ignore', stderr: 'inherit' })
    try {
      await p.api('POST', '/v1/webhooks', { token: w6.apiKey, body: { url: rx.url } })
      const ids: string[] = []
      const domains = Array.from({ length: 150 }, (_, i) => `k${i}.${zone}`)
      const bulk = await p.api('POST', '/v1/connections:bulk', { token: w6.apiKey, body: { domains } })
      expect(bulk.body.results.every((r: { status: string }) => r.status === 'connected')).toBe(true)
      for (const e of await p.db`select id from events where application_id = ${w6.appId}`) ids.push(e.id)
      // What opening a connection emits, asked of the transition table: one event each today.
      const emitted = domains.length * eventsAlong('created').length
      expect(ids).toHaveLength(emitted)

      let worker = startWorker()
      for (let i = 0; i < 2000 && seen.size < 40; i++) await Bun.sleep(5)
      expect(seen.size).toBeGreaterThan(0)
      expect(seen.size).toBeLessThan(emitted)
      worker.kill('SIGKILL')
      await worker.exited
      const atKill = seen.size
      worker = startWorker()
      const undelivered = async () =>
        (await p.db`select count(*)::int as n from webhook_deliveries where application_id = ${w6.appId}`)[0].n as number
      for (let i = 0; i < 400 && (seen.size < emitted || (await undelivered()) > 0); i++) await Bun.sleep(50)
      worker.kill('SIGTERM')
      await worker.exited
      expect(atKill).toBeLessThan(emitted)
      expect([...ids].filter((id) => !seen.has(id))).toEqual([])
      expect(await undelivered()).toBe(0)
    } finally {
      rx.stop()
    }
  }, 60_000)
})
