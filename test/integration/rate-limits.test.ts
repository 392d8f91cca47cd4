// Rate limits per credential, from the client's side: every answer to a counted credential carries the
// IETF RateLimit and RateLimit-Policy fields; past a limit it is 429 `rate_limited` with Retry-After and
// a `details.limit` naming which; an API key, an application's widget tokens together, one end user's
// token and one agent grant are each counted on their own; a bulk call counts each item; the window
// ends and the credential goes on. The OpenAPI document declares the fields.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { agentToken, livePortico, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

let p: LivePortico
let ws: Workspace

beforeAll(async () => {
  p = await livePortico({ RATE_LIMITS: 'api_key=5,application=8,end_user=3,agent_grant=4' })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.stop()
})

/** Starts each test at the beginning of a clock minute, so a window does not end mid-test. */
function newMinute(): void {
  const now = p.clock.now().getTime()
  p.clock.advance(60_000 - (now % 60_000) + 1)
}

const widget = async (secret = ws.clientSecret) => (await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: secret, scope: 'app' } })).body.token as string

describe('per API key', () => {
  test('five a minute: each answer says what is left; the sixth is 429 with Retry-After; another key of the workspace goes on; the next minute the key does', async () => {
    newMinute()
    const k = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { name: 'limited', role: 'member' } })
    const key = k.body.key as string
    const seen: { status: number; ratelimit: string | null; policy: string | null }[] = []
    for (let i = 0; i < 5; i++) {
      // An error answer counts and carries the fields too.
      const r = await p.api('GET', i === 2 ? '/v1/connections/con_missing' : '/v1/connections', { token: key })
      seen.push({ status: r.status, ratelimit: r.headers.get('ratelimit'), policy: r.headers.get('ratelimit-policy') })
    }
    expect(seen.map((s) => s.status)).toEqual([200, 200, 404, 200, 200])
    expect(seen.every((s) => s.policy === '"api_key";q=5;w=60')).toBe(true)
    expect(seen.map((s) => /r=(\d+)/.exec(s.ratelimit!)![1])).toEqual(['4', '3', '2', '1', '0'])
    const t = Number(/t=(\d+)/.exec(seen[4]!.ratelimit!)![1])
    expect(t).toBeGreaterThan(0)
    expect(t).toBeLessThanOrEqual(60)
    const over = await p.api('GET', '/v1/connections', { token: key })
    expect(over.status).toBe(429)
    expect(over.body).toMatchObject({ code: 'rate_limited', details: { reason: 'rate_limit', limit: 'api_key', quota: 5, window_seconds: 60 } })
    expect(Number(over.headers.get('retry-after'))).toBe(t)
    expect(over.headers.get('ratelimit')).toBe(`"api_key";r=0;t=${t}`)
    // The owner's key is a credential of its own.
    expect((await p.api('GET', '/v1/connections', { token: ws.apiKey })).status).toBe(200)
    p.clock.advance(t * 1000)
    const next = await p.api('GET', '/v1/connections', { token: key })
    expect(next.status).toBe(200)
    expect(next.headers.get('ratelimit')).toStartWith('"api_key";r=4;')
  })

  test('a bulk call counts each of its domains: three leave two; six are refused whole, saying how many fit', async () => {
    newMinute()
    const k = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { name: 'bulk', role: 'member' } })
    const three = await p.api('POST', '/v1/connections:bulk', { token: k.body.key, body: { domains: ['a..invalid', 'b..invalid', 'c..invalid'] } })
    expect(three.headers.get('ratelimit')).toStartWith('"api_key";r=2;')
    const six = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: ['1..x', '2..x', '3..x', '4..x', '5..x', '6..x'] } })
    expect(six.status).toBe(429)
    expect(six.body.title).toContain('counts 6 items')
    expect(six.body.title).toContain('at most 5')
  })

  test('a bulk call past the schema\'s size is refused as invalid (400) and costs one, not a 429 that waiting never ends', async () => {
    newMinute()
    const k = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { name: 'oversized', role: 'member' } })
    const huge = await p.api('POST', '/v1/connections:bulk', { token: k.body.key, body: { domains: Array.from({ length: 1300 }, (_, i) => `d${i}.example`) } })
    expect([huge.status, huge.body.code]).toEqual([400, 'invalid_request'])
    expect(huge.headers.get('ratelimit')).toStartWith('"api_key";r=4;')
  })
})

