// The API reference and the widget playground in Chromium (Debian's, headless, playwright-core)
// against a development Portico on a loopback port resolving through PowerDNS. Screenshots of both
// go to test-artifacts/. The playground is used as an integrator would: paste the key, load the
// applications, name a domain, open the widget, and reach its manual-records screen.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico } from '../harness/portico.ts'

const ARTIFACTS = 'test-artifacts'
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
    const count = Object.values(ops.body.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).length, 0)
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

  test('/playground: key, application, domain, and the widget reaches its manual screen', async () => {
    const ws = await provision(p)
    const zone = `pg${Date.now().toString(36)}.test`
    await pdns.createZone(zone)
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    const blocked = cspViolations(page)
    const res = await page.goto(`${base}/playground`)
    expect(res!.headers()['content-security-policy']).toContain("frame-ancestors 'none'")
    await page.getByLabel('API key').fill(ws.apiKey)
    await page.getByRole('button', { name: 'Load applications' }).click()
    await page.locator(`#pg-app option[value="${ws.appId}"]`).waitFor({ state: 'attached' })
    await page.selectOption('#pg-app', ws.appId)
    await page.locator('#pg-domain').fill(`shop.${zone}`)
    await page.getByRole('button', { name: 'Open the widget' }).click()

    await page.locator('#je-added').waitFor()
    expect(await page.getByRole('dialog', { name: 'Add these DNS records' }).count()).toBe(1)
    const table = await page.locator('.je-table').innerText()
    expect(table).toContain('CNAME')
    expect(table).toContain(EDGE)
    await page.screenshot({ path: `${ARTIFACTS}/playground-manual.png` })
    expect(blocked).toEqual([])
  }, 60_000)
})
