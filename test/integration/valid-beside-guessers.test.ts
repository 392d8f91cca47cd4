// From the integrator's side: a working backend's valid key is never refused because of somebody
// else's failed guesses: not a stale worker of its own on the same address sending an old key, not
// hostile neighbours of its /24 spending their budgets, not after a restart. Unknown credentials stay
// throttled per address and per network, and the 429 says whose failures spent the budget.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPortico, provision, fromAddress, wrongKey, type TestPortico, type Workspace } from '../harness/portico.ts'
import { testDatabaseUrl } from '../harness/db.ts'

/** A GET from `ip` with `token`. */
const from = (p: TestPortico, ip: string, path: string, token: string) => fromAddress(p, ip, 'GET', path, { token })

let p: TestPortico
let ws: Workspace

beforeAll(async () => {
  // The default budget: 30 failed checks a minute per address, 120 per /24 or /64.
  p = await startPortico()
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

describe('a valid key beside others\' failures', () => {
  test('a stale worker on the same address sends 2 wrong keys a second for 45 s: the working key answers 200 every second', async () => {
    const ip = '198.51.100.40'
    expect((await from(p, ip, '/v1/connections', ws.apiKey)).status).toBe(200)
    const valid: number[] = []
    const stale: number[] = []
    try {
      for (let second = 0; second < 45; second++) {
        stale.push((await from(p, ip, '/v1/connections', 'ptc_live_' + 'A'.repeat(43))).status)
        p.clock.advance(500)
        stale.push((await from(p, ip, '/v1/connections', wrongKey())).status)
        p.clock.advance(500)
        valid.push((await from(p, ip, '/v1/connections', ws.apiKey)).status)
      }
    } finally {
      p.clock.reset()
    }
    expect(valid).toEqual(Array(45).fill(200))
    // The stale worker itself is throttled: its budget ran out and it waits like any guesser.
    expect(stale.filter((s) => s === 429).length).toBeGreaterThanOrEqual(35)
  })

  test('five addresses of one /24 spend the network\'s budget: a sixth address of that /24 with a working key goes through; a guess from it is 429 naming the network', async () => {
    const w = await provision(p)
    expect((await from(p, '203.0.113.250', '/v1/connections', w.apiKey)).status).toBe(200)
    const neighbours: number[] = []
    for (let host = 1; host <= 5; host++) for (let i = 0; i < 26; i++) neighbours.push((await from(p, `192.0.2.${host}`, '/v1/connections', wrongKey())).status)
    // Each neighbour stayed under its own 30; together they spent the /24's 120.
    expect(neighbours.filter((s) => s === 401)).toHaveLength(120)
    expect(neighbours.filter((s) => s === 429)).toHaveLength(10)
    const sixth = '192.0.2.77'
    for (let i = 0; i < 5; i++) expect((await from(p, sixth, '/v1/connections', w.apiKey)).status).toBe(200)
    const guess = await from(p, sixth, '/v1/connections', wrongKey())
    expect(guess.status).toBe(429)
    expect(guess.body.code).toBe('rate_limited')
    // The sixth address sent nothing wrong: the answer must not blame it.
    expect(guess.body.title).toContain('192.0.2.0/24')
    expect(guess.body.title).not.toMatch(/from this address/)
    expect(Number(guess.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // An address that spent its own budget is told so.
    for (let i = 0; i < 30; i++) await from(p, '198.18.0.1', '/v1/connections', wrongKey())
    const own = await from(p, '198.18.0.1', '/v1/connections', wrongKey())
    expect(own.status).toBe(429)
    expect(own.body.title).toContain('from this address')
  })

  test('the same over IPv6: a /64 that guessed does not refuse a working key from another address of it', async () => {
    const w = await provision(p)
    expect((await from(p, '2001:db8:9::1', '/v1/connections', w.apiKey)).status).toBe(200)
    for (let i = 0; i < 125; i++) await from(p, `2001:db8:7:7::${(i % 4) + 1}`, '/v1/connections', wrongKey())
    expect((await from(p, '2001:db8:7:7::ffff', '/v1/connections', wrongKey())).status).toBe(429)
    expect((await from(p, '2001:db8:7:7::ffff', '/v1/connections', w.apiKey)).status).toBe(200)
  })

  test('the backend minting widget tokens keeps minting beside a stale worker sending an old client secret', async () => {
    const w = await provision(p)
    const ip = '198.51.100.80'
    const mint = (secret: string) =>
      p.handle(new Request('http://portico.test/v1/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ application_id: w.appId, client_secret: secret }) }), ip)
    expect((await mint(w.clientSecret)).status).toBe(200)
    const stale: number[] = []
    for (let i = 0; i < 40; i++) stale.push((await mint('pcs_rotated_long_ago')).status)
    expect(stale.slice(0, 30)).toEqual(Array(30).fill(401))
    expect(stale.slice(30)).toEqual(Array(10).fill(429))
    expect((await mint(w.clientSecret)).status).toBe(200)
  })

  test('a revoked key is no longer known: from a throttled address it waits like any guess', async () => {
    const w = await provision(p)
    const made = await p.api('POST', `/v1/applications/${w.appId}/keys`, { token: w.apiKey, body: { name: 'old worker' } })
    expect(made.status).toBe(201)
    const key = made.body.key
    const ip = '198.51.100.60'
    expect((await from(p, ip, '/v1/connections', key)).status).toBe(200)
    for (let i = 0; i < 30; i++) await from(p, ip, '/v1/connections', wrongKey())
    expect((await from(p, ip, '/v1/connections', key)).status).toBe(200)
    expect((await p.api('DELETE', `/v1/applications/${w.appId}/keys/${made.body.id}`, { token: w.apiKey })).status).toBe(200)
    expect((await from(p, ip, '/v1/connections', key)).status).toBe(429)
    expect((await from(p, '203.0.113.61', '/v1/connections', key)).status).toBe(401)
  })

  test('after a restart, a key in use lately is known from the start', async () => {
    const url = await testDatabaseUrl()
    const a = await startPortico({}, { databaseUrl: url })
    let b: TestPortico | undefined
    try {
      const w = await provision(a)
      expect((await from(a, '203.0.113.70', '/v1/connections', w.apiKey)).status).toBe(200)
      // Its use is recorded in the background.
      for (let i = 0; i < 50; i++) {
        const [row] = await a.db`select last_used_at from api_keys where tenant_id = ${w.tenantId} and last_used_at is not null`
        if (row) break
        await Bun.sleep(20)
      }
      await a.close()
      b = await startPortico({}, { databaseUrl: url })
      for (let i = 0; i < 30; i++) await from(b, '192.0.2.90', '/v1/connections', wrongKey())
      expect((await from(b, '192.0.2.90', '/v1/connections', wrongKey())).status).toBe(429)
      expect((await from(b, '192.0.2.90', '/v1/connections', w.apiKey)).status).toBe(200)
    } finally {
      await a.close().catch(() => {})
      await b?.close()
    }
  })
})
