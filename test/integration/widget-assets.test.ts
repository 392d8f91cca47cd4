// What the widget downloads, as a browser asks for it: the bundle and its locale tables (immutable,
// brotli or gzip as accepted, ETag and 304), the provider catalog and one provider's entry (compressed,
// ETag, 304, cacheable an hour), and the names-only catalog the provider picker needs.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { brotliDecompressSync } from 'node:zlib'
import { startPortico, type TestPortico } from '../harness/portico.ts'
import { widgetBundle } from '../../src/widget/build.ts'
import { TABLES } from '../../src/widget/locales/index.ts'

let p: TestPortico

beforeAll(async () => {
  p = await startPortico()
})

afterAll(async () => {
  await p?.close()
})

const get = (path: string, headers: Record<string, string> = {}) => p.app.handle(new Request(`http://portico.test${path}`, { headers }))

async function body(r: Response): Promise<string> {
  const bytes = new Uint8Array(await r.arrayBuffer())
  const enc = r.headers.get('content-encoding')
  if (enc === 'br') return new TextDecoder().decode(brotliDecompressSync(bytes))
  if (enc === 'gzip') return new TextDecoder().decode(Bun.gunzipSync(bytes))
  return new TextDecoder().decode(bytes)
}

describe('the provider catalog', () => {
  test('compressed as accepted, with an ETag; a client holding it gets 304; cacheable for an hour', async () => {
    const plain = await get('/v1/providers')
    const size = (await plain.clone().arrayBuffer()).byteLength
    const br = await get('/v1/providers', { 'accept-encoding': 'gzip, deflate, br' })
    expect(br.headers.get('content-encoding')).toBe('br')
    const brSize = (await br.clone().arrayBuffer()).byteLength
    expect(brSize * 5).toBeLessThan(size)
    expect(JSON.parse(await body(br))).toEqual(await plain.json())
    const gz = await get('/v1/providers', { 'accept-encoding': 'gzip' })
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(JSON.parse(await body(gz)).providers.length).toBeGreaterThan(10)
    expect(br.headers.get('cache-control')).toBe('public, max-age=3600')
    expect(br.headers.get('vary')).toBe('accept-encoding')
    const etag = br.headers.get('etag')!
    expect(etag).toMatch(/^"[\w-]+"$/)
    const again = await get('/v1/providers', { 'if-none-match': etag, 'accept-encoding': 'br' })
    expect(again.status).toBe(304)
    expect((await again.arrayBuffer()).byteLength).toBe(0)
    // br;q=0 is a refusal, not a wish.
    expect((await get('/v1/providers', { 'accept-encoding': 'br;q=0, gzip' })).headers.get('content-encoding')).toBe('gzip')
  })

  test('one provider alone, and the names alone: what one screen needs, not the catalog', async () => {
    const all = (await (await get('/v1/providers')).json()) as { providers: { id: string; name: string; manual_steps: string[] }[] }
    const one = await get('/v1/providers/cloudflare', { 'accept-encoding': 'gzip' })
    expect(one.status).toBe(200)
    const entry = JSON.parse(await body(one)).provider
    expect(entry).toEqual(all.providers.find((x) => x.id === 'cloudflare'))
    expect(one.headers.get('etag')).toBeTruthy()
    expect((await get('/v1/providers/no-such-provider')).status).toBe(404)
    const names = JSON.parse(await body(await get('/v1/providers?fields=names')))
    expect(names).toEqual({ providers: all.providers.map(({ id, name }) => ({ id, name })) })
    expect((await get('/v1/providers?fields=everything')).status).toBe(400)
  })
})

describe('the bundle and its locale tables', () => {
  test('the bundle: brotli or gzip as accepted, immutable, 304 for the ETag held', async () => {
    const b = await widgetBundle()
    const path = `/widget/v${b.version}/portico.js`
    const br = await get(path, { 'accept-encoding': 'br, gzip' })
    expect([br.status, br.headers.get('content-encoding'), br.headers.get('cache-control')]).toEqual([200, 'br', 'public, max-age=31536000, immutable'])
    expect(await body(br)).toBe(b.code)
    expect((await get(path, { 'if-none-match': b.etag })).status).toBe(304)
  })

  test('each locale table beside it, under the hash the bundle carries; unknown ones are 404', async () => {
    const b = await widgetBundle()
    const fr = await get(`/widget/locales/${b.localesVersion}/fr.json`, { 'accept-encoding': 'gzip' })
    expect([fr.status, fr.headers.get('content-encoding'), fr.headers.get('cache-control')]).toEqual([200, 'gzip', 'public, max-age=31536000, immutable'])
    expect(JSON.parse(await body(fr))).toEqual(TABLES.fr)
    expect(fr.headers.get('access-control-allow-origin')).toBe('*')
    expect((await get(`/widget/locales/${b.localesVersion}/xx.json`)).status).toBe(404)
    expect((await get('/widget/locales/000000000000/fr.json')).status).toBe(404)
    expect((await get(`/widget/locales/${b.localesVersion}/en.json`)).status).toBe(404)
  })
})