describe('per application and per end user (widget tokens)', () => {
  test('one end user\'s token stops at three a minute, others go on; the application\'s tokens together stop at eight', async () => {
    newMinute()
    const [a, b, c] = [await widget(), await widget(), await widget()]
    const as: number[] = []
    for (let i = 0; i < 4; i++) as.push((await p.api('GET', '/v1/webhooks', { token: a })).status)
    expect(as).toEqual([200, 200, 200, 429])
    const refused = await p.api('GET', '/v1/webhooks', { token: a })
    expect(refused.body.details.limit).toBe('end_user')
    expect(refused.headers.get('ratelimit-policy')).toBe('"application";q=8;w=60, "end_user";q=3;w=60')
    const ok = await p.api('GET', '/v1/webhooks', { token: b })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('ratelimit')).toMatch(/^"application";r=4;t=\d+, "end_user";r=2;t=\d+$/)
    for (let i = 0; i < 2; i++) expect((await p.api('GET', '/v1/webhooks', { token: b })).status).toBe(200)
    for (let i = 0; i < 2; i++) expect((await p.api('GET', '/v1/webhooks', { token: c })).status).toBe(200)
    const app = await p.api('GET', '/v1/webhooks', { token: c })
    expect(app.status).toBe(429)
    expect(app.body.details.limit).toBe('application')
  })
})

describe('per agent grant', () => {
  test('four a minute for one grant', async () => {
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Counted agent')
    newMinute()
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await p.api('GET', '/v1/connections', { token: tokens.access_token })).status)
    expect(statuses).toEqual([200, 200, 200, 200, 429])
    const r = await p.api('GET', '/v1/connections', { token: tokens.access_token })
    expect(r.headers.get('ratelimit-policy')).toBe('"agent_grant";q=4;w=60')
    expect(r.body.details.limit).toBe('agent_grant')
  })
})

describe('every answer to a valid credential says where it stands', () => {
  test('413, 415, 422 idempotency_key_reused with a key, and 403 forbidden with a widget token, carry RateLimit and RateLimit-Policy, each counted; a browser may read them', async () => {
    newMinute()
    const k = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { name: 'refused answers', role: 'owner' } })
    const key = k.body.key as string
    const answers = [
      await p.api('POST', '/v1/applications', { token: key, rawBody: `{"name":"${'a'.repeat(1_100_000)}"}`, headers: { 'content-type': 'application/json' } }),
      await p.api('POST', '/v1/applications', { token: key, rawBody: '{}', headers: { 'content-type': 'text/plain' } }),
      await p.api('POST', '/v1/applications', { token: key, body: { name: 'First' }, headers: { 'idempotency-key': 'rl-reused' } }),
      await p.api('POST', '/v1/applications', { token: key, body: { name: 'Second' }, headers: { 'idempotency-key': 'rl-reused' } }),
    ]
    expect(answers.map((a) => a.status)).toEqual([413, 415, 201, 422])
    expect(answers[3]!.body.code).toBe('idempotency_key_reused')
    answers.forEach((a, i) => {
      expect(a.headers.get('ratelimit-policy')).toBe('"api_key";q=5;w=60')
      // Each refused answer was counted: what is left goes down by one each time.
      expect(a.headers.get('ratelimit')).toMatch(new RegExp(`^"api_key";r=${4 - i};t=\\d+$`))
    })
    const token = await widget()
    const forbidden = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token, body: { role: 'member' } })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.code).toBe('forbidden')
    expect(forbidden.headers.get('ratelimit-policy')).toBe('"application";q=8;w=60, "end_user";q=3;w=60')
    expect(forbidden.headers.get('ratelimit')).toMatch(/^"application";r=\d+;t=\d+, "end_user";r=2;t=\d+$/)
    // A page on another origin reading its answer (CORS) is allowed to read both fields.
    const cors = await fetch(`${p.url}/v1/applications/${ws.appId}`, { headers: { authorization: `Bearer ${token}`, origin: 'https://shop.example.com' } })
    await cors.arrayBuffer()
    expect(cors.headers.get('ratelimit')).not.toBeNull()
    const exposed = (cors.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase())
    expect(exposed).toContain('ratelimit')
    expect(exposed).toContain('ratelimit-policy')
  })
})

describe('the OpenAPI document', () => {
  test('declares RateLimit and RateLimit-Policy on the answers of credentialed operations, and 429 with Retry-After', async () => {
    const doc = (await p.api('GET', '/v1/openapi.json')).body
    expect(doc.components.headers.RateLimit.description).toContain('remaining')
    expect(doc.components.headers.RateLimitPolicy.description).toContain('api_key')
    const list = doc.paths['/connections'].get.responses
    for (const status of ['200', '403', '429']) {
      expect(list[status].headers.RateLimit).toEqual({ $ref: '#/components/headers/RateLimit' })
      expect(list[status].headers['RateLimit-Policy']).toEqual({ $ref: '#/components/headers/RateLimitPolicy' })
    }
    expect(list['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' })
    expect(list['401'].headers.RateLimit).toBeUndefined()
    // Operations without a counted credential do not announce them.
    expect(doc.paths['/providers'].get.responses['200'].headers.RateLimit).toBeUndefined()
  })
})
