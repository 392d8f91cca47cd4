// The widget on integrators' real pages, in Chromium (playwright-core, Debian's Chromium) against a
// Portico on loopback resolving through PowerDNS. Host pages that fight it: a strict CSP without
// 'unsafe-inline' (only script-src and connect-src name Portico), aggressive global CSS
// (`* {font-size:30px !important} button {display:none !important}`, rules on the p and li the widget
// slots into the page, …), `<html dir="rtl">`; what a screen reader (Chromium's accessibility tree) and
// the page's own scripts (innerText) read of the dialog; dark
// branding with a primary colour in rgb() and a logo that 404s; a widget token that expires while the
// person waits (getToken brings a new one and the flow ends on live; without getToken the page says
// the session ended), and one that had expired when the person clicked (the click's re-check is refused:
// getToken's new token carries it, else the page says the session expired and offers Close), and a
// getToken that hands out another application's token mid-flow (said, not a stale page); a shared setup
// opened by token or url, in Arabic, whose link goes while it is open; the network lost and back; a reload after "I have added them" and after live; the
// widget opened a second time while open (the page stays inert, focus returns to the first opener). Screenshots go to
// test-artifacts/ (the Arabic records screen at 375 px: widget-ar-records-375.png; dark branding:
// widget-dark-records.png).
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'

const ARTIFACTS = 'test-artifacts'
const TIMEOUT = 120_000
const EDGE = 'edge.portico.test'
let pdns: Pdns
let p: TestPortico
let server: { stop(force?: boolean): unknown }
let base: string
let ws: Workspace
let zone: string
let host: ReturnType<typeof Bun.serve>
let browser: Browser
let seq = 0

const NONCE = 'hostnonce123'
const HOSTILE_CSS = `* { box-sizing: content-box !important; font-size: 30px !important; letter-spacing: 3px !important; color: red !important }
button { display: none !important } h2 { display: none !important } div { background: yellow !important; padding: 40px !important }
[role="dialog"] { display: none !important } table td { display: none !important }
p, li { display: none !important; direction: rtl !important; unicode-bidi: bidi-override !important; margin: 90px !important; --je-space-3: 90px !important }
*::before { content: "»" !important }`

/** A transform on body (position:fixed then follows body, not the viewport), a tall page and a header at the highest z-index. */
const TRANSFORM_CSS = `body { transform: translateX(0); min-height: 4000px } main { padding-top: 2000px }
main h1 { position: fixed; top: 0; left: 0; right: 0; height: 120px; margin: 0; z-index: 2147483647; background: #000 }`

