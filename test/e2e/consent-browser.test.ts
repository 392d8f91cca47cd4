// The consent page in a real browser (Debian's Chromium, headless, driven by playwright-core): a person
// sees who asks, where they will be sent and what each scope allows, signs in with an API key, approves
// and lands on the agent's redirect with a code. A brand imitator's page has no approve button.
// Screenshots go to test-artifacts/.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { livePortico, pkce, registerClient, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

const ARTIFACTS = 'test-artifacts'
let p: LivePortico
let ws: Workspace
let browser: Browser
let agent: ReturnType<typeof Bun.serve>

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  p = await livePortico()
  ws = await provision(p)
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
})

function authorizeUrl(clientId: string, redirect: string): string {
  const q = new URLSearchParams({ client_id: clientId, redirect_uri: redirect, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:read domains:disconnect', state: 'browser-state' })
  return `${p.url}/oauth/auth?${q}`
}

describe('consent page in Chromium', () => {
  test('shows the redirect host and scopes, approves, and lands on the redirect with a code', async () => {
    const redirect = `http://127.0.0.1:${agent.port}/callback`
    const reg = await registerClient(p.url, { client_name: 'Terminal Agent', redirect_uris: [redirect] })
    const page = await browser.newPage()
    await page.goto(authorizeUrl(reg.body.client_id, redirect))
    expect(page.url()).toContain('/oauth/consent/')
    expect(await page.textContent('h1')).toContain('Terminal Agent')
    expect(await page.textContent('#redirect-host')).toBe(`127.0.0.1:${agent.port}`)
    const scopes = await page.textContent('#scopes')
    expect(scopes).toContain('domains:read')
    expect(scopes).toContain('domains:disconnect')
    expect(scopes).toContain('Disconnect domains')
    expect(await page.isVisible('#local-warning')).toBe(true)
    await page.screenshot({ path: `${ARTIFACTS}/consent-page.png`, fullPage: true })
    await page.fill('#api_key', ws.apiKey)
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirect)), page.click('#approve')])
    const landed = new URL(page.url())
    expect(landed.searchParams.get('code')).toBeTruthy()
    expect(landed.searchParams.get('state')).toBe('browser-state')
    expect(landed.searchParams.get('iss')).toBe(p.url)
    await page.screenshot({ path: `${ARTIFACTS}/consent-landed.png` })
    await page.close()
  })

  test('a brand imitator gets no approve button', async () => {
    const id = 'agc_browser_imitator_01'
    const redirect = 'https://slack-helper.example/cb'
    const meta = { client_id: id, client_name: 'Slack Helper', redirect_uris: [redirect], application_type: 'web', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
    await p.db`insert into oauth_store (model, id, payload) values ('Client', ${id}, ${meta}::jsonb)`
    await p.db`insert into agent_clients (client_id, client_name, redirect_uris, created_at) values (${id}, 'Slack Helper', ${[redirect]}::text[], now())`
    const page = await browser.newPage()
    await page.goto(authorizeUrl(id, redirect))
    expect(await page.textContent('#imitation')).toContain('Slack')
    expect(await page.locator('#approve').count()).toBe(0)
    expect(await page.locator('#deny').count()).toBe(1)
    await page.screenshot({ path: `${ARTIFACTS}/consent-imitator.png`, fullPage: true })
    await page.close()
  })
})
