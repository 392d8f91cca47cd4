// The request read by its grammar, from a client's side over a real socket (RFC 9110, RFC 9112): every
// GET operation answers HEAD with the status and headers its GET has and no body; every content Portico
// serves compressed (the provider catalog, the widget bundle and its locale tables, the share page's
// assets) names each encoding with its own ETag, so a cache holding one representation never gets a
// 304 for another, and `If-None-Match: *` is a 304 for any of them; every face says 405 with Allow for
// a method its path does not take; Host is checked on every face; a body in a coding Portico does not
// read is refused, not read as plain; pages in the person's language say so.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { headerOf, rawExchange as rawAt, statusOf } from '../harness/raw-http.ts'
import { startPdns } from '../harness/pdns.ts'
import { startPortico, provision, type TestPortico, type Workspace } from '../harness/portico.ts'
import { OPERATIONS } from '../../src/ops/operations.ts'
import { fullPath } from '../../src/http/app.ts'
import { widgetBundle } from '../../src/widget/build.ts'
import { pkce, registerClient } from '../harness/agents.ts'

let p: TestPortico
let ws: Workspace
let base: string
let server: { stop(force?: boolean): Promise<void> }
let zone: string
beforeAll(async () => {
  const pdns = await startPdns()
  zone = `grammar${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test' })
  ws = await provision(p)
  const app = p.app.listen({ port: 0, hostname: '127.0.0.1' }) as unknown as { server: { port: number; stop(force?: boolean): Promise<void> } }
  server = app.server
  base = `http://127.0.0.1:${app.server.port}`
}, 60_000)
afterAll(async () => {
  await server?.stop(true)
  await p?.close()
})

const SAME = ['content-type', 'content-encoding', 'etag', 'vary', 'cache-control', 'allow', 'content-language']

test('every GET operation answers HEAD as it answers GET, without a body', async () => {
  const gets = OPERATIONS.filter((op) => op.method === 'GET')
  expect(gets.length).toBeGreaterThan(20)
  for (const op of gets) {
    const path = fullPath(op).replace(/\{(\w+)\}/g, (_, name: string) => (name === 'id' && op.path.startsWith('/applications') ? ws.appId : `x_${name}`))
    const headers = { authorization: `Bearer ${ws.apiKey}`, 'accept-encoding': 'gzip, deflate, br, zstd' }
    const get = await fetch(base + path, { headers, decompress: false } as RequestInit)
    const getBytes = (await get.arrayBuffer()).byteLength
    const head = await fetch(base + path, { method: 'HEAD', headers, decompress: false } as RequestInit)
    const what = `${op.id} ${path}`
    expect([what, head.status]).toEqual([what, get.status])
    expect([what, head.status]).not.toEqual([what, 405])
    for (const h of SAME) expect([what, h, head.headers.get(h)]).toEqual([what, h, get.headers.get(h)])
    if (get.headers.get('content-length') !== null) expect(Number(get.headers.get('content-length'))).toBe(getBytes)
    // A HEAD says the length of its GET's content, or none; it is never chunked (a large GET is: encoded.ts `lateBody`).
    expect([what, head.headers.get('content-length') ?? String(getBytes)]).toEqual([what, String(getBytes)])
    expect([what, head.headers.get('transfer-encoding')]).toEqual([what, null])
    expect((await head.arrayBuffer()).byteLength).toBe(0)
  }
}, 120_000)

test('over HTTP/1.0, a large answer ends with the connection and its HEAD says its length, never chunked (RFC 9112 section 6.1)', async () => {
  // An operation's answer, and another face's (Elysia's).
  for (const path of ['/v1/openapi.json', '/metrics']) {
    const get = await rawExchange(`GET ${path} HTTP/1.0\r\n\r\n`)
    const body = get.slice(get.indexOf('\r\n\r\n') + 4)
    expect([path, statusOf(get), headerOf(get, 'transfer-encoding'), body.length > 12_288]).toEqual([path, 200, null, true])
    const head = await rawExchange(`HEAD ${path} HTTP/1.0\r\n\r\n`)
    expect([path, statusOf(head), headerOf(head, 'transfer-encoding')]).toEqual([path, 200, null])
    // The document's length exactly; the metrics move between the two requests.
    const length = Number(headerOf(head, 'content-length'))
    expect([path, path === '/metrics' ? length > 12_288 : length === body.length]).toEqual([path, true])
    expect(head.slice(head.indexOf('\r\n\r\n') + 4)).toBe('')
  }
})

