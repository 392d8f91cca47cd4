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

const decoded = async (r: Response) => {
  const bytes = new Uint8Array(await r.arrayBuffer())
  const coding = r.headers.get('content-encoding')
  return new TextDecoder().decode(coding === 'zstd' ? Bun.zstdDecompressSync(bytes) : coding === 'gzip' ? gunzipSync(bytes) : bytes)
}

test('a page asked again while its rows are unchanged is the same answer; a row changed or closed since shows at once, in every coding', async () => {
  const codings = ['zstd', 'gzip', undefined]
  const before = await Promise.all(codings.map(async (c) => decoded(await page(c))))
  const again = await Promise.all(codings.map(async (c) => decoded(await page(c))))
  expect(new Set([...before, ...again]).size).toBe(1)
  const first = JSON.parse(before[0]!)
  expect(first.count).toBe(50)

  // One row's records replaced: a new version of a row on the page, the page's rows the same.
  const [changed, closed] = first.connections as { id: string; subdomain: string }[]
  const records = [{ type: 'TXT', host: changed!.subdomain, value: 'page-cache-check' }]
  expect((await p.api('PUT', `/v1/connections/${changed!.id}/records`, { token: ws.apiKey, body: { records } })).status).toBe(200)
  for (const c of codings) {
    const after = JSON.parse(await decoded(await page(c)))
    expect(after.count).toBe(50)
    const shown = after.connections.find((x: { id: string }) => x.id === changed!.id)
    expect(shown.records_source).toBe('custom')
    expect(shown.records).toEqual([expect.objectContaining({ type: 'TXT', value: 'page-cache-check' })])
  }

  // Another disconnected: it leaves the page.
  expect((await p.api('POST', `/v1/connections/${closed!.id}:disconnect`, { token: ws.apiKey })).status).toBeLessThan(300)
  for (const c of codings) {
    const after = JSON.parse(await decoded(await page(c)))
    expect(after.count).toBe(49)
    expect(after.connections.map((x: { id: string }) => x.id)).not.toContain(closed!.id)
  }
})
