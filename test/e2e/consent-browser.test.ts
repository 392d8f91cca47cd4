// The consent page in a real browser (Debian's Chromium, headless, driven by playwright-core): a person
// sees who asks, where they will be sent and what each scope allows, signs in as themselves by a link
// mailed through the workspace's own SMTP sender (a real SMTP server on loopback, smtp-server), sees
// the workspace by name, unchecks a scope, approves and lands on the agent's redirect with a code
// granting only what stayed checked. Then "Your agents" lists the grant (client, domain unverified,
// scopes, who approved, created, last used) and revokes it in a click. A brand imitator's page has no
// approve button. Every screen is checked with axe-core at 1280 and 375 px (0 violations) and
// screenshotted into test-artifacts/; the page in Arabic (right to left) too, and every locale the
// widget speaks is the page's language when it is the browser's.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { livePortico, mailSettled, ownerEmail, pkce, registerClient, token, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { CONSENT_LOCALES } from '../../oauth/strings.ts'

const ARTIFACTS = 'test-artifacts'
const WORKSPACE = 'Acme Robots'
// axe-core runs on every screen at two widths: seconds per test on a shared two-core machine.
let p: LivePortico
let ws: Workspace
let browser: Browser
let agent: ReturnType<typeof Bun.serve>
let smtp: SMTPServer
const mails: string[] = []

/** The newest mail's text, quoted-printable soft breaks and escapes undone. */
const lastMail = () => (mails.at(-1) ?? '').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  // The workspace's own SMTP sender: a real SMTP server on loopback that keeps what it receives.
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, _session, done) {
      let data = ''
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')))
      stream.on('end', () => {
        mails.push(data)
        done()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()))
  const smtpPort = (smtp.server.address() as AddressInfo).port
  p = await livePortico({ WEBHOOK_ALLOW_LOOPBACK: '1' }, { realMail: true })
  ws = await provision(p, { tenant_name: WORKSPACE })
  const sender = await p.api('PUT', `/v1/applications/${ws.appId}/email-sender`, {
    token: ws.apiKey,
    body: { mode: 'smtp', smtp_host: '127.0.0.1', smtp_port: smtpPort, tls: 'none', from_address: 'robots@acme.example', from_name: WORKSPACE },
  })
  expect(sender.body.verified_at).toBeString()
  // The agent's own loopback redirect target, as a CLI agent would run it.
  agent = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('<h1>Signed in, you can close this tab</h1>', { headers: { 'content-type': 'text/html' } }) })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
})

afterAll(async () => {
  await browser?.close()
  agent?.stop(true)
  await p?.stop()
  await new Promise<void>((resolve) => smtp?.close(() => resolve()))
})

function authorizeUrl(clientId: string, redirect: string, challenge = pkce().challenge): string {
  const q = new URLSearchParams({ client_id: clientId, redirect_uri: redirect, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope: 'domains:read domains:disconnect', state: 'browser-state' })
  return `${p.url}/oauth/auth?${q}`
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Runs axe-core on the page (WCAG 2.x A/AA and best practices); returns the violations' ids and targets. */
async function axe(page: Page): Promise<{ id: string; nodes: string[] }[]> {
  await page.addScriptTag({ content: AXE_SOURCE })
  return page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe
    const out = await run.run(document, { resultTypes: ['violations'] })
    return out.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }))
  })
}

/** At 1280 and 375 px: 0 axe violations, nothing wider than the viewport, and a screenshot named `name-<width>`. */
async function checkScreen(page: Page, name: string): Promise<void> {
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    expect({ name, width, violations: await axe(page) }).toEqual({ name, width, violations: [] })
    const overflow = await page.evaluate(() => [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((e) => e.tagName + '#' + e.id))
    expect({ name, width, overflow }).toEqual({ name, width, overflow: [] })
    await page.screenshot({ path: `${ARTIFACTS}/${name}-${width}.png`, fullPage: true })
  }
}

