// Console support: SMTP verification against a real SMTP server on loopback, web push to a loopback
// push endpoint, the per-person push rate limit, and member email changes.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { SMTPServer } from 'smtp-server'
import webpush from 'web-push'
import { createECDH, randomBytes } from 'node:crypto'
import { PROV, provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
let ws: Workspace
let smtp: SMTPServer
let smtpPort = 0
const logins: string[] = []

beforeAll(async () => {
  const vapid = webpush.generateVAPIDKeys()
  p = await startPortico({ WEBHOOK_ALLOW_LOOPBACK: '1', VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, VAPID_SUBJECT: 'mailto:ops@portico.test' })
  ws = await provision(p)
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, cb) {
      logins.push(auth.username ?? '')
      if (auth.username === 'mailer' && auth.password === 'right-password') return cb(null, { user: 'mailer' })
      cb(new Error('Invalid username or password'))
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()))
  smtpPort = (smtp.server.address() as { port: number }).port
})

afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
  await p?.close()
})

describe('email sender', () => {
  test('default until saved; verified by a real SMTP conversation; the password never comes back', async () => {
    const before = await p.api('GET', `/v1/applications/${ws.appId}/email-sender`, { token: ws.apiKey })
    expect(before.body).toMatchObject({ application_id: ws.appId, mode: 'default', password_set: false })
    const body = { smtp_host: '127.0.0.1', smtp_port: smtpPort, smtp_username: 'mailer', smtp_password: 'right-password', tls: 'none', from_address: 'noreply@shop.example', from_name: 'Shop' }
    const ok = await p.api('PUT', `/v1/applications/${ws.appId}/email-sender`, { token: ws.apiKey, body })
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ mode: 'smtp', smtp_host: '127.0.0.1', password_set: true, last_error: null })
    expect(ok.body.verified_at).not.toBeNull()
    expect(JSON.stringify(ok.body)).not.toContain('right-password')
    expect(logins).toContain('mailer')
    const read = await p.api('GET', `/v1/applications/${ws.appId}/email-sender`, { token: ws.apiKey })
    expect(JSON.stringify(read.body)).not.toContain('right-password')
    const [row] = await p.db`select password_sealed from email_senders where application_id = ${ws.appId}`
    expect(row.password_sealed).not.toContain('right-password')
    // Omitting the password keeps it; re-verification passes.
    const again = await p.api('POST', `/v1/applications/${ws.appId}/email-sender:verify`, { token: ws.apiKey })
    expect(again.body.last_error).toBeNull()
  })

  test('bad credentials are recorded as last_error, not a failed request', async () => {
    const w = await provision(p)
    const r = await p.api('PUT', `/v1/applications/${w.appId}/email-sender`, {
      token: w.apiKey,
      body: { smtp_host: '127.0.0.1', smtp_port: smtpPort, smtp_username: 'mailer', smtp_password: 'wrong', tls: 'none', from_address: 'noreply@shop.example' },
    })
    expect(r.status).toBe(200)
    expect(r.body.verified_at).toBeNull()
    expect(r.body.last_error).toMatch(/535|Invalid/)
    expect(r.body.last_error_at).not.toBeNull()
    const reset = await p.api('PUT', `/v1/applications/${w.appId}/email-sender`, { token: w.apiKey, body: { mode: 'default' } })
    expect(reset.body.mode).toBe('default')
  })

  test('incomplete settings are 400; a private SMTP host is refused', async () => {
    const w = await provision(p)
    expect((await p.api('PUT', `/v1/applications/${w.appId}/email-sender`, { token: w.apiKey, body: { smtp_host: 'mail.example.com' } })).status).toBe(400)
    const strict = await startPortico()
    try {
      const w2 = await provision(strict)
      const r = await strict.api('PUT', `/v1/applications/${w2.appId}/email-sender`, {
        token: w2.apiKey,
        body: { smtp_host: '10.0.0.5', smtp_port: 25, tls: 'none', from_address: 'a@b.example' },
      })
      expect(r.body.last_error).toMatch(/refused: .*private/)
    } finally {
      await strict.close()
    }
  })
})

