// The consent page's header in Chromium: Portico's mark until a person signs in, then their workspace's
// branding (its branded application's logo, name, accent colour with a readable foreground), axe 0
// at 375 and 1280 px, photographed into test-artifacts/consent-header/. The page is English only (its
// sign-in is oauth/consent.ts's); the Japanese display name checks the header with CJK text.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { linkIn, livePortico, ownerEmail, pkce, registerClient, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

const SHOTS = 'test-artifacts/consent-header'
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
const LOGO = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#c2185b"/></svg>').toString('base64')}`
let p: LivePortico
let ws: Workspace
let browser: Browser

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  p = await livePortico()
  ws = await provision(p, { tenant_name: 'Acme Robots' })
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
})

afterAll(async () => {
  await browser?.close()
  await p?.stop()
})

async function axe(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE })
  return page.evaluate(async () => ((await (window as any).axe.run(document, { resultTypes: ['violations'] })).violations as any[]).map((v) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`))
}

async function signedIn(page: Page): Promise<void> {
  const redirect = 'http://127.0.0.1:9/callback'
  const reg = await registerClient(p.url, { client_name: 'Header Agent', redirect_uris: [redirect] })
  const q = new URLSearchParams({ client_id: reg.body.client_id, redirect_uri: redirect, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:read', state: 's' })
  await page.goto(`${p.url}/oauth/auth?${q}`)
  expect(await page.locator('header > span').allInnerTexts()).toEqual(['P', 'Portico'])
  const email = await ownerEmail(p.url, ws.apiKey)
  await page.fill('#email', email)
  await Promise.all([page.waitForSelector('#sent'), page.click('#continue')])
  await page.goto(await linkIn(p.url, email))
  await Promise.all([page.waitForSelector('#approve'), page.click('#signin')])
}

describe('the consent page header', () => {
  for (const [label, name, accent] of [
    ['en', 'Acme Robots Console', '#ffd400'],
    ['ja', '株式会社アクメ・ロボティクス', '#0b3d91'],
  ] as const) {
    test(`after sign-in it carries the application's branding (${label}), readable, axe 0 at 375 and 1280`, async () => {
      const r = await p.api('PUT', `/v1/applications/${ws.appId}/branding`, { token: ws.apiKey, body: { display_name: name, logo_url: LOGO, accent_color: accent } })
      expect(r.status).toBe(200)
      for (const viewport of [{ width: 375, height: 667 }, { width: 1280, height: 800 }]) {
        const ctx = await browser.newContext({ viewport, bypassCSP: true, locale: label === 'ja' ? 'ja-JP' : 'en-US' })
        const page = await ctx.newPage()
        await signedIn(page)
        const header = page.locator('header#brand')
        expect(await header.locator('.brand-name').innerText()).toBe(name)
        expect(await header.locator('img').getAttribute('alt')).toBe('')
        const colours = await header.evaluate((h) => [getComputedStyle(h).backgroundColor, getComputedStyle(h).color])
        expect(colours).toEqual(label === 'en' ? ['rgb(255, 212, 0)', 'rgb(0, 0, 0)'] : ['rgb(11, 61, 145)', 'rgb(255, 255, 255)'])
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0)
        await page.screenshot({ path: `${SHOTS}/consent-${label}-${viewport.width}.png` })
        expect({ label, width: viewport.width, violations: await axe(page) }).toEqual({ label, width: viewport.width, violations: [] })
        await ctx.close()
      }
    }, 90_000)
  }

  test('without branding the signed-in page keeps Portico\'s header', async () => {
    await p.api('PUT', `/v1/applications/${ws.appId}/branding`, { token: ws.apiKey, body: {} })
    const ctx = await browser.newContext({ bypassCSP: true })
    const page = await ctx.newPage()
    await signedIn(page)
    expect(await page.locator('header > span').allInnerTexts()).toEqual(['P', 'Portico'])
    await ctx.close()
  }, 60_000)
})