/** The integrator's page; `kind` picks its hostility. */
function hostPage(kind: string, portico: string): Response {
  const log = `<script nonce="${NONCE}">window.log=[];for(const n of ['step','success','close']){window.addEventListener('Portico:'+n,(e)=>window.log.push(['event:'+n,e.detail]))}
window.violations=[];document.addEventListener('securitypolicyviolation',(e)=>window.violations.push(e.violatedDirective+' '+e.blockedURI));
window.callbacks={onError:(e)=>window.log.push(['onError',e])};</script>`
  const rtl = kind === 'rtl'
  const html = `<!doctype html><html lang="${rtl ? 'ar' : 'en'}" dir="${rtl ? 'rtl' : 'ltr'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Host</title>
${kind === 'hostile' ? `<style>${HOSTILE_CSS}</style>` : ''}${kind === 'transform' ? `<style>${TRANSFORM_CSS}</style>` : ''}${log}</head><body><main><h1>Acme Sites</h1><p>Settings</p><button id="host-button">Host control</button></main>
<script src="${portico}/widget.js"></script></body></html>`
  const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' }
  // The CSP docs/widget.md states a host needs: Portico in script-src and connect-src, nothing else.
  if (kind === 'csp') headers['content-security-policy'] = `default-src 'none'; script-src 'nonce-${NONCE}' ${portico}; connect-src ${portico}; img-src 'self'; style-src 'self'; base-uri 'none'`
  return new Response(html, { headers })
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  pdns = await startPdns()
  const port = freePort()
  base = `http://127.0.0.1:${port}`
  p = await startPortico({ PUBLIC_URL: base, DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
  server = p.app.listen({ port, hostname: '127.0.0.1' })
  ws = await provision(p)
  zone = `h${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  host = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => hostPage(new URL(req.url).pathname.slice(1), base) })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}, TIMEOUT)

afterAll(async () => {
  await browser?.close()
  host?.stop(true)
  await server?.stop(true)
  await p?.close()
})

async function page(kind: string, o: { width?: number; height?: number; locale?: string } = {}): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: o.width ?? 1280, height: o.height ?? 800 }, locale: o.locale ?? 'en-US' })
  const pg = await ctx.newPage()
  pg.setDefaultTimeout(30_000)
  await pg.goto(`http://127.0.0.1:${host.port}/${kind}`)
  await pg.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
  return pg
}

async function open(pg: Page, config: Record<string, unknown>): Promise<void> {
  await pg.evaluate((c) => {
    const w = window as any
    w.handle = w.Portico.open({ ...c, ...w.callbacks })
  }, config)
}

const log = (pg: Page) => pg.evaluate(() => (window as any).log as [string, any][])
const shot = (pg: Page, name: string) => pg.screenshot({ path: `${ARTIFACTS}/${name}.png` })

/** Opens the widget for a fresh domain of the test zone and waits for its records screen. */
async function toRecords(pg: Page, extra: Record<string, unknown> = {}): Promise<string> {
  const domain = `shop${++seq}.${zone}`
  await open(pg, { applicationId: ws.appId, token: await widgetToken(p, ws), applicationName: 'Acme Sites', domain, ...extra })
  await pg.locator('#je-added').waitFor()
  return domain
}

/** The widget opened for a fresh domain with a token and, when `withGetToken`, a getToken that mints new ones (counted). */
async function openWithToken(withGetToken: boolean, mint = () => widgetToken(p, ws)): Promise<{ pg: Page; domain: string; asked: () => number }> {
  const pg = await page('plain')
  let asked = 0
  await pg.exposeFunction('mintToken', async () => {
    asked++
    return mint()
  })
  const domain = `shop${++seq}.${zone}`
  await pg.evaluate(
    ([app, token, d, give]) => {
      const w = window as any
      w.handle = w.Portico.open({ applicationId: app, token, domain: d, ...(give ? { getToken: () => w.mintToken() } : {}), ...w.callbacks })
    },
    [ws.appId, await widgetToken(p, ws), domain, withGetToken] as const,
  )
  return { pg, domain, asked: () => asked }
}

/** The nodes of the given roles in the accessibility tree Chromium hands to screen readers (CDP), with their computed name and description. */
async function accessible(pg: Page, roles: string[]): Promise<{ role: string; name?: string; description?: string }[]> {
  const cdp = await pg.context().newCDPSession(pg)
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { ignored: boolean; role?: { value: string }; name?: { value: string }; description?: { value: string } }[] }
  await cdp.detach()
  return nodes.filter((n) => !n.ignored && roles.includes(n.role?.value ?? '')).map((n) => ({ role: n.role!.value, name: n.name?.value, description: n.description?.value }))
}

/** WCAG contrast of an element's text colour on the background behind it (both computed, rgb()). */
async function contrastOf(pg: Page, selector: string): Promise<number> {
  // A screen redrawn between finding the element and reading it (an answer arriving) leaves it detached: read again.
  for (let i = 0; i < 20; i++) {
    const r = await contrastOnce(pg, selector)
    if (r !== null) return r
    await pg.waitForTimeout(50)
  }
  throw new Error(`${selector} kept being redrawn`)
}

function contrastOnce(pg: Page, selector: string): Promise<number | null> {
  return pg.locator(selector).first().evaluate((el) => {
    if (!el.isConnected) return null
    const rgb = (s: string) => s.match(/[\d.]+/g)!.slice(0, 3).map(Number)
    const lum = (c: number[]) => {
      const [r, g, b] = c.map((v) => {
        const x = v / 255
        return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4
      })
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
    }
    let bg: HTMLElement | null = el as HTMLElement
    let back = 'rgba(0, 0, 0, 0)'
    while (bg) {
      back = getComputedStyle(bg).backgroundColor
      if (!/rgba\(.*, 0\)$/.test(back) && back !== 'transparent') break
      bg = (bg.parentElement ?? ((bg.getRootNode() as ShadowRoot).host as HTMLElement | undefined)) || null
    }
    const a = lum(rgb(getComputedStyle(el).color))
    const b = lum(rgb(back))
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
  })
}

describe('the widget on hostile host pages', () => {
  test('a strict CSP without unsafe-inline: no violation, the widget styled and usable to its records', async () => {
    const pg = await page('csp')
    await toRecords(pg)
    const violations = await pg.evaluate(() => (window as any).violations as string[])
    expect(violations).toEqual([])
    // Styled: the primary button has the primary colour, the dialog box its padding and width.
    const added = pg.locator('#je-added')
    // Read once the records screen has settled: a re-render on a loaded machine can hand the locator a
    // node on its way out, whose computed style is empty (CI saw "" once).
    let background = ''
    for (let i = 0; i < 50 && background !== 'rgb(47, 84, 235)'; i++) {
      if (i) await Bun.sleep(100)
      background = await added.evaluate((el) => getComputedStyle(el).backgroundColor).catch(() => '')
    }
    expect(background).toBe('rgb(47, 84, 235)')
    expect(await pg.locator('.je-root').evaluate((el) => getComputedStyle(el).paddingTop)).toBe('24px')
    expect(await added.isVisible()).toBe(true)
    await shot(pg, 'widget-csp-records')
    await pg.context().close()
  }, TIMEOUT)

  test("aggressive host CSS (!important on *, button, h2, div, td, p, li, [role=dialog], *::before) changes nothing: × and \"I have added them\" visible, 15 px text, the flow goes on", async () => {
    const pg = await page('hostile', { width: 375, height: 667 })
    const domain = `shop${++seq}.${zone}`
    await open(pg, { applicationId: ws.appId, token: await widgetToken(p, ws), applicationName: 'Acme Sites', domain })
    const dialog = pg.getByRole('dialog', { name: 'Add these DNS records' })
    await dialog.waitFor()
    const close = pg.getByRole('button', { name: 'Close' })
    const go = pg.getByRole('button', { name: 'I have added them' })
    expect(await close.isVisible()).toBe(true)
    expect(await go.isVisible()).toBe(true)
    expect(await go.evaluate((el) => [getComputedStyle(el).fontSize, getComputedStyle(el).letterSpacing, getComputedStyle(el).color])).toEqual(['15px', 'normal', 'rgb(255, 255, 255)'])
    expect(await pg.locator('[role="dialog"] h2').evaluate((el) => [getComputedStyle(el).display, getComputedStyle(el).fontSize])).toEqual(['block', '20px'])
    // The screen's words are in the page (slotted), where the page's rules reach them: sealed all the same.
    const intro = pg.getByText('Add the records below at your DNS provider')
    expect(await intro.evaluate((el) => [el.parentElement?.getAttribute('role'), ...['display', 'fontSize', 'color', 'letterSpacing', 'direction', 'unicodeBidi', 'marginTop', 'marginBottom'].map((k) => getComputedStyle(el).getPropertyValue(k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))), getComputedStyle(el, '::before').content])).toEqual(['dialog', 'block', '15px', 'rgb(27, 31, 41)', 'normal', 'ltr', 'normal', '0px', '12px', 'none'])
    expect(await pg.locator('[data-portico] > li').first().evaluate((el) => [getComputedStyle(el).display, getComputedStyle(el).fontSize])).toEqual(['list-item', '15px'])
    await shot(pg, 'widget-hostile-css')
    expect(await pg.locator('.je-table td').first().isVisible()).toBe(true)
    await go.click()
    await pg.locator('#je-status').waitFor()
    await shot(pg, 'widget-hostile-css-waiting')
    await pg.context().close()
  }, TIMEOUT)

  test('what a screen reader and the page\'s own scripts read: the dialog named by its heading and described by its warning, a field by its error, the words in innerText', async () => {
    const pg = await page('hostile', { width: 375, height: 667 })
    const domain = `shop${++seq}.${zone}`
    await pdns.setRecords(domain, 'A', ['192.0.2.44'])
    await open(pg, { applicationId: ws.appId, token: await widgetToken(p, ws), applicationName: 'Acme Sites', domain })
    await pg.getByRole('dialog', { name: 'Records already in place' }).waitFor()
    const warning = `These records on ${domain} stand in the way. Remove or replace them at your DNS provider:`
    expect(await accessible(pg, ['dialog', 'textbox'])).toEqual([{ role: 'dialog', name: 'Records already in place', description: warning }])
    // What a text probe of the page reads of the dialog: the heading and the words, not only the heading.
    expect(await pg.locator('[role="dialog"]').innerText()).toBe(`Records already in place\n\n${warning}`)
    await pg.getByRole('button', { name: 'Continue' }).click()
    await pg.locator('#je-added').waitFor()
    const text = await pg.locator('[role="dialog"]').innerText()
    for (const words of ['Add these DNS records', `Some records already on ${domain} are in the way. Remove them first:`, `Add the records below at your DNS provider for ${domain}.`, 'Add each record below exactly as shown']) expect(text).toContain(words)
    await pg.context().close()

    // A field and its error: the field is described by the words under it, across the shadow boundary.
    const typed = `nowhere${++seq}${Date.now().toString(36)}.test`
    const pe = await page('hostile')
    await open(pe, { applicationId: ws.appId, token: await widgetToken(p, ws), applicationName: 'Acme Sites' })
    await pe.locator('#je-domain').fill(typed)
    await pe.locator('#je-domain').press('Enter')
    await pe.locator('#je-domain[aria-invalid="true"]').waitFor()
    const error = await pe.locator('#je-domain-hint').innerText()
    expect(await accessible(pe, ['textbox'])).toEqual([{ role: 'textbox', name: 'Your domain', description: error }])
    expect(await pe.locator('[role="dialog"]').innerText()).toContain(error)
    await pe.context().close()
  }, TIMEOUT)

  test('right-to-left: Arabic on a phone is rtl with its table mirrored and values left-to-right; English on an rtl host stays ltr', async () => {
    const ar = await page('rtl', { width: 375, height: 667, locale: 'ar' })
    await toRecords(ar, { locale: 'ar' })
    const dlg = ar.locator('[role="dialog"]')
    expect(await dlg.getAttribute('dir')).toBe('rtl')
    expect(await dlg.getAttribute('lang')).toBe('ar')
    expect(await ar.locator('#je-added').innerText()).toBe('لقد أضفتها')
    // The × sits at the top left in Arabic (inline end), the first label cell's text starts at the right.
    const x = await ar.locator('.je-x').boundingBox()
    expect(x!.x).toBeLessThan(100)
    expect(await ar.locator('.je-table code').first().getAttribute('dir')).toBe('ltr')
    await ar.waitForTimeout(300)
    await shot(ar, 'widget-ar-records-375')
    await ar.context().close()

    const en = await page('rtl')
    await toRecords(en, { locale: 'en' })
    expect(await en.locator('[role="dialog"]').getAttribute('dir')).toBe('ltr')
    const cells = await en.locator('.je-table thead th').evaluateAll((ths) => ths.map((th) => Math.round(th.getBoundingClientRect().left)))
    // Type, Host, Value, TTL from left to right, as English reads.
    expect(cells).toEqual([...cells].sort((a, b) => a - b))
    await shot(en, 'widget-en-on-rtl-host')
    await en.context().close()
  }, TIMEOUT)

  test('dark branding with an rgb() primary and a logo that 404s: every themed text reads at 4.5:1, the logo is hidden', async () => {
    const pg = await page('plain')
    await pg.route('**/missing-logo.png', (r) => r.fulfill({ status: 404, body: '' }))
    await toRecords(pg, { whiteLabel: { colors: { background: '#111827', text: '#f9fafb', primary: 'rgb(255,255,0)' }, logo: `http://127.0.0.1:${host.port}/missing-logo.png` } })
    const ratios: Record<string, number> = {}
    for (const [name, sel] of [['chip', '.je-table code'], ['copy', '.je-copy'], ['close ×', '.je-x'], ['button', '#je-added'], ['footer', '.je-foot'], ['secondary', '#je-share']] as const) {
      ratios[name] = Math.round((await contrastOf(pg, sel)) * 100) / 100
    }
    console.log(`contrast on dark branding: ${JSON.stringify(ratios)}`)
    for (const [name, r] of Object.entries(ratios)) expect([name, r >= 4.5]).toEqual([name, true])
    expect(await pg.locator('.je-head').isHidden()).toBe(true)
    await shot(pg, 'widget-dark-records')
    await pg.context().close()
  }, TIMEOUT)

  test('a token that expires while the person waits: getToken brings a new one and the flow ends on live; without getToken the page says the session ended', async () => {
    for (const withGetToken of [true, false]) {
      const { pg, domain, asked } = await openWithToken(withGetToken)
      // The click's re-check answered first: the token expires while the person waits, not under the
      // click (that case is the next test's). On a loaded machine the progress screen is up before
      // the re-check reaches Portico, and a clock moved then refused the click itself.
      const rechecked = pg.waitForResponse((r) => r.url().endsWith(':recheck') && r.request().method() === 'POST')
      await pg.locator('#je-added').click()
      expect((await rechecked).status()).toBe(200)
      await pg.locator('#je-status').waitFor()
      // Two hours later on Portico's clock: the token the widget holds has expired.
      p.clock.advance(2 * 3600_000)
      try {
        if (withGetToken) {
          // The follow loop's next call is refused; the widget asks for a new token and goes on.
          for (let i = 0; i < 200 && asked() === 0; i++) await pg.waitForTimeout(100)
          expect(asked()).toBeGreaterThan(0)
          await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
          await pg.getByRole('button', { name: 'Check now' }).click()
          await pg.locator('#je-success').waitFor()
          const entries = await log(pg)
          expect(entries.some(([k]) => k === 'event:success')).toBe(true)
          expect(entries.filter(([k, e]) => k === 'onError' && e.code === 'SessionError')).toEqual([])
        } else {
          // The notice comes with the follow loop's next call: within the long poll's wait (8 s) when it
          // long-polls, but up to a minute (POLL_MAX_MS, the connection's next check) when the status
          // endpoint had failed and it plain-polls, as on a loaded machine (CI once saw 30 s pass).
          await pg.locator('#je-reach[data-reach="session"]').waitFor({ timeout: 75_000 })
          expect(await pg.locator('#je-reach').innerText()).toContain('session has ended')
          expect(await pg.getByRole('button', { name: 'Close' }).count()).toBeGreaterThan(0)
          expect((await log(pg)).some(([k, e]) => k === 'onError' && e.code === 'SessionError')).toBe(true)
          await shot(pg, 'widget-session-ended')
          // Back to the steps: the records to copy and the same notice, Close, nothing that would ask Portico.
          const before = (await log(pg)).length
          await pg.locator('#je-back-steps').click()
          await pg.locator('#je-records').waitFor()
          expect(await pg.locator('#je-reach[data-reach="session"]').count()).toBe(1)
          expect([await pg.locator('#je-added').count(), await pg.locator('#je-share').count(), await pg.locator('#je-close').count()]).toEqual([0, 0, 1])
          // ...nor a step that sends the person to a button that is gone.
          expect(await pg.locator('.je-steps').innerText()).not.toContain('I have added them')
          expect((await log(pg)).slice(before).filter(([k]) => k === 'onError')).toEqual([])
        }
      } finally {
        p.clock.reset()
        await pg.context().close()
      }
    }
  }, TIMEOUT)

  test('a token that has expired when the person clicks "I have added them": getToken brings a new one and the re-check goes through; without getToken the page says the session expired and offers Close, not a retry', async () => {
    for (const withGetToken of [true, false]) {
      const { pg, asked } = await openWithToken(withGetToken)
      await pg.locator('#je-added').waitFor()
      // The person read the records for two hours (on Portico's clock) before clicking.
      p.clock.advance(2 * 3600_000)
      try {
        if (withGetToken) {
          const rechecked = pg.waitForResponse((r) => r.url().endsWith(':recheck') && r.request().method() === 'POST' && r.status() !== 401)
          await pg.locator('#je-added').click()
          expect((await rechecked).status()).toBe(200)
          expect(asked()).toBeGreaterThan(0)
          await pg.locator('#je-status').waitFor()
          expect((await log(pg)).filter(([k, e]) => k === 'onError' && e.code === 'SessionError')).toEqual([])
        } else {
          await pg.locator('#je-added').click()
          await pg.locator('#je-error').waitFor()
          expect(await pg.locator('#je-error').innerText()).toContain('session has expired')
          expect(await pg.locator('#je-retry').count()).toBe(0)
          expect(await pg.getByRole('button', { name: 'Close' }).count()).toBeGreaterThan(0)
          expect((await log(pg)).some(([k, e]) => k === 'onError' && e.code === 'SessionError')).toBe(true)
        }
      } finally {
        p.clock.reset()
        await pg.context().close()
      }
    }
  }, TIMEOUT)

  test("a token minted for another application (the integrator's mix-up): a ConfigurationError, words that say the website's setup is wrong, Close and no Try again", async () => {
    const other = await provision(p)
    const pg = await page('plain')
    try {
      await open(pg, { applicationId: ws.appId, token: await widgetToken(p, other), domain: `shop${++seq}.${zone}` })
      await pg.locator('#je-error').waitFor()
      expect(await pg.locator('#je-error').innerText()).toContain("website's setup")
      expect(await pg.locator('#je-retry').count()).toBe(0)
      expect(await pg.getByRole('button', { name: 'Close' }).count()).toBeGreaterThan(0)
      const errors = (await log(pg)).filter(([k]) => k === 'onError').map(([, e]) => e)
      expect(errors.map((e) => e.code)).toEqual(['ConfigurationError'])
      expect(errors[0].message).toContain(`applicationId "${ws.appId}" is not the application of the widget token`)
    } finally {
      await pg.context().close()
    }
  }, TIMEOUT)

  test("getToken hands out another application's token while the person waits: the page says the website's setup is wrong, once, rather than stay silently stale", async () => {
    const other = await provision(p)
    // The widget opens with this application's token; every token getToken hands out after it is the other's.
    const { pg } = await openWithToken(true, () => widgetToken(p, other))
    try {
      const rechecked = pg.waitForResponse((r) => r.url().endsWith(':recheck') && r.request().method() === 'POST')
      await pg.locator('#je-added').click()
      expect((await rechecked).status()).toBe(200)
      await pg.locator('#je-status').waitFor()
      // The token held expires; the follow loop's next call is refused and getToken's new token is another application's.
      p.clock.advance(2 * 3600_000)
      await pg.locator('#je-error').waitFor({ timeout: 75_000 })
      expect(await pg.locator('#je-error').innerText()).toContain("website's setup")
      expect(await pg.locator('#je-retry').count()).toBe(0)
      const errors = (await log(pg)).filter(([k]) => k === 'onError').map(([, e]) => e)
      expect(errors.map((e) => e.code)).toEqual(['ConfigurationError'])
      expect(errors[0].message).toContain(`the token is not for application "${ws.appId}" and this domain`)
    } finally {
      p.clock.reset()
      await pg.context().close()
    }
  }, TIMEOUT)

  test('loadSharedFlow from a host page that loads widget.js from Portico: by token or by url, Portico is found with no apiBase, the browser\'s Arabic is right-to-left, and a link whose connection is disconnected meanwhile says it no longer works, once', async () => {
    for (const form of ['token', 'url'] as const) {
      const domain = `shared${++seq}.${zone}`
      const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
      expect(c.status).toBe(201)
      const share = await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: ws.apiKey })
      expect(share.status).toBe(201)
      const pg = await page('plain', { width: 375, height: 667, locale: 'ar' })
      try {
        await pg.evaluate((link) => {
          const w = window as any
          w.handle = w.Portico.loadSharedFlow(link, w.callbacks)
        }, form === 'token' ? share.body.token : share.body.url)
        await pg.locator('#je-records').waitFor()
        expect(await pg.locator('[data-portico][lang]').evaluate((e) => [e.getAttribute('lang'), e.getAttribute('dir')])).toEqual(['ar', 'rtl'])
        expect((await log(pg)).filter(([k]) => k === 'onError')).toEqual([])
        expect((await p.api('POST', `/v1/connections/${c.body.id}:disconnect`, { token: ws.apiKey, body: {} })).status).toBe(200)
        await pg.locator('#je-error').waitFor({ timeout: 60_000 })
        expect(await pg.locator('#je-error').innerText()).toContain('لم يعد هذا الرابط يعمل')
        expect(await pg.locator('#je-retry').count()).toBe(0)
        if (form === 'token') await shot(pg, 'widget-shared-link-gone-ar-375')
        expect((await log(pg)).filter(([k]) => k === 'onError')).toHaveLength(1)
      } finally {
        await pg.context().close()
      }
    }
  }, TIMEOUT)

  test('"Check now" pressed from the keyboard keeps the focus on it while it checks and after, inside the dialog (a disabled button dropped it to the page\'s body)', async () => {
    const { pg } = await openWithToken(false)
    try {
      await pg.locator('#je-added').click()
      await pg.locator('#je-check-now').waitFor()
      const focused = () => pg.evaluate(() => {
        let a: Element | null = document.activeElement
        while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement
        return a?.id || a?.tagName
      })
      await pg.locator('#je-check-now').focus()
      const rechecked = pg.waitForResponse((r) => r.url().endsWith(':recheck') && r.request().method() === 'POST')
      await pg.keyboard.press('Enter')
      expect(await focused()).toBe('je-check-now')
      expect((await rechecked).status()).toBe(200)
      await pg.locator('#je-check-now:not([aria-disabled])').waitFor()
      expect(await focused()).toBe('je-check-now')
    } finally {
      await pg.context().close()
    }
  }, TIMEOUT)

  test('Tab from the heading of a screen with no control of its own ("Checking…" while the analysis is out) stays in the dialog, both ways', async () => {
    const pg = await page('plain')
    try {
      let release = () => {}
      const held = new Promise<void>((r) => (release = r))
      await pg.route('**/v1/domains:check', async (route) => {
        await held
        await route.continue()
      })
      await open(pg, { applicationId: ws.appId, token: await widgetToken(p, ws), domain: `held${++seq}.${zone}` })
      await pg.locator('.je-spin').waitFor()
      const inDialog = () => pg.evaluate(() => document.activeElement?.hasAttribute('data-portico') === true)
      for (const key of ['Tab', 'Shift+Tab']) {
        await pg.locator('h2[slot="title"]').focus()
        await pg.keyboard.press(key)
        expect([key, await inDialog()]).toEqual([key, true])
      }
      release()
      await pg.locator('#je-records').waitFor()
    } finally {
      await pg.context().close()
    }
  }, TIMEOUT)

  test('a transform on body and a header at the highest z-index: the dialog is in the viewport and in front', async () => {
    const pg = await page('transform', { width: 375, height: 667 })
    try {
      await toRecords(pg)
      const seen = await pg.evaluate(() => {
        const title = document.querySelector('[data-portico] h2')!.getBoundingClientRect()
        // The header's band at the top of the viewport: the dialog's overlay is in front of it.
        return { top: title.top, bottom: title.bottom, front: !!document.elementFromPoint(187, 60)?.closest('[data-portico]') }
      })
      expect(seen.top).toBeGreaterThanOrEqual(0)
      expect(seen.bottom).toBeLessThanOrEqual(667)
      expect(seen.front).toBe(true)
      await shot(pg, 'widget-body-transform')
    } finally {
      await pg.context().close()
    }
  }, TIMEOUT)

  test('opened again while open: one dialog, the page stays inert, Escape returns focus to what had it before the first open', async () => {
    const pg = await page('plain')
    try {
      await pg.locator('#host-button').focus()
      const domain = await toRecords(pg)
      await open(pg, { applicationId: ws.appId, token: await widgetToken(p, ws), applicationName: 'Acme Sites', domain })
      await pg.locator('#je-added').waitFor()
      expect(await pg.locator('[data-portico]').count()).toBe(1)
      expect(await pg.evaluate(() => document.querySelector('main')!.hasAttribute('inert'))).toBe(true)
      await pg.keyboard.press('Escape')
      await pg.locator('[data-portico]').waitFor({ state: 'detached' })
      expect(await pg.evaluate(() => [document.activeElement?.id, document.querySelector('main')!.hasAttribute('inert')])).toEqual(['host-button', false])
    } finally {
      await pg.context().close()
    }
  }, TIMEOUT)

  test('the network lost while waiting is said, and so is its return; a reload resumes the connection where it stands', async () => {
    const pg = await page('plain')
    const domain = await toRecords(pg)
    await pg.locator('#je-added').click()
    await pg.locator('#je-status').waitFor()
    await pg.context().setOffline(true)
    await pg.locator('#je-reach[data-reach="offline"]').waitFor({ timeout: 20_000 })
    await shot(pg, 'widget-offline')
    await pg.context().setOffline(false)
    await pg.locator('#je-reach').waitFor({ state: 'detached', timeout: 40_000 })
    // The waiting screen again (it is drawn anew with the answer that ended the notice: waited for, not read at that instant).
    await pg.getByText('This page updates by itself').waitFor({ timeout: 10_000 })
    expect(await pg.getByText('This page updates by itself').count()).toBe(1)

    // A reload: the widget opened again for the same domain goes back to the waiting screen, not the choice.
    await pg.reload()
    await pg.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
    await open(pg, { applicationId: ws.appId, token: await widgetToken(p, ws), applicationName: 'Acme Sites', domain })
    await pg.locator('#je-status').waitFor()
    const seen = (await log(pg)).filter(([k]) => k === 'event:step').map(([, d]) => d.step)
    expect(seen).toEqual(['INITIAL', 'DOMAIN_ANALYSIS', 'IN_PROGRESS'])
    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    await pg.getByRole('button', { name: 'Check now' }).click()
    await pg.locator('#je-success').waitFor()
    // A reload once it is live goes back to the last screen (docs/widget.md) ...
    const reopen = async () => {
      await pg.reload()
      await pg.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
      await open(pg, { applicationId: ws.appId, token: await widgetToken(p, ws), applicationName: 'Acme Sites', domain })
    }
    await reopen()
    await pg.locator('#je-success').waitFor()
    // ... until the person closes the widget on it: then a reload starts over.
    await pg.getByRole('button', { name: 'Close' }).last().click()
    await reopen()
    await pg.waitForFunction(() => (window as any).log.filter(([k]: [string]) => k === 'event:step').length >= 3)
    const again = (await log(pg)).filter(([k]) => k === 'event:step').map(([, d]) => d.step)
    expect(again.slice(0, 2)).toEqual(['INITIAL', 'DOMAIN_ANALYSIS'])
    expect(['IN_PROGRESS', 'FINISHED_SUCCESSFULLY']).not.toContain(again[2])
    await pg.context().close()
  }, TIMEOUT)
})
