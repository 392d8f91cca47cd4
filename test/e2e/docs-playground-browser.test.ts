// The API reference and the widget playground in Chromium (Debian's, headless, playwright-core)
// against a development Portico on a loopback port resolving through PowerDNS. Screenshots of both
// go to test-artifacts/. The reference is checked with axe-core at 1280 and 375 px, folded and with
// an operation open (0 violations), under a strict CSP. The playground is used as an integrator
// would: paste the key (masked), load the applications, save a branding, pick a language, name a
// domain, open the widget, reach its manual-records screen, and read the widget's events in the log.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico } from '../harness/portico.ts'
import { EVENT_TYPES } from '../../src/domain/events.ts'

const ARTIFACTS = 'test-artifacts'
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
const EDGE = 'edge.portico.test'
let pdns: Pdns
let p: TestPortico
let server: { stop(force?: boolean): unknown }
let base: string
let browser: Browser

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  pdns = await startPdns()
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  base = `http://127.0.0.1:${port}`
  p = await startPortico({ APP_ENV: 'development', PUBLIC_URL: base, DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
  server = p.app.listen({ port, hostname: '127.0.0.1' })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop(true)
  await p?.close()
})

/** What the page's Content-Security-Policy refused, as Chromium reports it on the console. */
function cspViolations(page: Page): string[] {
  const out: string[] = []
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) out.push(m.text())
  })
  return out
}