test('a path that has no GET says so, and lists HEAD beside GET where it has one', async () => {
  const r = await fetch(`${base}/v1/connections`, { method: 'PUT', headers: { authorization: `Bearer ${ws.apiKey}` } })
  expect(r.status).toBe(405)
  expect(r.headers.get('allow')).toBe('GET, HEAD, POST')
  expect((await r.json()).code).toBe('method_not_allowed')
})

async function everyContent(): Promise<string[]> {
  const b = await widgetBundle()
  const page = await (await fetch(`${base}/v1/openapi.json`)).text()
  expect(page.length).toBeGreaterThan(0)
  const share = await fetch(`${base}/share/not-a-real-token-0000`)
  const assets = [...(await share.text()).matchAll(/(?:src|href)="(\/share\/assets\/[^"]+)"/g)].map((m) => m[1]!)
  return ['/v1/providers', `/widget/v${b.version}/portico.js`, `/widget/locales/${b.localesVersion}/fr.json`, ...assets]
}

test('each encoding of a content has its own ETag; a tag held for one is no 304 for another; * is', async () => {
  const paths = await everyContent()
  for (const path of paths) {
    const tags = new Map<string, string>()
    for (const coding of ['identity', 'br', 'zstd', 'gzip']) {
      const r = await fetch(base + path, { headers: { 'accept-encoding': coding }, decompress: false } as RequestInit)
      expect([path, coding, r.status]).toEqual([path, coding, 200])
      expect([path, r.headers.get('content-encoding') ?? 'identity']).toEqual([path, coding])
      expect(r.headers.get('vary')).toBe('accept-encoding')
      tags.set(coding, r.headers.get('etag')!)
      await r.arrayBuffer()
    }
    expect([path, new Set(tags.values()).size]).toEqual([path, 4])
    for (const [held, tag] of tags) {
      for (const [now, own] of tags) {
        const r = await fetch(base + path, { headers: { 'accept-encoding': now, 'if-none-match': tag }, decompress: false } as RequestInit)
        expect([path, held, now, r.status]).toEqual([path, held, now, held === now ? 304 : 200])
        if (r.status === 304) expect(r.headers.get('etag')).toBe(own)
        await r.arrayBuffer()
      }
      const weak = await fetch(base + path, { headers: { 'accept-encoding': held, 'if-none-match': `"other", W/${tag}` } })
      expect([path, held, weak.status]).toEqual([path, held, 304])
    }
    const star = await fetch(base + path, { headers: { 'accept-encoding': 'gzip', 'if-none-match': '*' } })
    expect([path, star.status]).toEqual([path, 304])
  }
}, 60_000)

test('the catalog and a list page read the same Accept-Encoding alike', async () => {
  const cases: [string, string | null][] = [
    ['gzip ;q=1', 'gzip'],
    ['zstd ; q=0.5', 'zstd'],
    ['x-gzip', 'gzip'],
    ['*', null], // the catalog's first choice is br, a list page's zstd
    ['gzip;q=1.5', 'identity'],
    ['gzip;q=0.0001', 'identity'],
    ['identity;q=1, gzip;q=0.5', 'identity'],
  ]
  const bulk = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: Array.from({ length: 40 }, (_, i) => `shop${i}.${zone}`) } })
  expect(bulk.status).toBeLessThan(300)
  for (const [header, coding] of cases) {
    const catalog = await fetch(`${base}/v1/providers`, { headers: { 'accept-encoding': header }, decompress: false } as RequestInit)
    const list = await fetch(`${base}/v1/connections?limit=40`, { headers: { 'accept-encoding': header, authorization: `Bearer ${ws.apiKey}` }, decompress: false } as RequestInit)
    const got = [catalog.headers.get('content-encoding') ?? 'identity', list.headers.get('content-encoding') ?? 'identity']
    expect([header, ...got]).toEqual(coding === null ? [header, 'br', 'zstd'] : [header, coding, coding])
    await catalog.arrayBuffer()
    await list.arrayBuffer()
  }
})

