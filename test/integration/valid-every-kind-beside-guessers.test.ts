// From the holder's side, for every kind of credential Portico hands out: a neighbour at the same
// address spends its failure budget (AUTH_FAILURE_BUDGET, or the sign-in failures of SIGNIN_BUDGET),
// and then the valid credential, used there for the first time, still goes through. Each kind is fresh
// (never used before it meets the spent budget): a client secret and the previous one inside its rotation
// overlap, a widget token just minted, an agent token on REST /v1 and on /mcp, an invitation, a sign-in link
// (opened and Continue), and credentials minted on another Portico process sharing the database (a
// process started before the mint, and one started after). A guess from the spent address stays 429.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { livePortico, agentToken, ownerEmail, linkIn, type LivePortico } from '../harness/agents.ts'
import { startPortico, provision, wrongKey, type TestPortico, type Workspace } from '../harness/portico.ts'
import { testDatabaseUrl } from '../harness/db.ts'

let p: LivePortico
/** A second Portico process on the same database (its own memory: throttle, known set, listener). */
let q: TestPortico
let ws: Workspace

let hostCounter = 0
/** A fresh address per case, each in its own /24, so one case's spending never touches another's. */
const freshAddress = () => `100.64.${++hostCounter}.7`

interface Sent {
  status: number
  body: any
  text: string
  headers: Headers
}

/** A request to the live process from `ip` (behind the trusted loopback proxy, which sets X-Forwarded-For). */
async function at(ip: string, method: string, path: string, opts: { token?: string; body?: unknown; form?: string; headers?: Record<string, string>; base?: string } = {}): Promise<Sent> {
  const headers: Record<string, string> = { 'x-forwarded-for': ip, ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  let body: string | undefined
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body)
    headers['content-type'] = 'application/json'
  }
  if (opts.form !== undefined) {
    body = opts.form
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const url = path.startsWith('http') ? path : (opts.base ?? p.url) + path
  const res = await fetch(url, { method, headers, body, redirect: 'manual' })
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: res.status, body: parsed, text, headers: res.headers }
}

/** The second process, through its request handler with the client address given. */
async function atQ(ip: string, method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<Sent> {
  const headers: Record<string, string> = {}
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  let body: string | undefined
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body)
    headers['content-type'] = 'application/json'
  }
  const res = await q.handle(new Request(`http://portico.test${path}`, { method, headers, body }), ip)
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text, headers: res.headers }
}

