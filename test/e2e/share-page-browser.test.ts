// The share page in Chromium (Debian's, headless, playwright-core) against a Portico on a loopback port
// resolving through PowerDNS, as the person who runs the DNS meets it: from a link, in their browser's
// language, on a phone and a desktop. English, French, Japanese and Arabic (right to left) at each
// width are photographed into test-artifacts/share/ and checked with axe-core (0 violations); every
// locale the widget speaks is shown at 375 px in its own language and direction, with nothing wider
// than the phone. The records are then added in
// PowerDNS and the page follows the connection to done by itself; without JavaScript the page still
// re-checks through its form; under its own CSP nothing is refused.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { LOCALES, LOCALE_CODES } from '../../src/share/strings.ts'

const SHOTS = 'test-artifacts/share'
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
const TIMEOUT = 240_000
const EDGE = 'edge.portico.test'
const VIEWPORTS = [
  { width: 375, height: 667 },
  { width: 1280, height: 800 },
]
// A small square logo (SVG), as an integrator would upload it.
const LOGO = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#111"/><path d="M8 22 16 8l8 14z" fill="#ffd400"/></svg>').toString('base64')}`

let pdns: Pdns
let p: TestPortico
let server: { stop(force?: boolean): unknown }
let base: string
let ws: Workspace
let zone: string
let browser: Browser
let seq = 0

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  pdns = await startPdns()
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  base = `http://127.0.0.1:${port}`
  p = await startPortico({ PUBLIC_URL: base, DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
  server = p.app.listen({ port, hostname: '127.0.0.1' })
  ws = await provision(p, { tenant_name: 'Acme Workspace' })
  zone = `sp${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}, TIMEOUT)

afterAll(async () => {
  await browser?.close()
  await server?.stop(true)
  await p?.close()
})

async function brand(body: Record<string, unknown>): Promise<void> {
  const r = await p.api('PUT', `/v1/applications/${ws.appId}/branding`, { token: ws.apiKey, body })
  expect(r.status).toBe(200)
}

/** A connection for a fresh host and its share link. */
async function shared(): Promise<{ id: string; domain: string; host: string; link: string }> {
  const host = `shop${++seq}`
  const domain = `${host}.${zone}`
  const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
  expect(c.status).toBe(201)
  const s = await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: ws.apiKey })
  return { id: c.body.id, domain, host, link: s.body.url }
}

async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE })
  return page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    return r.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`)
  })
}

/** Nothing overflows the viewport sideways. */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