describe('consent page in Chromium', () => {
  test('shows the redirect host and scopes, signs in, names the workspace, approves what stays checked, and lands on the redirect with a code', async () => {
    const redirect = `http://127.0.0.1:${agent.port}/callback`
    const reg = await registerClient(p.url, { client_name: 'Terminal Agent', redirect_uris: [redirect] })
    // CSP forbids every script on the page; the test context lifts it only to inject axe-core.
    const context = await browser.newContext({ bypassCSP: true })
    const page = await context.newPage()
    const { verifier, challenge } = pkce()
    await page.goto(authorizeUrl(reg.body.client_id, redirect, challenge))
    expect(page.url()).toContain('/oauth/consent/')
    expect(await page.textContent('h1')).toContain('Terminal Agent')
    expect(await page.textContent('#redirect-host')).toBe(`127.0.0.1:${agent.port}`)
    const scopes = await page.textContent('#scopes')
    expect(scopes).toContain('domains:read')
    expect(scopes).toContain('domains:disconnect')
    expect(scopes).toContain('Disconnect domains')
    expect(await page.isVisible('#local-warning')).toBe(true)
    await checkScreen(page, 'consent-signin')
    await page.screenshot({ path: `${ARTIFACTS}/consent-page.png`, fullPage: true })

    // The person signs in as themselves: their address, then the link their workspace's sender mailed.
    const email = await ownerEmail(p.url, ws.apiKey)
    await page.fill('#email', email)
    await Promise.all([page.waitForSelector('#sent'), page.click('#continue')])
    expect(await page.textContent('#sent')).toContain(email)
    await checkScreen(page, 'consent-sent')
    // The mail goes out after the answer (the answer's time says nothing about who is a member).
    await mailSettled()
    const mail = lastMail()
    expect(mail).toContain('From: Acme Robots <robots@acme.example>')
    expect(mail).toContain(`To: ${email}`)
    const link = mail.match(/http:\/\/\S+\/oauth\/signin\/[\w-]+/)![0]
    await page.goto(link)
    expect(await page.textContent('h1')).toContain(email)
    await checkScreen(page, 'signin-link')
    await Promise.all([page.waitForSelector('#approve'), page.click('#signin')])
    // Back on the consent page, signed in: it names the workspace and makes Approve the primary button.
    expect(page.url()).toContain('/oauth/consent/')
    expect(await page.textContent('#workspace')).toContain(WORKSPACE)
    expect(await page.textContent('#workspace')).toContain(email)
    expect(await page.textContent('h1')).toContain(WORKSPACE)
    expect(await page.getAttribute('#approve', 'class')).toBe('primary')
    expect(await page.getAttribute('#deny', 'class')).toBe('secondary')
    expect(await page.locator('main').count()).toBe(1)
    expect(await page.locator('a[href="/oauth/agents"]').count()).toBeGreaterThan(0)
    await checkScreen(page, 'consent-approve')
    // The person keeps reading and unchecks disconnecting.
    await page.uncheck('input[value="domains:disconnect"]')
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirect)), page.click('#approve')])
    const landed = new URL(page.url())
    expect(landed.searchParams.get('code')).toBeTruthy()
    expect(landed.searchParams.get('state')).toBe('browser-state')
    expect(landed.searchParams.get('iss')).toBe(p.url)
    await page.screenshot({ path: `${ARTIFACTS}/consent-landed.png` })
    const t = await token(p.url, { grant_type: 'authorization_code', code: landed.searchParams.get('code')!, redirect_uri: redirect, client_id: reg.body.client_id, code_verifier: verifier })
    expect(t.body.scope).toBe('domains:read')

    // "Your agents", linked from the consent page: the grant, who approved it, and revoke in a click.
    await page.goto(`${p.url}/oauth/agents`)
    const item = page.locator('#active li', { hasText: 'Terminal Agent' })
    expect(await item.count()).toBe(1)
    const text = (await item.textContent())!
    expect(text).toContain('(unverified)')
    expect(text).toContain(`127.0.0.1:${agent.port}`)
    expect(text).toContain('domains:read')
    expect(text).not.toContain('domains:disconnect')
    expect(text).toContain(email)
    expect(text).toMatch(/Created\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/)
    expect(text).toContain('Last usednever')
    await checkScreen(page, 'agents')
    await Promise.all([page.waitForSelector('#notice'), item.getByRole('button', { name: 'Revoke Terminal Agent' }).click()])
    expect(await page.textContent('#notice')).toContain('“Terminal Agent” was revoked')
    expect(await page.locator('#active li', { hasText: 'Terminal Agent' }).count()).toBe(0)
    expect(await page.textContent('#ended')).toContain('revoked_by_workspace')
    await checkScreen(page, 'agents-revoked')
    // The agent's refresh now fails: its grant ended.
    const refreshed = await token(p.url, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: reg.body.client_id })
    expect(refreshed.status).toBe(400)
    await context.close()
  }, 60_000)

  test('in the browser\'s language: Arabic right to left (axe 0), and every locale the widget speaks', async () => {
    const redirect = `http://127.0.0.1:${agent.port}/callback`
    const reg = await registerClient(p.url, { client_name: 'Terminal Agent', redirect_uris: [redirect] })
    const context = await browser.newContext({ bypassCSP: true, locale: 'ar' })
    const page = await context.newPage()
    const res = await page.goto(authorizeUrl(reg.body.client_id, redirect))
    expect(page.url()).toContain('/oauth/consent/')
    expect(res!.headers()['content-language']).toBe('ar')
    expect([await page.getAttribute('html', 'lang'), await page.getAttribute('html', 'dir')]).toEqual(['ar', 'rtl'])
    const ar = CONSENT_LOCALES.ar!
    expect(await page.textContent('h1')).toBe(ar.titleAsk.replace('{client}', '“Terminal Agent”'))
    expect(await page.textContent('#continue')).toBe(ar.emailMe)
    expect(await page.textContent('#scopes')).toContain(ar.scopes['domains:disconnect']!)
    expect(await page.textContent('#local-warning')).toBe(ar.localWarning)
    await checkScreen(page, 'consent-signin-ar')
    await context.close()

    const seen: Record<string, unknown> = {}
    for (const lang of Object.keys(CONSENT_LOCALES)) {
      const ctx = await browser.newContext({ locale: lang, viewport: { width: 375, height: 800 } })
      const pg = await ctx.newPage()
      const r = await pg.goto(authorizeUrl(reg.body.client_id, redirect))
      seen[lang] = {
        language: r!.headers()['content-language'],
        lang: await pg.getAttribute('html', 'lang'),
        dir: await pg.getAttribute('html', 'dir'),
        h1: await pg.textContent('h1'),
        button: await pg.textContent('#continue'),
        deny: await pg.textContent('#deny'),
        wider: await pg.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth),
      }
      await ctx.close()
    }
    expect(seen).toEqual(
      Object.fromEntries(
        Object.entries(CONSENT_LOCALES).map(([lang, s]) => [lang, { language: lang, lang, dir: ['ar', 'he'].includes(lang) ? 'rtl' : 'ltr', h1: s.titleAsk.replace('{client}', '“Terminal Agent”'), button: s.emailMe, deny: s.deny, wider: false }]),
      ),
    )
  }, 120_000)

  test('a brand imitator gets no approve button', async () => {
    const id = 'agc_browser_imitator_01'
    const redirect = 'https://slack-helper.example/cb'
    const meta = { client_id: id, client_name: 'Slack Helper', redirect_uris: [redirect], application_type: 'web', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
    await p.db`insert into oauth_store (model, id, payload) values ('Client', ${id}, ${meta}::jsonb)`
    await p.db`insert into agent_clients (client_id, client_name, redirect_uris, created_at) values (${id}, 'Slack Helper', ${[redirect]}::text[], now())`
    const context = await browser.newContext({ bypassCSP: true })
    const page = await context.newPage()
    await page.goto(authorizeUrl(id, redirect))
    expect(await page.textContent('#imitation')).toContain('Slack')
    expect(await page.locator('#approve').count()).toBe(0)
    expect(await page.locator('#continue').count()).toBe(0)
    expect(await page.locator('#deny').count()).toBe(1)
    await checkScreen(page, 'consent-imitator')
    await context.close()
  }, 60_000)
})
