// Production response headers, as a browser and a scanner see them: nosniff on every answer of every
// face, HSTS when PUBLIC_URL is https, a Content-Security-Policy with frame-ancestors on every HTML
// page, and the OAuth cookies Secure (https), HttpOnly and SameSite.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

const BASE = 'https://portico.example'
let p: TestPortico
let ws: Workspace

beforeAll(async () => {
  p = await startPortico({ PUBLIC_URL: BASE })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

/** Through the whole app (every mount), as the listening server serves it. */
const get = (path: string, init: RequestInit = {}) => p.app.handle(new Request(BASE + path, init))

describe('behind https', () => {
  test('API answers, errors included, carry HSTS and nosniff', async () => {
    for (const r of [await p.api('GET', '/v1/config'), await p.api('GET', '/v1/connections'), await p.api('GET', '/v1/nope'), await p.api('GET', '/v1/connections', { token: ws.apiKey })]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff')
      expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000')
    }
  })

  test('every face: docs, its assets, the widget bundle, the share page, OAuth metadata, MCP metadata, healthz', async () => {
    for (const path of ['/v1/docs', '/v1/docs/swagger-ui.css', '/widget.js', '/share/shr_unknown', '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp', '/healthz', '/v1/openapi.json']) {
      const r = await get(path)
      expect({ path, nosniff: r.headers.get('x-content-type-options'), hsts: r.headers.get('strict-transport-security') }).toEqual({ path, nosniff: 'nosniff', hsts: 'max-age=31536000' })
    }
  })

  test('every HTML page has a Content-Security-Policy that forbids framing', async () => {
    const pages = ['/v1/docs', '/share/shr_unknown']
    for (const path of pages) {
      const r = await get(path)
      expect(r.headers.get('content-type')).toStartWith('text/html')
      const csp = r.headers.get('content-security-policy') ?? ''
      expect({ path, framing: /frame-ancestors 'none'/.test(csp), inline: /script-src[^;]*'unsafe-inline'/.test(csp) }).toEqual({ path, framing: true, inline: false })
    }
  })

  test('the OAuth cookies are Secure, HttpOnly and SameSite', async () => {
    const reg = await get('/v1/oauth/agent/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Cookie probe', redirect_uris: ['http://127.0.0.1:9/cb'] }),
    })
    const client = (await reg.json()) as { client_id: string }
    const q = new URLSearchParams({ client_id: client.client_id, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'domains:read', state: 's' })
    const auth = await get(`/oauth/auth?${q}`, { redirect: 'manual' })
    const cookies = auth.headers.getSetCookie()
    expect(cookies.length).toBeGreaterThan(0)
    for (const c of cookies) {
      const attrs = c.toLowerCase()
      expect({ c, secure: attrs.includes('; secure'), httponly: attrs.includes('; httponly'), samesite: /; samesite=(lax|strict)/.test(attrs) }).toEqual({ c, secure: true, httponly: true, samesite: true })
    }
    // The consent page the cookies lead to: its own strict policy.
    const consent = await get(new URL(auth.headers.get('location')!, BASE).pathname, { headers: { cookie: cookies.map((c) => c.split(';')[0]).join('; ') } })
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(consent.headers.get('x-content-type-options')).toBe('nosniff')
    expect(consent.headers.get('strict-transport-security')).toBe('max-age=31536000')
  })
})

describe('over plain http (development)', () => {
  test('no HSTS, still nosniff', async () => {
    const q = await startPortico({ APP_ENV: 'development', PUBLIC_URL: 'http://127.0.0.1:8080' })
    try {
      const r = await q.api('GET', '/v1/config')
      expect(r.headers.get('strict-transport-security')).toBeNull()
      expect(r.headers.get('x-content-type-options')).toBe('nosniff')
      const play = await q.app.handle(new Request('http://127.0.0.1:8080/playground'))
      expect(play.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
      expect(play.headers.get('x-content-type-options')).toBe('nosniff')
    } finally {
      await q.close()
    }
  })
})