describe('the share page in Chromium', () => {
  test('in English, French, Japanese and Arabic, at 375 and 1280 px: one language in its direction, the brand on top, who asked and until when, axe 0', async () => {
    await brand({ display_name: 'Acme Shop', logo_url: LOGO, accent_color: '#ffd400' })
    const s = await shared()
    const expected = {
      'en-US': { lang: 'en', h1: `Add DNS records for ${s.domain}`, who: 'Acme Shop asked for these records.', button: 'I have added them', foreign: ['Ajoutez', '追加'] },
      'fr-FR': { lang: 'fr', h1: `Ajoutez des enregistrements DNS pour ${s.domain}`, who: 'Acme Shop a demandé ces enregistrements.', button: 'Je les ai ajoutés', foreign: ['Add each record', 'Sign in', 'I have added'] },
      'ja-JP': { lang: 'ja', h1: `${s.domain} に DNS レコードを追加してください`, who: 'Acme Shop がこれらのレコードを依頼しています。', button: '追加しました', foreign: ['Add each record', 'Sign in', 'I have added'] },
      'ar-EG': { lang: 'ar', h1: `أضف سجلات DNS للنطاق ${s.domain}`, who: 'طلب Acme Shop هذه السجلات.', button: 'لقد أضفتها', foreign: ['Add each record', 'Sign in', 'I have added'] },
    }
    for (const [locale, want] of Object.entries(expected)) {
      for (const viewport of VIEWPORTS) {
        const ctx = await browser.newContext({ locale, viewport, bypassCSP: true })
        const page = await ctx.newPage()
        const res = await page.goto(s.link)
        expect(res!.status()).toBe(200)
        expect(res!.headers()['content-language']).toBe(want.lang)
        await page.locator('.copy').first().waitFor()
        expect(await page.getAttribute('html', 'lang')).toBe(want.lang)
        expect(await page.getAttribute('html', 'dir')).toBe(want.lang === 'ar' ? 'rtl' : 'ltr')
        expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(want.h1)
        expect(await page.locator('header.brand').innerText()).toBe('Acme Shop')
        const who = await page.locator('.who').innerText()
        expect(who).toContain(want.who)
        // The expiry date, in the page's language.
        const until = await page.evaluate(([l, at]) => new Intl.DateTimeFormat(l, { dateStyle: 'long' }).format(new Date(at)), [want.lang, p.clock.now().getTime() + 30 * 86_400_000] as const)
        expect(who).toContain(until)
        const text = await page.locator('body').innerText()
        for (const f of want.foreign) expect({ locale, f, found: text.includes(f) }).toEqual({ locale, f, found: false })
        // Each thing said once: the domain in the heading, the name of who asked in the header and its sentence only.
        expect(text.split('Default').length).toBe(1)
        expect((await page.locator('main').innerText()).split('Acme Shop').length - 1).toBe(1)
        expect(await page.getByRole('button', { name: want.button }).count()).toBe(1)
        expect(await page.locator('.rec').count()).toBe(1)
        expect(await page.locator('.rec code').first().innerText()).toBe(s.host)
        expect(await overflow(page)).toBe(0)
        // Opens at its top: the title is on screen.
        expect(await page.evaluate(() => window.scrollY)).toBe(0)
        const box = await page.getByRole('heading', { level: 1 }).boundingBox()
        expect(box!.y + box!.height).toBeLessThan(viewport.height)
        await page.screenshot({ path: `${SHOTS}/share-${want.lang}-${viewport.width}.png`, fullPage: true })
        expect({ locale, viewport: viewport.width, violations: await axe(page) }).toEqual({ locale, viewport: viewport.width, violations: [] })
        await ctx.close()
      }
    }
  }, TIMEOUT)

  test('every locale the widget speaks, at 375 px: the page in that language and its direction, its button and Copy in its words, nothing wider than the phone', async () => {
    const s = await shared()
    const ctx = await browser.newContext({ viewport: VIEWPORTS[0] })
    const page = await ctx.newPage()
    const seen: Record<string, unknown> = {}
    for (const l of LOCALE_CODES) {
      const res = await page.goto(`${s.link}?lang=${l}`)
      await page.locator('.copy').first().waitFor()
      seen[l] = {
        language: res!.headers()['content-language'],
        lang: await page.getAttribute('html', 'lang'),
        dir: await page.getAttribute('html', 'dir'),
        button: await page.locator('#share-added').innerText(),
        copy: await page.locator('.copy').allInnerTexts(),
        overflow: await overflow(page),
      }
    }
    const want = Object.fromEntries(LOCALE_CODES.map((l) => [l, { language: l, lang: l, dir: ['ar', 'he'].includes(l) ? 'rtl' : 'ltr', button: LOCALES[l].added, copy: [LOCALES[l].copy, LOCALES[l].copy], overflow: 0 }]))
    expect(seen).toEqual(want)
    await ctx.close()
  }, TIMEOUT)

  test('an MX record: its priority in a field of its own with its own Copy, the value without it', async () => {
    const host = `mail${++seq}`
    const domain = `${host}.${zone}`
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, records: [{ type: 'A', host, value: '203.0.113.10' }, { type: 'MX', host, value: `mx.${zone}`, priority: 10 }] } })
    expect(c.status).toBe(201)
    const link = (await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: ws.apiKey })).body.url
    const ctx = await browser.newContext({ viewport: VIEWPORTS[0] })
    const page = await ctx.newPage()
    await page.goto(link)
    const mx = page.locator('.rec', { hasText: 'MX' })
    await mx.locator('.copy').first().waitFor()
    expect((await mx.locator('dt').allInnerTexts()).slice(0, 4)).toEqual(['Type', 'Host', 'Value', 'Priority'])
    expect(await mx.locator('code').allInnerTexts()).toEqual([host, `mx.${zone}`, '10'])
    for (const label of [`Copy the host of the MX record ${host}`, `Copy the value of the MX record ${host}`, `Copy the priority of the MX record ${host}`]) expect([label, await page.getByRole('button', { name: label }).isVisible()]).toEqual([label, true])
    await ctx.close()
  }, TIMEOUT)

  test('the page follows the connection: records added, someone re-checks, the page turns to done and says where the domain points; Escape leaves it as it is', async () => {
    await brand({ display_name: 'Acme Shop', accent_color: '#0b3d91' })
    const s = await shared()
    const ctx = await browser.newContext({ locale: 'en-US', viewport: VIEWPORTS[0] })
    const page = await ctx.newPage()
    const refused: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text())
    })
    await page.goto(s.link)
    await page.getByRole('button', { name: 'I have added them' }).click()
    await page.waitForFunction(() => document.getElementById('share-status')?.textContent?.startsWith('Records found so far: 0 of 1'))
    expect(await page.locator('.rec-state').innerText()).toBe('Not found yet')

    await pdns.setRecords(s.domain, 'CNAME', [`${EDGE}.`])
    // Someone else re-checks (or the verify sweep does): the open page learns of it by itself.
    expect((await p.api('POST', `/v1/connections/${s.id}:recheck`, { token: ws.apiKey })).body.status).toBe('live')
    await page.locator('#share-done').waitFor({ timeout: 20_000 })
    expect(await page.locator('#share-status').innerText()).toBe(`${s.domain} now points at ${EDGE}.`)
    expect(await page.getByRole('heading', { name: 'Done' }).isVisible()).toBe(true)
    expect(await page.locator('#share-work').isHidden()).toBe(true)
    await page.keyboard.press('Escape')
    expect(await page.locator('#share-status').isVisible()).toBe(true)
    await page.screenshot({ path: `${SHOTS}/share-en-375-done.png`, fullPage: true })
    // "Close this page": closed, or (a tab the person opened) told they may close it.
    const closed = page.waitForEvent('close', { timeout: 2000 }).then(() => true, () => false)
    await page.getByRole('button', { name: 'Close this page' }).click()
    if (!(await closed)) await page.getByText('You can now close this tab.').waitFor()
    expect(refused).toEqual([])
    await ctx.close()
  }, TIMEOUT)

  test('without JavaScript the records are there and "I have added them" re-checks through the form', async () => {
    const s = await shared()
    const ctx = await browser.newContext({ locale: 'de-DE', viewport: VIEWPORTS[1], javaScriptEnabled: false })
    const page = await ctx.newPage()
    await page.goto(s.link)
    expect(await page.getAttribute('html', 'lang')).toBe('de')
    expect(await page.locator('#share-status').innerText()).toBe('Wir warten darauf, dass die Einträge angelegt werden.')
    await pdns.setRecords(s.domain, 'CNAME', [`${EDGE}.`])
    await page.getByRole('button', { name: 'Ich habe sie angelegt' }).click()
    await page.waitForURL(/lang=de/)
    expect(await page.locator('#share-status').innerText()).toBe(`${s.domain} zeigt jetzt auf ${EDGE}.`)
    await ctx.close()
  }, TIMEOUT)

  test('a language picked on the page wins over the browser\'s; an unknown link is a page in the person\'s language (404, axe 0)', async () => {
    await brand({})
    const s = await shared()
    const ctx = await browser.newContext({ locale: 'fr-FR', viewport: VIEWPORTS[0], bypassCSP: true })
    const page = await ctx.newPage()
    await page.goto(s.link)
    // Without branding the workspace's name says who asked.
    expect(await page.locator('header.brand').innerText()).toBe('Acme Workspace')
    await page.screenshot({ path: `${SHOTS}/share-fr-375-unbranded.png`, fullPage: true })
    await page.getByRole('link', { name: '日本語' }).click()
    await page.waitForURL(/lang=ja/)
    expect(await page.getAttribute('html', 'lang')).toBe('ja')
    const gone = await page.goto(`${base}/share/shr_${'x'.repeat(43)}`)
    expect(gone!.status()).toBe(404)
    expect(await page.getAttribute('html', 'lang')).toBe('fr')
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Ce lien ne fonctionne pas')
    expect(await axe(page)).toEqual([])
    await ctx.close()
  }, TIMEOUT)
})