describe('push', () => {
  function browserKeys() {
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') }
  }

  test('one test to every device; gone subscriptions are removed; the sixth in a minute is 429', async () => {
    const received: { path: string; auth: string; encoding: string; bytes: number }[] = []
    const service = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const body = new Uint8Array(await req.arrayBuffer())
        received.push({ path: new URL(req.url).pathname, auth: req.headers.get('authorization') ?? '', encoding: req.headers.get('content-encoding') ?? '', bytes: body.length })
        return new Response(null, { status: new URL(req.url).pathname.startsWith('/gone') ? 410 : 201 })
      },
    })
    try {
      const user = `user-${Date.now()}`
      for (const path of ['/push/a', '/push/b', '/gone/c']) {
        const r = await p.api('POST', '/v1/push-subscriptions', { token: PROV, body: { user_id: user, subscription: { endpoint: `http://127.0.0.1:${service.port}${path}`, keys: browserKeys() } } })
        expect(r.status).toBe(201)
      }
      const first = await p.api('POST', '/v1/notifications:test', { token: PROV, body: { user_id: user } })
      expect(first.status).toBe(200)
      expect(first.body).toEqual({ devices: 3, sent: 2, removed: 1, failed: 0 })
      expect(received).toHaveLength(3)
      for (const r of received) {
        expect(r.auth).toMatch(/^vapid t=.+, k=.+/)
        expect(r.encoding).toBe('aes128gcm')
        expect(r.bytes).toBeGreaterThan(0)
      }
      // The person turns notifications off in one browser: it gets nothing more.
      const b = (await p.api('POST', '/v1/push-subscriptions', { token: PROV, body: { user_id: user, subscription: { endpoint: `http://127.0.0.1:${service.port}/push/b`, keys: browserKeys() } } })).body
      const removed = await p.api('DELETE', `/v1/push-subscriptions/${b.id}`, { token: PROV })
      expect(removed.status).toBe(200)
      expect(removed.body).toEqual({ id: b.id, user_id: user, deleted: true })
      expect((await p.api('DELETE', `/v1/push-subscriptions/${b.id}`, { token: PROV })).status).toBe(404)
      for (let i = 0; i < 4; i++) expect((await p.api('POST', '/v1/notifications:test', { token: PROV, body: { user_id: user } })).body.devices).toBe(1)
      expect(received.filter((r) => r.path === '/push/b')).toHaveLength(1)
      const sixth = await p.api('POST', '/v1/notifications:test', { token: PROV, body: { user_id: user } })
      expect(sixth.status).toBe(429)
      expect(sixth.body.code).toBe('rate_limited')
      expect(sixth.headers.get('retry-after')).toBe('60')
      p.clock.advance(61_000)
      try {
        expect((await p.api('POST', '/v1/notifications:test', { token: PROV, body: { user_id: user } })).status).toBe(200)
      } finally {
        p.clock.reset()
      }
    } finally {
      service.stop(true)
    }
  })

  test('without VAPID keys push is 503 push_not_configured', async () => {
    const plain = await startPortico()
    try {
      const r = await plain.api('POST', '/v1/notifications:test', { token: PROV, body: { user_id: 'someone' } })
      expect(r.status).toBe(503)
      expect(r.body.code).toBe('push_not_configured')
    } finally {
      await plain.close()
    }
  })
})

describe('member email change', () => {
  test('updates the person in every workspace, skipping one where the new email is taken', async () => {
    const a = await provision(p, { owner_email: 'Changer@Example.com' })
    const b = await provision(p, { owner_email: 'changer@example.com' })
    const c = await provision(p, { owner_email: 'changer@example.com' })
    await p.api('POST', '/v1/members', { token: c.apiKey, body: { email: 'new@example.com' } })
    const r = await p.api('POST', '/v1/members:email-changed', { token: PROV, body: { old_email: 'changer@example.com', new_email: 'new@example.com' } })
    expect(r.status).toBe(200)
    expect(r.body.updated).toBeGreaterThanOrEqual(2)
    expect(r.body.skipped).toEqual([c.tenantId])
    for (const w of [a, b]) {
      const m = await p.api('GET', '/v1/members', { token: w.apiKey })
      expect(m.body.members[0].email).toBe('new@example.com')
    }
    expect((await p.api('POST', '/v1/members:email-changed', { token: ws.apiKey, body: { old_email: 'x@y.example', new_email: 'z@y.example' } })).status).toBe(403)
  })
})
