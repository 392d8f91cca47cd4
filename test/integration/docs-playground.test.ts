// The API reference is served in every environment; the widget playground only in development.
import { describe, test, expect, afterAll } from 'bun:test'
import { provision, startPortico, type TestPortico } from '../harness/portico.ts'
import { LOCALE_TAGS } from '../../src/widget/i18n.ts'

const started: TestPortico[] = []
const start = async (env: Record<string, string>) => {
  const p = await startPortico(env)
  started.push(p)
  return p
}
afterAll(async () => {
  for (const p of started) await p.close()
})

// Through the whole Elysia app: the docs and the playground are mounts beside the registry's router.
const get = async (p: TestPortico, path: string) => {
  const r = await p.app.handle(new Request(`http://portico.test${path}`))
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() }
}
const mint = async (p: TestPortico, body: unknown, key?: string) => {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }
  const r = await p.app.handle(new Request('http://portico.test/playground/token', { method: 'POST', headers, body: JSON.stringify(body) }))
  return { status: r.status, body: (await r.json()) as any }
}

describe('in production', () => {
  test('/playground is 404 and /v1/docs is served, its UI from this server', async () => {
    const p = await start({ APP_ENV: 'production' })
    const pg = await get(p, '/playground')
    expect(pg.status).toBe(404)
    expect(JSON.parse(pg.text).code).toBe('not_found')
    expect((await mint(p, { application_id: 'app_x' })).status).toBe(404)

    const docs = await get(p, '/v1/docs')
    expect(docs.status).toBe(200)
    expect(docs.type).toContain('text/html')
    expect(docs.text).toContain('src="/v1/docs/swagger-ui-bundle.js"')
    expect(docs.text).not.toContain('unpkg.com')
    // Nothing runs inline (a strict CSP holds): every script is a file, started by init.js.
    expect(docs.text.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull()
    expect((await get(p, '/v1/docs/init.js')).text).toContain("url: '/v1/openapi.json'")
    const js = await get(p, '/v1/docs/swagger-ui-bundle.js')
    expect([js.status, js.type]).toEqual([200, 'text/javascript; charset=utf-8'])
    expect(js.text).toContain('SwaggerUIBundle')
    expect((await get(p, '/v1/docs/package.json')).status).toBe(404)
  })
})

describe('in development', () => {
  test('/playground mints a widget token for an application the key can read, and only then', async () => {
    const p = await start({ APP_ENV: 'development' })
    const page = (await get(p, '/playground')).text
    expect(page).toContain('<script src="/widget.js"></script>')
    expect(page.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull()
    expect(page).toContain('<input id="pg-key" type="password"')
    // The language picker offers every locale the widget carries (its one list), and the browser's.
    const offered = [...page.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1])
    expect(offered).toEqual(['', ...LOCALE_TAGS])
    expect(page).toContain('<option value="he" lang="he">עברית</option>')
    expect((await get(p, '/playground/playground.js')).type).toBe('text/javascript; charset=utf-8')
    expect((await get(p, '/playground/..%2Fdocs.ts')).status).toBe(404)
    const a = await provision(p)
    const b = await provision(p)
    const ok = await mint(p, { application_id: a.appId }, a.apiKey)
    expect(ok.status).toBe(200)
    const widget = await p.api('POST', '/v1/domains:check', { token: ok.body.token, body: { domain: 'shop.example.com' } })
    expect(widget.status).not.toBe(401)
    expect((await mint(p, { application_id: b.appId }, a.apiKey)).status).toBe(404)
    expect((await mint(p, { application_id: a.appId })).status).toBe(401)
    expect((await mint(p, {}, a.apiKey)).status).toBe(400)
  })
})