/** A neighbour at `ip` sends wrong API keys until the address's budget is spent (its next guess is 429). */
async function spend(ip: string, send: (ip: string) => Promise<Sent> = (a) => at(a, 'GET', '/v1/connections', { token: wrongKey() })): Promise<void> {
  const seen: number[] = []
  for (let i = 0; i < 31; i++) seen.push((await send(ip)).status)
  expect(seen.filter((s) => s === 401)).toHaveLength(30)
  const guess = await send(ip)
  expect(guess.status).toBe(429)
  expect(Number(guess.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
}

const mcpCall = (ip: string, token: string) =>
  at(ip, 'POST', '/mcp', {
    token,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  })

beforeAll(async () => {
  // The default failure budget (30 a minute per address); the loopback peer is the trusted proxy.
  q = await startPortico({}, { databaseUrl: await testDatabaseUrl() })
  p = await livePortico({ TRUST_PROXY: '127.0.0.1', SIGNIN_BUDGET: '10000/10000/20' })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.stop()
  await q?.close()
})

/** Each kind: how a fresh valid credential is made, and its first use from a spent address (expected to pass). */
const kinds: { name: string; run: () => Promise<void> }[] = [
  {
    name: 'a client secret never used before (a new application) at POST /tokens',
    async run() {
      const app = await at('10.9.0.1', 'POST', '/v1/applications', { token: ws.apiKey, body: { name: 'Fresh app' } })
      expect(app.status).toBe(201)
      const ip = freshAddress()
      await spend(ip, (a) => at(a, 'POST', '/v1/tokens', { body: { application_id: app.body.id, client_secret: `pcs_stale${crypto.randomUUID()}` } }))
      const minted = await at(ip, 'POST', '/v1/tokens', { body: { application_id: app.body.id, client_secret: app.body.client_secret } })
      expect(minted.status).toBe(200)
      expect(typeof minted.body.token).toBe('string')
    },
  },
  {
    name: 'after :rotate-secret, the previous secret inside its overlap and the new secret, each first used from a spent address',
    async run() {
      const w = await provision(p)
      const rot = await at('10.9.0.2', 'POST', `/v1/applications/${w.appId}:rotate-secret`, { token: w.apiKey, body: {} })
      expect(rot.status).toBe(200)
      const ip = freshAddress()
      await spend(ip)
      expect((await at(ip, 'POST', '/v1/tokens', { body: { application_id: w.appId, client_secret: w.clientSecret } })).status).toBe(200)
      expect((await at(ip, 'POST', '/v1/tokens', { body: { application_id: w.appId, client_secret: rot.body.client_secret } })).status).toBe(200)
    },
  },
  {
    name: 'a widget token minted a moment ago, first used from a spent address (a NAT neighbour)',
    async run() {
      const minted = await at('10.9.0.3', 'POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, scope: 'app' } })
      expect(minted.status).toBe(200)
      const ip = freshAddress()
      await spend(ip)
      const read = await at(ip, 'GET', `/v1/applications/${ws.appId}`, { token: minted.body.token })
      expect(read.status).toBe(200)
      expect(read.body.id).toBe(ws.appId)
    },
  },
  {
    name: 'a fresh agent token on REST /v1 and on /mcp from a spent address',
    async run() {
      const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Fresh agent')
      const ip = freshAddress()
      await spend(ip)
      const rest = await at(ip, 'GET', '/v1/connections', { token: tokens.access_token })
      expect(rest.status).toBe(200)
      expect(Array.isArray(rest.body.connections ?? rest.body.data ?? rest.body.items)).toBe(true)
      expect((await mcpCall(ip, tokens.access_token)).status).toBe(200)
    },
  },
  {
    name: 'an invitation accepted from an address where a neighbour spent the budget on invitation guesses',
    async run() {
      const inv = await at('10.9.0.4', 'POST', '/v1/members', { token: ws.apiKey, body: { email: `invited${Date.now()}@example.com`, role: 'member' } })
      expect(inv.status).toBe(201)
      const ip = freshAddress()
      await spend(ip, (a) => at(a, 'POST', '/v1/members:accept', { body: { invite_token: `inv_${crypto.randomUUID().replaceAll('-', '')}` } }).then((r) => ({ ...r, status: r.status === 404 ? 401 : r.status })))
      const ok = await at(ip, 'POST', '/v1/members:accept', { body: { invite_token: inv.body.invite_token } })
      expect(ok.status).toBe(200)
      expect(ok.body.status).toBe('active')
    },
  },
  {
    name: 'a sign-in link, opened and Continue, from an address where a neighbour spent the sign-in failures on guessed links',
    async run() {
      const email = await ownerEmail(p.url, ws.apiKey)
      const asked = await at('10.9.0.5', 'POST', '/oauth/agents', { form: new URLSearchParams({ email }).toString(), headers: { 'sec-fetch-site': 'same-origin' } })
      expect(asked.status).toBe(200)
      const link = await linkIn(p.url, email)
      const ip = freshAddress()
      const guesses: number[] = []
      for (let i = 0; i < 21; i++) guesses.push((await at(ip, 'GET', `/oauth/signin/${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`)).status)
      expect(guesses.filter((s) => s === 404)).toHaveLength(20)
      // The neighbour's next guess is refused unread, and told when to come back.
      const refused = guesses.at(-1) === 429 ? await at(ip, 'GET', `/oauth/signin/${'x'.repeat(43)}`) : null
      expect(refused?.status).toBe(429)
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      const opened = await at(ip, 'GET', link)
      expect(opened.status).toBe(200)
      expect(opened.text).toContain(`Sign in as ${email}?`)
      const cont = await at(ip, 'POST', link, { form: '', headers: { 'sec-fetch-site': 'same-origin' } })
      expect(cont.status).toBe(303)
      expect(cont.headers.get('set-cookie')).toContain('portico_person=')
      // Used up, the link is then refused for what it is (not throttled): from a clean address, 404.
      expect((await at(freshAddress(), 'POST', link, { form: '', headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(404)
    },
  },
  {
    name: 'a key and a client secret minted on another process after this one started, first used here from a spent address',
    async run() {
      const key = await at('10.9.0.6', 'POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'member' } })
      expect(key.status).toBe(201)
      const app = await at('10.9.0.6', 'POST', '/v1/applications', { token: ws.apiKey, body: { name: 'Minted elsewhere' } })
      expect(app.status).toBe(201)
      const ip = freshAddress()
      // The other process hears of them through the database's notifications: allow them a moment to arrive.
      for (let i = 0; i < 50 && !q.services.throttle!.isKnown(Bun.SHA256.hash(key.body.key, 'hex') as string); i++) await Bun.sleep(20)
      await spend(ip, (a) => atQ(a, 'GET', '/v1/connections', { token: wrongKey() }))
      const used = await atQ(ip, 'GET', '/v1/connections', { token: key.body.key })
      expect(used.status).toBe(200)
      expect((await atQ(ip, 'POST', '/v1/tokens', { body: { application_id: app.body.id, client_secret: app.body.client_secret } })).status).toBe(200)
      expect((await atQ(ip, 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(429)
    },
  },
  {
    name: 'a share link made on another process, first opened here (API and page reads alike) from a spent address',
    async run() {
      // A test-mode workspace: its connection to a reserved test domain needs no DNS.
      const t = await provision(p, { environment: 'test' })
      const c = await at('10.9.0.7', 'POST', '/v1/connections', { token: t.apiKey, body: { domain: `share${Date.now().toString(36)}.live.sandbox.example` } })
      expect(c.status).toBe(201)
      const s = await at('10.9.0.7', 'POST', `/v1/connections/${c.body.id}/share`, { token: t.apiKey })
      expect(s.status).toBe(201)
      const token = new URL(s.body.url).pathname.split('/').pop()!
      for (let i = 0; i < 50 && !q.services.throttle!.isKnown(Bun.SHA256.hash(token, 'hex') as string); i++) await Bun.sleep(20)
      const ip = freshAddress()
      await spend(ip, (a) => atQ(a, 'GET', `/v1/share/shr_${crypto.randomUUID().replaceAll('-', '')}`).then((r) => ({ ...r, status: r.status === 404 ? 401 : r.status })))
      const opened = await atQ(ip, 'GET', `/v1/share/${token}`)
      expect(opened.status).toBe(200)
      expect(opened.body.domain).toBe(c.body.domain)
    },
  },
  {
    name: 'a key minted before a process started, never used, first used there from a spent address',
    async run() {
      const w = await provision(p)
      const late = await startPortico({}, { databaseUrl: await testDatabaseUrl() })
      try {
        const ip = freshAddress()
        for (let i = 0; i < 31; i++) await late.handle(new Request('http://portico.test/v1/connections', { headers: { authorization: `Bearer ${wrongKey()}` } }), ip)
        expect((await late.handle(new Request('http://portico.test/v1/connections', { headers: { authorization: `Bearer ${wrongKey()}` } }), ip)).status).toBe(429)
        expect((await late.handle(new Request('http://portico.test/v1/connections', { headers: { authorization: `Bearer ${w.apiKey}` } }), ip)).status).toBe(200)
        const minted = await late.handle(new Request('http://portico.test/v1/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ application_id: w.appId, client_secret: w.clientSecret }) }), ip)
        expect(minted.status).toBe(200)
      } finally {
        await late.close()
      }
    },
  },
]

describe('every kind of valid credential passes a budget its neighbours spent', () => {
  for (const kind of kinds) test(kind.name, kind.run, 60_000)

  test('a guess from a spent address stays refused, whatever kind it claims to be', async () => {
    const ip = freshAddress()
    await spend(ip)
    expect((await at(ip, 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(429)
    // A token shaped like a widget or agent token but not signed by Portico is refused unread too.
    expect((await at(ip, 'GET', '/v1/connections', { token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ4IjoxfQ.' + 'A'.repeat(43) })).status).toBe(429)
    expect((await at(ip, 'GET', '/v1/connections', { token: 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJ4IjoxfQ.' + 'A'.repeat(86) })).status).toBe(429)
    expect((await at(ip, 'POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: 'pcs_wrong' } })).status).toBe(429)
  })
})

describe('failed tokens at /mcp count like failed credentials at REST /v1', () => {
  const forged = () => `eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJ4IjoxfQ.${Buffer.from(crypto.getRandomValues(new Uint8Array(64))).toString('base64url')}`

  test('30 wrong tokens at /mcp spend the address\'s budget: the 31st is 429 with Retry-After, and so is a REST guess from there', async () => {
    const ip = freshAddress()
    const seen: number[] = []
    for (let i = 0; i < 30; i++) seen.push((await mcpCall(ip, forged())).status)
    expect(seen).toEqual(Array(30).fill(401))
    const refused = await mcpCall(ip, forged())
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.body.error.message).toContain('from this address')
    expect((await at(ip, 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(429)
  })

  test('an address that spent its budget at REST is refused at /mcp too, behind the trusted proxy (not the proxy\'s own address)', async () => {
    const ip = freshAddress()
    await spend(ip)
    expect((await mcpCall(ip, forged())).status).toBe(429)
    // Another client behind the same proxy is not affected.
    expect((await mcpCall(freshAddress(), forged())).status).toBe(401)
  })
})
