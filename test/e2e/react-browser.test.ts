// packages/react in Debian's Chromium with real React 19 (react-dom/client) under StrictMode, against
// a Portico listening on loopback that serves widget.js to a page on another origin. The page's own
// server mints 60-second widget tokens (`POST /v1/tokens`), so the widget asks `getToken` at its first
// call and then half-way through each token's life. Shown: the component under StrictMode's mount, unmount, mount leaves exactly one
// widget and calls no onClose; unmounting takes the widget away quietly; the hook opens and closes
// the widget with its typed callbacks, and `getToken` is called by the widget itself.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

const BROWSER_TIMEOUT = 120_000
let p: TestPortico
let server: { stop(force?: boolean): unknown }
let base = ''
let ws: Workspace
let host: ReturnType<typeof Bun.serve>
let browser: Browser
let bundle = ''

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

const page = (mode: 'component' | 'hook') => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Sites</title></head><body>
<h1>Acme Sites</h1><div id="root"></div>
<script>window.cfg = ${JSON.stringify({ scriptUrl: `${base}/widget.js`, applicationId: ws.appId, mode })}</script>
<script type="module" src="/app.js"></script></body></html>`

beforeAll(async () => {
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, '../../packages/react/test/app.ts')], target: 'browser', define: { 'process.env.NODE_ENV': '"development"' } })
  if (!built.success) throw new Error(built.logs.join('\n'))
  bundle = await built.outputs[0]!.text()
  const port = freePort()
  base = `http://127.0.0.1:${port}`
  p = await startPortico({ PUBLIC_URL: base })
  server = p.app.listen({ port, hostname: '127.0.0.1' })
  ws = await provision(p, { environment: 'test' })
  host = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url)
      if (url.pathname === '/app.js') return new Response(bundle, { headers: { 'content-type': 'text/javascript' } })
      if (url.pathname === '/token') {
        // The integrator's server: a token for its application, valid one minute.
        const r = await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, expires_in: 60 } })
        return Response.json({ token: r.body.token })
      }
      return new Response(page(url.searchParams.get('mode') === 'hook' ? 'hook' : 'component'), { headers: { 'content-type': 'text/html' } })
    },
  })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}, BROWSER_TIMEOUT)

afterAll(async () => {
  await browser?.close()
  host?.stop(true)
  await server?.stop(true)
  await p?.close()
})

type Entry = [string, ...unknown[]]
declare global {
  interface Window {
    log: Entry[]
    closeWidget: () => void
  }
}
const log = (pg: Page) => pg.evaluate(() => window.log)
const widgets = (pg: Page) => pg.evaluate(() => document.querySelectorAll('[data-portico]').length)
const count = (entries: Entry[], name: string) => entries.filter((e) => e[0] === name).length

async function opened(mode: 'component' | 'hook'): Promise<Page> {
  const pg = await browser.newPage()
  const errors: string[] = []
  pg.on('pageerror', (e) => errors.push(e.message))
  await pg.goto(`http://127.0.0.1:${host.port}/?mode=${mode}`)
  await pg.waitForFunction(() => typeof window.Portico?.open === 'function')
  expect(errors).toEqual([])
  return pg
}

describe('@portico/react in Chromium', () => {
  test('the component under StrictMode shows one widget, embedded, and its getToken is what the widget calls', async () => {
    const pg = await opened('component')
    try {
      await pg.getByRole('textbox', { name: 'Your domain' }).waitFor()
      expect(await widgets(pg)).toBe(1)
      expect(await pg.locator('.slot [data-portico]').count()).toBe(1)
      // StrictMode closed the first widget itself: no onClose reached the page.
      const first = await log(pg)
      expect(count(first, 'onClose')).toBe(0)
      expect(first.some((e) => e[0] === 'onStepChange' && e[1] === 'ENTER_DOMAIN')).toBe(true)
      // Opened without a token, the widget has not asked getToken yet (OpenConfig.token: asked at its first API call).
      expect(count(first, 'getToken')).toBe(0)
      // The widget was given no token: it asks getToken for one at its first call. Each token lives a
      // minute, and is renewed half-way through its life: the calls that follow within it use it, and
      // do not ask again.
      await pg.getByRole('textbox', { name: 'Your domain' }).fill(`c${Date.now().toString(36)}.live.sandbox.example`)
      await pg.keyboard.press('Enter')
      await pg.waitForFunction(() => window.log.some((e) => e[0] === 'onStepChange' && e[1] !== 'ENTER_DOMAIN' && e[1] !== 'INITIAL' && e[1] !== 'DOMAIN_ANALYSIS'))
      const later = await log(pg)
      expect(count(later, 'getToken')).toBe(1)
      expect(count(later, 'onError')).toBe(0)
      // Unmounted: the widget goes with it, and still no onClose.
      await pg.locator('#toggle').click()
      await pg.waitForFunction(() => document.querySelectorAll('[data-portico]').length === 0)
      expect(count(await log(pg), 'onClose')).toBe(0)
    } finally {
      await pg.close()
    }
  }, BROWSER_TIMEOUT)

  test('the hook opens and closes the widget, with typed callbacks', async () => {
    const pg = await opened('hook')
    try {
      await pg.locator('#state', { hasText: 'ready=true open=false' }).waitFor()
      expect(await widgets(pg)).toBe(0)
      await pg.locator('#open').click()
      await pg.locator('#state', { hasText: 'open=true' }).waitFor()
      await pg.waitForFunction(() => window.log.some((e) => e[0] === 'onStepChange'))
      expect(await widgets(pg)).toBe(1)
      expect(count(await log(pg), 'getToken')).toBeGreaterThanOrEqual(1)
      // The dialog is modal (the page behind it is inert): the integrator closes it from code.
      await pg.evaluate(() => window.closeWidget())
      await pg.locator('#state', { hasText: 'open=false' }).waitFor()
      expect(await widgets(pg)).toBe(0)
      const entries = await log(pg)
      expect(count(entries, 'onClose')).toBe(1)
      expect(count(entries, 'onError')).toBe(0)
    } finally {
      await pg.close()
    }
  }, BROWSER_TIMEOUT)
})
