// Pre-validation in the widget, in a real browser (Debian's Chromium through playwright-core), with
// real daemons behind it (PowerDNS for the customer's zone and Portico's DCV zone, Caddy, Pebble): the
// integrator opens the widget with `validation: 'before_cutover'`; the person sees step one (the
// ownership TXT and the `_acme-challenge` delegation), adds them, says so, and is brought back for
// step two (the routing record) once the certificate is on the edge; adding it finishes the flow.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { provision, widgetToken, type Workspace } from '../harness/portico.ts'
import { startServed, type Served } from '../harness/served.ts'
import { startPdns } from '../harness/pdns.ts'

const ARTIFACTS = 'test-artifacts'
const BROWSER_TIMEOUT = 120_000
let s: Served
let ws: Workspace
let host: ReturnType<typeof Bun.serve>
let browser: Browser
const tag = Date.now().toString(36)
const zone = `pvw${tag}.test`
const dcvZone = `dcvw${tag}.test`

const HOST_PAGE = (portico: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body>
<h1>Acme Sites</h1><script>window.log = []; window.addEventListener('Portico:step', (e) => window.log.push(e.detail.step));</script>
<script src="${portico}/widget.js"></script></body></html>`

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  const pdns = await startPdns()
  await pdns.createZone(dcvZone)
  s = await startServed(zone, { PORTICO_ROLE: 'all', DCV_ZONE: dcvZone, DCV_PDNS_API_URL: pdns.apiUrl, DCV_PDNS_API_KEY: pdns.apiKey })
  ws = await provision(s.p)
  host = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(HOST_PAGE(s.p.config.publicUrl), { headers: { 'content-type': 'text/html' } }) })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}, BROWSER_TIMEOUT)

afterAll(async () => {
  await browser?.close()
  host?.stop(true)
  await s?.stop()
})

describe('the widget before cutover', () => {
  test('step one, then step two once the certificate is on the edge, then success', async () => {
    const domain = `shop.${zone}`
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${host.port}/`)
    await page.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
    const token = await widgetToken(s.p, ws)
    await page.evaluate((c) => (window as any).Portico.open(c), { applicationId: ws.appId, token, applicationName: 'Acme Sites', validation: 'before_cutover', domain })

    const stage = page.locator('#je-stage')
    await stage.waitFor({ timeout: 30_000 })
    expect(await stage.innerText()).toContain('Step 1 of 2')
    const first = await page.locator('.je-table').innerText()
    expect(first).toContain('_acme-challenge.shop')
    expect(first).toContain(dcvZone)
    expect(first).toContain('_portico-challenge.shop')
    await page.screenshot({ path: `${ARTIFACTS}/widget-before-cutover-1.png` })

    const c = (await s.p.api('GET', `/v1/connections?domain=${domain}`, { token: ws.apiKey })).body.connections[0]
    for (const r of c.records) await s.pdns.setRecords(`${r.host}.${zone}`, r.type, [r.type === 'CNAME' ? `${r.value}.` : `"${r.value}"`])
    await page.locator('#je-added').click()

    // Brought back once the certificate is on the edge: step two, the routing record.
    await page.locator('#je-stage', { hasText: 'Step 2 of 2' }).waitFor({ timeout: 60_000 })
    const second = await page.locator('.je-table').innerText()
    expect(second).toContain(s.edgeHost)
    expect((await s.viaEdge(domain)).names).toContain(domain)
    await page.screenshot({ path: `${ARTIFACTS}/widget-before-cutover-2.png` })

    await s.pdns.setRecords(domain, 'CNAME', [`${s.edgeHost}.`])
    await page.locator('#je-added').click()
    await page.locator('#je-success').waitFor({ timeout: 60_000 })
    const steps = await page.evaluate(() => (window as any).log as string[])
    expect(steps.filter((x) => x === 'MANUAL_CONFIGURATION').length).toBe(2)
    expect(steps.slice(-1)).toEqual(['FINISHED_SUCCESSFULLY'])
    expect((await s.p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body).toMatchObject({ status: 'live', validation_stage: 'complete' })
  }, BROWSER_TIMEOUT)
})