test('the return page reads Accept-Language by its weights: q=0 is a refusal', async () => {
  const lang = async (header: string) => (await (await fetch(`${base}/widget/return`, { headers: { 'accept-language': header } })).text()).match(/<html lang="([\w-]+)"/)?.[1]
  expect(await lang('fr;q=0, de')).toBe('de')
  expect(await lang('de;q=0.2, fr;q=0.9')).toBe('fr')
  expect(await lang('fr-CA')).toBe('fr')
})

/** What the server wrote back to `raw` sent as is on one connection, until it closed it. */
const rawExchange = (raw: string) => rawAt(Number(new URL(base).port), raw)

test('Host: none over HTTP/1.0 is served; a malformed one, or two, is a 400 on every face', async () => {
  for (const path of ['/healthz', '/v1/providers', '/widget/return']) {
    expect([path, statusOf(await rawExchange(`GET ${path} HTTP/1.0\r\n\r\n`))]).toEqual([path, 200])
    expect([path, statusOf(await rawExchange(`GET ${path} HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n`))]).toEqual([path, 200])
    for (const host of ['Host: a b', 'Host: a\r\nHost: b', 'Host: a/b', 'Host: [::1']) {
      const answer = await rawExchange(`GET ${path} HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`)
      expect([path, host, statusOf(answer)]).toEqual([path, host, 400])
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).code).toBe('invalid_request')
    }
  }
})

test("every face answers a method its path does not take with 405 and the path's methods", async () => {
  const cases: [string, string, string][] = [
    ['POST', '/metrics', 'GET, HEAD'],
    ['DELETE', '/widget/return', 'GET, HEAD'],
    ['POST', '/.well-known/oauth-authorization-server', 'GET, HEAD, OPTIONS'],
    ['GET', '/v1/oauth/agent/register', 'POST, OPTIONS'],
    ['PUT', '/healthz', 'GET, HEAD'],
  ]
  for (const [method, path, allow] of cases) {
    const r = await fetch(base + path, { method })
    expect([method, path, r.status, r.headers.get('allow')]).toEqual([method, path, 405, allow])
    expect((await r.json()).code).toBe('method_not_allowed')
  }
  expect((await fetch(`${base}/no-such-page`, { method: 'POST' })).status).toBe(404)
})

