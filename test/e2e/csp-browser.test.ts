// The consent page in Chromium under its own Content-Security-Policy (the consent e2e test lifts the
// policy to inject axe-core; this one does not): it renders, the sign-in form works, nothing is
// refused, and the page cannot be framed by another site.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { chromium, type Browser, type Page } from 'playwright-core'
import { linkIn, livePortico, ownerEmail, pkce, registerClient, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

let p: LivePortico
let ws: Workspace
let browser: Browser

beforeAll(async () => {
  p = await livePortico()
  ws = await provision(p, { tenant_name: 'Policy Works' })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
})

afterAll(async () => {
  await browser?.close()
  await p?.stop()
})

function cspViolations(page: Page): string[] {
  const out: string[] = []
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) out.push(m.text())
  })
  return out
}

describe('under its Content-Security-Policy in Chromium', () => {
  test('the consent page renders and signs in with nothing refused; another site cannot frame it', async () => {
    const redirect = 'http://127.0.0.1:9/callback'
    const reg = await registerClient(p.url, { client_name: 'Policy Agent', redirect_uris: [redirect] })
    const q = new URLSearchParams({ client_id: reg.body.client_id, redirect_uri: redirect, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:read', state: 's' })
    const page = await browser.newPage()
    const blocked = cspViolations(page)
    await page.goto(`${p.url}/oauth/auth?${q}`)
    expect(page.url()).toContain('/oauth/consent/')
    expect(await page.textContent('h1')).toContain('Policy Agent')
    // The person signs in as themselves: their address, then the link mailed to it.
    const email = await ownerEmail(p.url, ws.apiKey)
    await page.fill('#email', email)
    await Promise.all([page.waitForSelector('#sent'), page.click('#continue')])
    await page.goto(await linkIn(p.url, email))
    await Promise.all([page.waitForSelector('#approve'), page.click('#signin')])
    expect(await page.textContent('#workspace')).toContain('Policy Works')
    expect(blocked).toEqual([])
    const consentUrl = page.url()

    // A page elsewhere that frames the consent page gets nothing rendered in the frame.
    const framer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(`<iframe id="f" src="${consentUrl}"></iframe>`, { headers: { 'content-type': 'text/html' } }) })
    try {
      const attacker = await browser.newPage()
      await attacker.goto(`http://localhost:${framer.port}/`)
      await attacker.waitForTimeout(500)
      const frame = attacker.frames().find((f) => f.url().includes('/oauth/consent/'))
      const framedText = frame ? await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '') : ''
      expect(framedText).not.toContain('Policy Agent')
      await attacker.close()
    } finally {
      framer.stop(true)
    }
    await page.close()
  }, 60_000)
})
