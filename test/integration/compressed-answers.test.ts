// A large JSON answer (a list page) goes compressed to a client that accepts zstd or gzip, and as it
// was to one that accepts neither (src/http/encoded.ts `compressed`): the same JSON either way, with
// `Vary: Accept-Encoding`; a small answer is never compressed.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { gunzipSync } from 'node:zlib'
import { startPdns } from '../harness/pdns.ts'
import { startPortico, provision, type TestPortico, type Workspace } from '../harness/portico.ts'
import { COMPRESS_FROM } from '../../src/http/encoded.ts'

let p: TestPortico
let ws: Workspace
beforeAll(async () => {
  const pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test' })
  ws = await provision(p)
  const zone = `zip${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  const domains = Array.from({ length: 50 }, (_, i) => `shop${i}.${zone}`)
  const bulk = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains } })
  expect(bulk.status).toBeLessThan(300)
}, 60_000)
afterAll(() => p?.close())

const page = (acceptEncoding?: string) =>
  p.handle(new Request('http://portico.test/v1/connections?limit=50', { headers: { authorization: `Bearer ${ws.apiKey}`, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) } }))

test('a list page is the same JSON in zstd, in gzip and as it is, and says it varies by Accept-Encoding', async () => {
  const plain = await page()
  const text = await plain.text()
  expect(text.length).toBeGreaterThan(COMPRESS_FROM)
  expect(plain.headers.get('content-encoding')).toBeNull()
  expect(plain.headers.get('vary')).toBe('accept-encoding')
  expect(JSON.parse(text).connections).toHaveLength(50)

  const zstd = await page('gzip, deflate, br, zstd')
  expect(zstd.headers.get('content-encoding')).toBe('zstd')
  expect(zstd.headers.get('vary')).toBe('accept-encoding')
  const zbytes = new Uint8Array(await zstd.arrayBuffer())
  expect(zbytes.length).toBeLessThan(text.length / 4)
  expect(new TextDecoder().decode(Bun.zstdDecompressSync(zbytes))).toBe(text)

  const gzip = await page('gzip;q=1.0, zstd;q=0')
  expect(gzip.headers.get('content-encoding')).toBe('gzip')
  expect(gunzipSync(new Uint8Array(await gzip.arrayBuffer())).toString('utf8')).toBe(text)

  const neither = await page('br, deflate')
  expect(neither.headers.get('content-encoding')).toBeNull()
  expect(await neither.text()).toBe(text)
})

test('a small answer is never compressed, whatever the client accepts', async () => {
  const r = await p.handle(new Request(`http://portico.test/v1/applications/${ws.appId}`, { headers: { authorization: `Bearer ${ws.apiKey}`, 'accept-encoding': 'zstd, gzip' } }))
  expect(r.status).toBe(200)
  expect(r.headers.get('content-encoding')).toBeNull()
  expect(r.headers.get('vary')).toBeNull()
  expect((await r.json()).id).toBe(ws.appId)
})
