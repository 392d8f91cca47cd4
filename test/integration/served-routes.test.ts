// Over a real socket, an operation's request is answered by the REST handler without Elysia's pipeline
// (src/http/app.ts, createApp), and nothing a client sees differs for it: the security headers, the
// request id, the RateLimit fields, the peer address its budgets count; a browser's request (Origin,
// preflight) still gets its CORS headers, and the other pages under /v1 (the API reference) still answer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
let ws: Workspace
let base = ''
let server: { stop(force?: boolean): void } | undefined

beforeAll(async () => {
  p = await startPortico({ RATE_LIMITS: 'api_key=1000' }, { poolSize: 4 })
  ws = await provision(p)
  const app = p.app.listen({ port: 0, hostname: '127.0.0.1' })
  server = app.server ?? undefined
  base = `http://127.0.0.1:${app.server!.port}`
})
afterAll(async () => {
  server?.stop(true)
  await p.close()
})

test('an operation answers with its headers, the request id sent and the RateLimit fields', async () => {
  const r = await fetch(`${base}/v1/applications/${ws.appId}`, { headers: { authorization: `Bearer ${ws.apiKey}`, 'x-request-id': 'served-1' } })
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
  expect(r.headers.get('x-content-type-options')).toBe('nosniff')
  expect(r.headers.get('x-request-id')).toBe('served-1')
  expect(r.headers.get('ratelimit-policy')).toBe('"api_key";q=1000;w=60')
  expect(r.headers.get('ratelimit')).toMatch(/^"api_key";r=\d+;t=\d+$/)
  expect(await r.json()).toMatchObject({ id: ws.appId, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) })
  // The answer is the one the handler gives without a socket (same body, same headers but the request id).
  const direct = await p.handle(new Request(`http://portico.test/v1/applications/${ws.appId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } }))
  expect(await direct.json()).toEqual(await (await fetch(`${base}/v1/applications/${ws.appId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json())
})

test('refusals keep their envelope and headers: 401 with its challenge, 404, 405 with Allow', async () => {
  const anon = await fetch(`${base}/v1/applications/${ws.appId}`)
  expect(anon.status).toBe(401)
  expect(anon.headers.get('www-authenticate')).toBe('Bearer realm="portico"')
  expect(anon.headers.get('x-request-id')).toMatch(/^req_/)
  expect(await anon.json()).toMatchObject({ code: 'unauthorized' })
  const missing = await fetch(`${base}/v1/nothing-here`)
  expect(missing.status).toBe(404)
  expect(await missing.json()).toMatchObject({ code: 'not_found' })
  const wrong = await fetch(`${base}/v1/applications/${ws.appId}`, { method: 'PUT', headers: { authorization: `Bearer ${ws.apiKey}` } })
  expect(wrong.status).toBe(405)
  expect(wrong.headers.get('allow')).toBe('GET, HEAD')
})

test('a browser request still gets CORS: the preflight answers, and an answer with Origin exposes the headers', async () => {
  const pre = await fetch(`${base}/v1/applications/${ws.appId}`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } })
  expect(pre.status).toBe(204)
  expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD')
  const r = await fetch(`${base}/v1/applications/${ws.appId}`, { headers: { authorization: `Bearer ${ws.apiKey}`, origin: 'https://shop.example' } })
  expect(r.status).toBe(200)
  expect(r.headers.get('access-control-allow-origin')).toBe('*')
  expect(r.headers.get('access-control-expose-headers')).toContain('x-request-id')
})

test('pages under /v1 that are not operations still answer: the API reference', async () => {
  const r = await fetch(`${base}/v1/docs`)
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toContain('text/html')
  expect(r.headers.get('x-content-type-options')).toBe('nosniff')
})