describe('in Chromium', () => {
  test('/v1/docs renders the reference of every operation, with examples', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const offsite: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith(base)) offsite.push(r.url())
    })
    const blocked = cspViolations(page)
    const res = await page.goto(`${base}/v1/docs`)
    expect(res!.headers()['content-security-policy']).toContain("frame-ancestors 'none'")
    await page.locator('.swagger-ui .info .title').waitFor()
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('Portico API')
    const ops = await p.api('GET', '/v1/openapi.json')
    const count = [...Object.values(ops.body.paths as Record<string, object>), ...Object.values(ops.body.webhooks as Record<string, object>)].reduce(
      (n, item) => n + Object.keys(item).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).length,
      0,
    )
    // Every operation and every event type's webhook is on the page.
    expect(Object.keys(ops.body.webhooks).sort()).toEqual([...EVENT_TYPES].sort())
    expect(await page.locator('.opblock').count()).toBe(count)
    // Open one operation: its request example is shown.
    const path = Object.keys(ops.body.paths).find((k) => k.endsWith('/connections') && ops.body.paths[k].post)!
    await page.locator(`.opblock-post:has(.opblock-summary-path[data-path="${path}"]) .opblock-summary`).click()
    await page.locator('.opblock.is-open .body-param__example, .opblock.is-open .microlight').first().waitFor()
    expect(await page.locator('.opblock.is-open').innerText()).toContain('shop.example.com')
    await page.screenshot({ path: `${ARTIFACTS}/docs.png` })
    expect(offsite).toEqual([])
    // Rendered under its Content-Security-Policy with nothing refused.
    expect(blocked).toEqual([])
  }, 90_000)

  test('/v1/docs has no axe violations at 1280 and 375 px, folded and with an operation open, and runs under a strict CSP', async () => {
    for (const width of [1280, 375]) {
      const ctx = await browser.newContext({ viewport: { width, height: width === 375 ? 667 : 800 } })
      // The CSP a strict deployment sends (scripts and styles from this origin only); axe is added through the test's own channel.
      await ctx.route(`${base}/v1/docs`, async (route) => {
        const r = await route.fetch()
        await route.fulfill({ response: r, headers: { ...r.headers(), 'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:" } })
      })
      const page = await ctx.newPage()
      const refused: string[] = []
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text())
      })
      await page.goto(`${base}/v1/docs`)
      await page.locator('.opblock').first().waitFor()
      await page.locator('.servers select[aria-label="Server"]').waitFor({ state: 'attached' })
      expect(refused).toEqual([])
      const axe = async () => {
        await page.evaluate(AXE)
        return page.evaluate(async () => {
          const r = await (window as any).axe.run(document, { resultTypes: ['violations'] })
          return r.violations.map((v: any) => `${v.id} (${v.nodes.length}): ${v.nodes[0].target.join(' ')}`)
        })
      }
      expect({ width, folded: await axe() }).toEqual({ width, folded: [] })
      await page.screenshot({ path: `${ARTIFACTS}/docs-${width}.png` })
      await page.locator('.opblock-post .opblock-summary-control').first().click()
      await page.locator('.opblock.is-open .opblock-section-header').first().waitFor()
      expect({ width, open: await axe() }).toEqual({ width, open: [] })
      await page.screenshot({ path: `${ARTIFACTS}/docs-${width}-open.png`, fullPage: false })
      await ctx.close()
    }
  }, 120_000)

  test('/playground: a masked key, an application, its branding, a language and a domain; the widget reaches its manual screen and its events are logged', async () => {
    const ws = await provision(p)
    const zone = `pg${Date.now().toString(36)}.test`
    await pdns.createZone(zone)
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    const blocked = cspViolations(page)
    const res = await page.goto(`${base}/playground`)
    expect(res!.headers()['content-security-policy']).toContain("frame-ancestors 'none'")
    const key = page.getByLabel('API key')
    await key.fill(ws.apiKey)
    // Masked until asked; never in the page's text.
    expect(await key.getAttribute('type')).toBe('password')
    await page.getByRole('button', { name: 'Show' }).click()
    expect(await key.getAttribute('type')).toBe('text')
    await page.getByRole('button', { name: 'Hide' }).click()
    expect(await key.getAttribute('type')).toBe('password')
    expect(await page.locator('body').innerText()).not.toContain(ws.apiKey)
    await page.getByRole('button', { name: 'Load applications' }).click()
    await page.locator(`#pg-app option[value="${ws.appId}"]`).waitFor({ state: 'attached' })
    await page.selectOption('#pg-app', ws.appId)

    // Branding is saved to the application through the API, and a bad value is explained.
    await page.getByLabel('Display name').fill('Playground Shop')
    await page.getByLabel('Logo (https URL or data: image)').fill('http://10.0.0.1/logo.png')
    await page.getByRole('button', { name: 'Save branding' }).click()
    await page.locator('#pg-status').filter({ hasText: 'logo_url' }).waitFor()
    await page.getByLabel('Logo (https URL or data: image)').fill('')
    await page.locator('#pg-brand-accent').fill('#0b6e4f')
    await page.getByLabel('use it').check()
    await page.getByRole('button', { name: 'Save branding' }).click()
    await page.locator('#pg-status').filter({ hasText: 'Branding saved' }).waitFor()
    const app = await p.api('GET', `/v1/applications/${ws.appId}`, { token: ws.apiKey })
    expect(app.body.branding).toMatchObject({ display_name: 'Playground Shop', accent_color: '#0b6e4f', logo_url: null })

    await page.selectOption('#pg-locale', 'fr')
    await page.locator('#pg-domain').fill(`shop.${zone}`)
    await page.getByRole('button', { name: 'Open the widget' }).click()

    await page.locator('#je-added').waitFor()
    expect(await page.locator('[data-portico]').getAttribute('lang')).toBe('fr')
    const table = await page.locator('.je-table').innerText()
    expect(table).toContain('CNAME')
    expect(table).toContain(EDGE)
    // The log shows the widget's events and callbacks as they came.
    const log = await page.locator('#pg-log').innerText()
    expect(log).toContain('Portico:step')
    expect(log).toContain('onStepChange')
    expect(log).toContain('MANUAL_CONFIGURATION')
    await page.screenshot({ path: `${ARTIFACTS}/playground-manual.png`, fullPage: true })
    expect(blocked).toEqual([])
  }, 60_000)
})
