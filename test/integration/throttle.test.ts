// Guessing credentials, from the attacker's side: failed checks are limited per address and per
// network, answered 429 with Retry-After before any lookup; the right credential from elsewhere is
// unaffected; TRUST_PROXY decides whose address counts.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPortico, provision, widgetToken, fromAddress, wrongKey, MGMT, PROV, testConfig, type Sent, type TestPortico, type Workspace } from '../harness/portico.ts'
import { livePortico } from '../harness/agents.ts'

const from = fromAddress

let p: TestPortico
let ws: Workspace

beforeAll(async () => {
  // The default budget: 30 failures a minute per address, 120 per /24 or /64.
  p = await startPortico()
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

describe('wrong API keys', () => {
  test('100 wrong keys from one address: 30 are checked, the rest 429 with Retry-After; the right key from another address is 200', async () => {
    const answers: Sent[] = []
    for (let i = 0; i < 100; i++) answers.push(await from(p, '198.51.100.7', 'GET', '/v1/connections', { token: wrongKey() }))
    expect(answers.filter((a) => a.status === 401)).toHaveLength(30)
    const limited = answers.filter((a) => a.status === 429)
    expect(limited).toHaveLength(70)
    expect(limited[0]!.body.code).toBe('rate_limited')
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(answers.findIndex((a) => a.status === 429)).toBe(30)
    // Elsewhere, the owner works as ever.
    expect((await from(p, '203.0.113.9', 'GET', '/v1/connections', { token: ws.apiKey })).status).toBe(200)
    // From the throttled address a key that is valid still works (it is known in memory:
    // test/integration/valid-beside-guessers.test.ts); a guess waits.
    expect((await from(p, '198.51.100.7', 'GET', '/v1/connections', { token: ws.apiKey })).status).toBe(200)
    // After Retry-After, one more try.
    p.clock.advance(Number(limited[limited.length - 1]!.headers.get('retry-after')) * 1000)
    try {
      expect((await from(p, '198.51.100.7', 'GET', '/v1/connections', { token: ws.apiKey })).status).toBe(200)
      expect((await from(p, '198.51.100.7', 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(401)
      expect((await from(p, '198.51.100.7', 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(429)
    } finally {
      p.clock.reset()
    }
  })

  test('a throttled address, and a wrong key sent again, cost no database query (they are answered with the database gone)', async () => {
    const q = await startPortico({ AUTH_FAILURE_BUDGET: '3/100' })
    try {
      const w = await provision(q)
      const again = wrongKey()
      expect((await from(q, '198.51.100.20', 'GET', '/v1/connections', { token: again })).status).toBe(401)
      for (let i = 0; i < 3; i++) await from(q, '198.51.100.21', 'GET', '/v1/connections', { token: wrongKey() })
      await q.db.close()
      // Throttled: 429 before any lookup.
      const guess = await from(q, '198.51.100.21', 'GET', '/v1/connections', { token: wrongKey() })
      expect(guess.status).toBe(429)
      // The same wrong key again from elsewhere: refused from memory. A malformed one never reaches the database either.
      expect((await from(q, '198.51.100.22', 'GET', '/v1/connections', { token: again })).status).toBe(401)
      expect((await from(q, '198.51.100.23', 'GET', '/v1/connections', { token: 'ptc_live_short' })).status).toBe(401)
      // Whereas a fresh well-formed key from a fresh address does need the database (503 with it gone).
      expect((await from(q, '198.51.100.24', 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(503)
      void w
    } finally {
      await q.close().catch(() => {})
    }
  })

  test('a network (/24) that spreads its guesses over many addresses is limited as a whole; other networks are not', async () => {
    const q = await startPortico({ AUTH_FAILURE_BUDGET: '5/12' })
    try {
      const w = await provision(q)
      const statuses: number[] = []
      for (let host = 1; host <= 10; host++) {
        for (let i = 0; i < 3; i++) statuses.push((await from(q, `192.0.2.${host}`, 'GET', '/v1/connections', { token: wrongKey() })).status)
      }
      expect(statuses.filter((s) => s === 401)).toHaveLength(12)
      expect(statuses.filter((s) => s === 429)).toHaveLength(18)
      expect((await from(q, '192.0.2.200', 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(429)
      // A key that verified lately is not refused for its neighbours' guesses (valid-beside-guessers.test.ts).
      expect((await from(q, '192.0.2.200', 'GET', '/v1/connections', { token: w.apiKey })).status).toBe(200)
      expect((await from(q, '192.0.3.1', 'GET', '/v1/connections', { token: w.apiKey })).status).toBe(200)
      // IPv6: the /64 is the network.
      for (let i = 0; i < 12; i++) await from(q, `2001:db8:1:2::${(i + 1).toString(16)}`, 'GET', '/v1/connections', { token: wrongKey() })
      expect((await from(q, '2001:db8:1:2::ffff', 'GET', '/v1/connections', { token: wrongKey() })).status).toBe(429)
      expect((await from(q, '2001:db8:1:3::1', 'GET', '/v1/connections', { token: w.apiKey })).status).toBe(200)
    } finally {
      await q.close()
    }
  })
})

describe('every credential a guesser could try', () => {
  let q: TestPortico
  let w: Workspace
  beforeAll(async () => {
    q = await startPortico({ AUTH_FAILURE_BUDGET: '5/1000' })
    w = await provision(q)
  })
  afterAll(async () => {
    await q?.close()
  })

  const exhausts = async (ip: string, send: () => Promise<Sent>, miss: number) => {
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) statuses.push((await send()).status)
    expect(statuses).toEqual([...Array(5).fill(miss), 429, 429, 429])
    void ip
  }

  test('the provision secret (header and bearer) and the management key', async () => {
    await exhausts('10.1.0.1', () => from(q, '10.1.0.1', 'POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': `wrong-${Math.random()}` }, body: { tenant_name: 'x' } }), 401)
    await exhausts('10.1.0.2', () => from(q, '10.1.0.2', 'POST', '/v1/tenants:provision', { token: `wrong-${Math.random()}`, body: { tenant_name: 'x' } }), 401)
    await exhausts('10.1.0.3', () => from(q, '10.1.0.3', 'POST', '/v1/tenants', { token: `wrong-${Math.random()}`, body: { name: 'x' } }), 401)
    // The console server, elsewhere, provisions; the operator creates tenants.
    expect((await from(q, '10.9.0.1', 'POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': PROV }, body: { tenant_name: 'Fine' } })).status).toBe(201)
    expect((await from(q, '10.9.0.2', 'POST', '/v1/tenants', { token: MGMT, body: { name: 'Fine' } })).status).toBe(201)
  })

  test('widget tokens: forged ones count, a genuine one past its lifetime does not', async () => {
    const forged = (await widgetToken(q, w)).replace(/.{4}$/, 'AAAA')
    await exhausts('10.2.0.1', () => from(q, '10.2.0.1', 'POST', '/v1/domains:check', { token: forged, body: { domain: 'example.com' } }), 401)
    const old = await widgetToken(q, w, { expires_in: 60 })
    q.clock.advance(120_000)
    try {
      for (let i = 0; i < 10; i++) expect((await from(q, '10.2.0.2', 'GET', '/v1/connections/con_x', { token: old })).status).toBe(401)
    } finally {
      q.clock.reset()
    }
  })

  test('client secrets at POST /tokens, share tokens and invitation tokens', async () => {
    await exhausts('10.3.0.1', () => from(q, '10.3.0.1', 'POST', '/v1/tokens', { body: { application_id: w.appId, client_secret: `pcs_${Math.random()}` } }), 401)
    expect((await from(q, '10.3.0.9', 'POST', '/v1/tokens', { body: { application_id: w.appId, client_secret: w.clientSecret } })).status).toBe(200)
    await exhausts('10.3.0.2', () => from(q, '10.3.0.2', 'GET', `/v1/share/guess${crypto.randomUUID().replaceAll('-', '')}`), 404)
    await exhausts('10.3.0.3', () => from(q, '10.3.0.3', 'POST', `/v1/share/guess${crypto.randomUUID().replaceAll('-', '')}:recheck`), 404)
    await exhausts('10.3.0.4', () => from(q, '10.3.0.4', 'POST', '/v1/members:accept', { body: { invite_token: `inv_${crypto.randomUUID()}` } }), 404)
  })
})

describe('TRUST_PROXY', () => {
  test('behind a trusted proxy the forwarded client is throttled, not the proxy; without it a forwarded header changes nothing', async () => {
    const q = await startPortico({ AUTH_FAILURE_BUDGET: '3/1000', TRUST_PROXY: '10.0.0.0/8' })
    const r = await startPortico({ AUTH_FAILURE_BUDGET: '3/1000' })
    try {
      const w = await provision(q)
      const via = (client: string, token: string) => from(q, '10.0.0.5', 'GET', '/v1/connections', { token, headers: { 'x-forwarded-for': client } })
      for (let i = 0; i < 3; i++) expect((await via('203.0.113.50', wrongKey())).status).toBe(401)
      expect((await via('203.0.113.50', wrongKey())).status).toBe(429)
      // Another client through the same proxy is fine.
      expect((await via('203.0.113.51', w.apiKey)).status).toBe(200)
      // Untrusted peers cannot pick their address by header: rotating X-Forwarded-For does not help.
      const rw = await provision(r)
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) statuses.push((await from(r, '198.51.100.99', 'GET', '/v1/connections', { token: wrongKey(), headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status)
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429])
      void rw
    } finally {
      await q.close()
      await r.close()
    }
  })
})

describe('TRUST_PROXY_HEADER: only the header the proxy sets is read', () => {
  test('behind a proxy that appends X-Forwarded-For (the default), a Forwarded header the client sent is ignored: rotating it does not escape the budget, nor do forged left-hand X-Forwarded-For entries', async () => {
    const q = await startPortico({ AUTH_FAILURE_BUDGET: '3/1000', TRUST_PROXY: '10.0.0.0/8' })
    try {
      const statuses: number[] = []
      // The proxy (10.0.0.5) appended the client's real address 203.0.113.60 to whatever the client sent.
      for (let i = 0; i < 6; i++) statuses.push((await from(q, '10.0.0.5', 'GET', '/v1/connections', { token: wrongKey(), headers: { forwarded: `for=198.51.100.${i}`, 'x-forwarded-for': `192.0.2.${i}, 203.0.113.60` } })).status)
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429])
    } finally {
      await q.close()
    }
  })

  test('behind a proxy that sets Forwarded (TRUST_PROXY_HEADER=forwarded), its for= is the client and X-Forwarded-For is not read', async () => {
    const q = await startPortico({ AUTH_FAILURE_BUDGET: '3/1000', TRUST_PROXY: '10.0.0.0/8', TRUST_PROXY_HEADER: 'forwarded' })
    try {
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) statuses.push((await from(q, '10.0.0.5', 'GET', '/v1/connections', { token: wrongKey(), headers: { forwarded: `for=198.51.100.${i}, for=203.0.113.61`, 'x-forwarded-for': `192.0.2.${i}` } })).status)
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429])
      // Another client, by the proxy's Forwarded, is not affected.
      expect((await from(q, '10.0.0.5', 'GET', '/v1/connections', { token: wrongKey(), headers: { forwarded: 'for=203.0.113.62' } })).status).toBe(401)
    } finally {
      await q.close()
    }
  })

  test('TRUST_PROXY_HEADER accepts only the two header names', () => {
    expect(() => testConfig({ TRUST_PROXY_HEADER: 'x-real-ip' })).toThrow(/TRUST_PROXY_HEADER/)
  })
})

describe('the consent sign-in', () => {
  test('guessed sign-in links are limited per client address, refused before the database is asked', async () => {
    const live = await livePortico({ SIGNIN_BUDGET: '5/30/3' })
    try {
      const guess = () => fetch(`${live.url}/oauth/signin/${wrongKey().replace(/\W/g, '')}`)
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) statuses.push((await guess()).status)
      expect(statuses).toEqual([404, 404, 404, 429, 429])
      // Past the budget no query is made: with the database closed the answer is still 429.
      await live.db.close()
      const last = await guess()
      expect(last.status).toBe(429)
      expect(await last.text()).toContain('Too many sign-in attempts')
    } finally {
      await live.stop().catch(() => {})
    }
  })
})