test('a body in a coding Portico does not read is refused with 415 and Accept-Encoding: identity, not read as plain', async () => {
  const body = JSON.stringify({ domain: `shop.${zone}` })
  for (const coding of ['br', 'gzip', 'identity, gzip']) {
    const r = await fetch(`${base}/v1/domains:check`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json', 'content-encoding': coding }, body })
    expect([coding, r.status, r.headers.get('accept-encoding')]).toEqual([coding, 415, 'identity'])
    expect((await r.json()).code).toBe('unsupported_media_type')
  }
  const plain = await fetch(`${base}/v1/domains:check`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json', 'content-encoding': 'identity' }, body })
  expect(plain.status).toBe(200)
})

test('agent registration takes JSON declared as JSON only: a page cannot register clients without a preflight', async () => {
  const metadata = JSON.stringify({ client_name: 'Grammar test', redirect_uris: ['http://127.0.0.1:9/cb'] })
  const sent = (headers: Record<string, string>) => fetch(`${base}/v1/oauth/agent/register`, { method: 'POST', headers, body: new Blob([metadata]) })
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const r = await sent({ 'content-type': type })
    expect([type, r.status]).toEqual([type, 415])
    expect((await r.json()).error).toBe('invalid_client_metadata')
  }
  expect((await sent({})).status).toBe(415)
  expect((await sent({ 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(415)
  expect((await sent({ 'content-type': 'application/json; charset=utf-8' })).status).toBe(201)
})

test('the return page says which language it chose, that it chose by Accept-Language, and which way it reads', async () => {
  const ar = await fetch(`${base}/widget/return`, { headers: { 'accept-language': 'ar' } })
  expect([ar.headers.get('content-language'), ar.headers.get('vary')]).toEqual(['ar', 'accept-language'])
  expect(await ar.text()).toContain('<html lang="ar" dir="rtl">')
  const notEnglish = await fetch(`${base}/widget/return`, { headers: { 'accept-language': '*, en;q=0' } })
  expect(notEnglish.headers.get('content-language')).not.toBe('en')
})

test('no cache stores an API answer but the catalogs: no-store on reads, writes, errors and unauthenticated reads alike', async () => {
  const auth = { authorization: `Bearer ${ws.apiKey}` }
  const answers = [
    await fetch(`${base}/v1/connections`, { headers: auth }),
    await fetch(`${base}/v1/applications/${ws.appId}`, { headers: auth }),
    await fetch(`${base}/v1/share/not-a-real-token-0000`),
    await fetch(`${base}/v1/connections/con_nope`, { headers: auth }),
    await fetch(`${base}/v1/domains:check`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ domain: `shop.${zone}` }) }),
  ]
  for (const r of answers) expect([r.url, r.status, r.headers.get('cache-control')]).toEqual([r.url, r.status, 'no-store'])
  expect((await fetch(`${base}/v1/providers`)).headers.get('cache-control')).toBe('public, max-age=3600')
})

test('a HEAD beside shared content that is not there has the type and the caching its GET has', async () => {
  for (const path of ['/widget/v0.nope/portico.js', '/widget/locales/nope/fr.json', '/share-page/nope/share.js']) {
    const get = await fetch(base + path)
    const head = await fetch(base + path, { method: 'HEAD' })
    expect([path, get.status, head.status]).toEqual([path, 404, 404])
    for (const h of ['content-type', 'cache-control']) expect([path, h, head.headers.get(h)]).toEqual([path, h, get.headers.get(h)])
    expect(head.headers.get('content-type')).toBe('text/plain; charset=utf-8')
  }
})

test('no face answers 500 to a Host it may not parse: none over HTTP/1.0, one no URL parser takes, an IP literal of the future', async () => {
  const hosts = ['', 'Host: 256.256.256.256\r\n', 'Host: localhost:65536\r\n', 'Host: [v1.fe80::a+en1]\r\n']
  for (const path of ['/oauth/jwks', '/share/shr_aaaaaaaaaaaaaaaa', '/mcp', '/healthz', '/v1/providers']) {
    for (const host of hosts) {
      const answer = await rawExchange(`GET ${path} HTTP/${host ? '1.1' : '1.0'}\r\n${host}Connection: close\r\n\r\n`)
      expect([path, host, statusOf(answer) < 500]).toEqual([path, host, true])
    }
  }
  expect(statusOf(await rawExchange('GET /oauth/jwks HTTP/1.0\r\n\r\n'))).toBe(200)
})

test('an authorization request and a sign-out are answered alike under any Host RFC 3986 takes (the provider is told the issuer\'s host)', async () => {
  const reg = await registerClient(base, { client_name: 'Host agent', redirect_uris: ['http://127.0.0.1:9/cb'] })
  const query = new URLSearchParams({ client_id: reg.body.client_id, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:read', state: 's1' })
  for (const host of ['Host: 127.0.0.1\r\n', 'Host: 256.256.256.256\r\n', 'Host: localhost:65536\r\n', 'Host: [v1.fe80::a+en1]\r\n', 'Host: a\r\n']) {
    const auth = await rawExchange(`GET /oauth/auth?${query} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`)
    expect([host, statusOf(auth), headerOf(auth, 'location')?.startsWith('/oauth/consent/')]).toEqual([host, 303, true])
    const end = await rawExchange(`GET /oauth/session/end HTTP/1.1\r\n${host}Connection: close\r\n\r\n`)
    expect([host, statusOf(end)]).toEqual([host, 200])
  }
})

test('every face refuses a body in a coding it does not read, before reading it', async () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' }
  for (const path of ['/oauth/token', '/oauth/token/revocation', '/share/shr_aaaaaaaaaaaaaaaa', '/v1/payments/webhook']) {
    const r = await fetch(base + path, { method: 'POST', headers: form, body: 'grant_type=refresh_token&refresh_token=x&client_id=y' })
    expect([path, r.status, r.headers.get('accept-encoding')]).toEqual([path, 415, 'identity'])
    expect((await r.json()).code).toBe('unsupported_media_type')
  }
})

test('the public catalogs grant CORS on every copy a shared cache may keep; OAuth JSON is not stored', async () => {
  const catalog = await fetch(`${base}/v1/providers`)
  expect([catalog.headers.get('access-control-allow-origin'), catalog.headers.get('cache-control')]).toEqual(['*', 'public, max-age=3600'])
  const jwks = await fetch(`${base}/oauth/jwks`)
  expect([jwks.status, jwks.headers.get('cache-control')]).toEqual([200, 'no-store'])
})

test('a proxy that names Portico by a short Host (`api`) reaches every face, and the client is still known by its address', async () => {
  for (const [method, path, expected] of [
    ['GET', '/oauth/jwks', 200],
    ['GET', '/widget/return', 200],
    ['GET', '/metrics', 200],
    ['POST', '/mcp', 401],
  ] as const) {
    const answer = await rawExchange(`${method} ${path} HTTP/1.1\r\nHost: api\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
    expect([method, path, statusOf(answer)]).toEqual([method, path, expected])
  }
  // A write from a browser (Origin) goes through the faces' router: its audit row has the socket's address.
  const body = JSON.stringify({ domain: `short-host.${zone}` })
  const answer = await rawExchange(
    `POST /v1/connections HTTP/1.1\r\nHost: api\r\nOrigin: https://shop.example\r\nAuthorization: Bearer ${ws.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  )
  expect(statusOf(answer)).toBe(201)
  const id = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).id
  const log = await p.api('GET', '/v1/audit-log?limit=50', { token: ws.apiKey })
  const row = log.body.entries.find((e: { target_id: string }) => e.target_id === id)
  expect(row?.ip).toMatch(/127\.0\.0\.1$/)
})

test('a browser MCP client may ask for the discovery documents with its own headers (CORS preflight)', async () => {
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
    const r = await fetch(base + path, { method: 'OPTIONS', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' } })
    expect([path, r.status, r.headers.get('access-control-allow-origin'), r.headers.get('access-control-allow-headers')]).toEqual([path, 204, '*', 'mcp-protocol-version'])
  }
})

test("the OAuth face's routes answer their methods, and any other with 405 naming them", async () => {
  const paths: [string, string][] = [
    ['/oauth/auth', 'GET, HEAD'],
    ['/oauth/auth/abc', 'GET, HEAD'],
    ['/oauth/token', 'POST'],
    ['/oauth/token/revocation', 'POST'],
    ['/oauth/jwks', 'GET, HEAD'],
    ['/oauth/request', 'POST'],
    ['/oauth/session/end', 'GET, HEAD'],
    ['/oauth/session/end/confirm', 'POST'],
    ['/oauth/session/end/success', 'GET, HEAD'],
    ['/oauth/agents', 'GET, HEAD, POST'],
  ]
  for (const [path, allow] of paths) {
    for (const method of allow.split(', ')) {
      const r = await fetch(base + path, { method, ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' } : {}) })
      expect([path, method, r.status === 404 || r.status === 405]).toEqual([path, method, false])
    }
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'].filter((m) => !allow.split(', ').includes(m))) {
      const r = await fetch(base + path, { method })
      expect([path, method, r.status, r.headers.get('allow')]).toEqual([path, method, 405, allow])
      expect((await r.json()).code).toBe('method_not_allowed')
    }
  }
  expect((await fetch(`${base}/oauth/no-such-endpoint`)).status).toBe(404)
})

test('every face answers with a request id, the client\'s own when well-formed; an unknown OAuth path is a 404 in the envelope', async () => {
  for (const [method, path] of [
    ['GET', '/v1/docs'],
    ['GET', '/metrics'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/oauth/jwks'],
    ['GET', '/oauth/session/end'],
    ['GET', '/oauth/nope'],
    ['POST', '/mcp'],
    ['GET', '/widget.js'],
    ['GET', '/widget/return'],
    ['GET', '/share/abc'],
  ] as const) {
    const r = await fetch(base + path, { method, redirect: 'manual' })
    expect([method, path, /^[\w.-]{1,64}$/.test(r.headers.get('x-request-id') ?? '')]).toEqual([method, path, true])
    const own = await fetch(base + path, { method, redirect: 'manual', headers: { 'x-request-id': 'trace-7.a_b' } })
    expect([method, path, own.headers.get('x-request-id')]).toEqual([method, path, 'trace-7.a_b'])
  }
  const refused = await rawExchange('GET /oauth/jwks HTTP/1.1\r\nHost: a b\r\nX-Request-Id: at-the-door\r\nConnection: close\r\n\r\n')
  expect([statusOf(refused), headerOf(refused, 'x-request-id')]).toEqual([400, 'at-the-door'])
  const unknown = await fetch(`${base}/oauth/nope`)
  expect([unknown.status, await unknown.json()]).toEqual([404, { code: 'not_found', title: 'No such route' }])
})
