// A walk through every widget screen, for screenshots (scripts/widget-screens.ts) and for the tests that
// look at every screen in every locale (test/e2e/widget-screens.test.ts). The widget is the real bundle
// served by a real Portico; the API answers it gets are scripted at the browser's network boundary
// (page.route), in the API's own shapes, so each screen is reached at once and the same way every time:
// a domain that does not exist, records in the way, the manual records, a share link, the waiting
// screen, "almost there" (the page's clock moved on), securing, secured, not secure (a CAA record in the
// way), Domain Connect with the provider's name and without it, an API key and its refusal, the
// provider picker, an expired session, a connection the token no longer reaches while the person waits.
// `at(name)` is called on each screen.
import type { Page } from 'playwright-core'
import { PROVIDERS } from '../../src/domain/providers.ts'

const CLOUDFLARE = PROVIDERS.find((p) => p.id === 'cloudflare')!

export const TOUR_SCREENS = [
  '01-enter-domain',
  '02-domain-does-not-exist',
  '03-existing-records',
  '04-manual-with-conflicts',
  '05-manual',
  '06-link-shared',
  '07-waiting',
  '08-almost-there',
  '09-connected-securing',
  '10-connected-secure',
  '11-connected-not-secure',
  '12-domain-connect',
  '13-domain-connect-unnamed',
  '14-api-key',
  '15-api-key-refused',
  '16-provider-picker',
  '17-session-expired',
  '18-connection-out-of-reach',
] as const
export type TourScreen = (typeof TOUR_SCREENS)[number]

const EDGE = 'edge.portico.example'
const RECORD = { type: 'CNAME', host: 'shop', value: EDGE, ttl: 300, purpose: 'routing' }
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="28" viewBox="0 0 120 28"><rect width="28" height="28" rx="6" fill="#0a7d33"/><text x="36" y="20" font-family="sans-serif" font-size="16" fill="#0a7d33">Acme</text></svg>`

function check(domain: string, over: Record<string, unknown> = {}) {
  const [sub, ...rest] = domain.split('.')
  const off = { available: false, reason: 'provider_unsupported' }
  return {
    domain,
    apex_domain: rest.join('.'),
    subdomain: sub,
    is_apex: false,
    provider: 'cloudflare',
    provider_name: 'Cloudflare',
    // As the API serves it: where to create Cloudflare's credential and what it must allow (its folder's).
    provider_candidates: [{ provider: CLOUDFLARE.id, provider_name: CLOUDFLARE.name, dashboard_url: CLOUDFLARE.dashboard_url, token_url: CLOUDFLARE.token_url, token_scopes: CLOUDFLARE.token_scopes, credential: CLOUDFLARE.credential, api_credential: true }],
    setup_type: 'manual',
    supports_automatic: true,
    oauth_available: false,
    domain_connect_available: false,
    domain_connect_provider: null,
    domain_connect: null,
    registered: true,
    nameserver_supported: true,
    wildcard_supported: true,
    cname_flattening: true,
    spf_override_supported: false,
    caa_supported: true,
    social_login_supported: false,
    conflicts: [],
    apex_strategy: 'not_apex',
    rails: { oauth: off, domainConnect: off, apiKey: off, manual: { available: true } },
    recommended_rail: 'manual',
    end_user_automatic: false,
    blocked_reason: null,
    dashboard_url: 'https://dash.cloudflare.com/',
    nameservers: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
    desired_records: [{ ...RECORD, host: sub }],
    application: { id: 'app_tour', name: 'Default', branding: { display_name: 'Acme Sites', logo_url: null as string | null, accent_color: '#0a7d33' } },
    ...over,
  }
}

interface World {
  status: 'pending' | 'propagating' | 'live'
  secure: 'not_served' | 'securing' | 'secured' | 'failed'
  secureError: string | null
  conflicts: unknown[]
  version: number
}

export interface TourOptions {
  page: Page
  /** The host page (another origin) that loads /widget.js from Portico. */
  hostUrl: string
  locale: string
  at: (name: TourScreen) => Promise<void>
}

export async function tour(o: TourOptions): Promise<void> {
  const { page } = o
  const origin = new URL(o.hostUrl).origin
  const logoUrl = `${origin}/tour-logo.svg`
  // Served at Portico's edge: HTTPS is `securing` until the certificate is served.
  let world: World = { status: 'pending', secure: 'securing', secureError: null, conflicts: [], version: 1 }
  let domain = 'shop.example.com'
  let sessionExpired = false
  /** The status of the connection answers 404 (getToken's token is another application's, or it was disconnected). */
  let outOfReach = false
  const change = (w: Partial<World>) => (world = { ...world, ...w, version: world.version + 1 })
  const connection = () => ({
    id: 'con_tour',
    domain,
    status: world.status,
    records: [{ ...RECORD, host: domain.split('.')[0] }],
    error_code: null,
    error_message: null,
    propagation: { records_propagated: world.status === 'live' ? [{ ...RECORD, host: domain.split('.')[0] }] : [], records_non_propagated: [] },
    last_checked_at: new Date(Date.now() - 4000).toISOString(),
    next_check_at: new Date(Date.now() + 3000).toISOString(),
  })
  const status = () => ({
    id: 'con_tour',
    domain,
    status: world.status,
    rail: 'manual',
    error_code: null,
    error_message: null,
    records: [{ type: 'CNAME', host: domain.split('.')[0], value: EDGE, ttl: 300, state: world.status === 'live' ? 'found' : 'waiting' }],
    conflicts: world.conflicts,
    secure: world.secure,
    secure_error: world.secureError,
    last_checked_at: new Date(Date.now() - 4000).toISOString(),
    next_check_at: new Date(Date.now() + 3000).toISOString(),
    version: `v${world.version}`,
    application: { ...check(domain).application, branding: { ...check(domain).application.branding, logo_url: logoUrl } },
  })
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'authorization, content-type', 'access-control-allow-methods': 'GET, POST, PUT, DELETE' }
  await page.route(`${origin}/tour-logo.svg`, (r) => r.fulfill({ body: LOGO, headers: { 'content-type': 'image/svg+xml' } }))
  await page.route('**/v1/**', async (route) => {
    const req = route.request()
    if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors })
    const url = new URL(req.url())
    const path = url.pathname.replace(/^\/v1/, '')
    const json = (body: unknown, status = 200) => route.fulfill({ status, json: body, headers: cors })
    if (sessionExpired) return json({ code: 'unauthorized', title: 'The widget token has expired', details: null }, 401)
    if (path === '/domains:check') {
      domain = (req.postDataJSON() as { domain: string }).domain
      const withLogo = (c: ReturnType<typeof check>) => ({ ...c, application: { ...c.application, branding: { ...c.application.branding, logo_url: logoUrl } } })
      if (domain.startsWith('nowhere')) return json(withLogo(check(domain, { registered: false, blocked_reason: 'not_registered', provider: null, provider_name: null, rails: { oauth: { available: false, reason: 'not_registered' }, domainConnect: { available: false, reason: 'not_registered' }, apiKey: { available: false, reason: 'not_registered' }, manual: { available: false, reason: 'not_registered' } }, recommended_rail: null, desired_records: [] })))
      if (domain.startsWith('clash')) return json(withLogo(check(domain, { conflicts: [{ kind: 'routing', type: 'A', host: 'clash', value: '192.0.2.7', desired: { type: 'CNAME', host: 'clash', value: EDGE }, action: 'remove' }, { kind: 'routing', type: 'TXT', host: 'clash', value: 'v=spf1 -all', desired: { type: 'CNAME', host: 'clash', value: EDGE }, action: 'remove' }] })))
      if (domain.startsWith('oneclick')) return json(withLogo(check(domain, { recommended_rail: 'domainConnect', rails: { ...check(domain).rails, domainConnect: { available: true } }, domain_connect_provider: 'api.gandi.net', domain_connect: { provider_id: 'gandi.net', provider_name: 'Gandi', sync: true, async: false } })))
      if (domain.startsWith('unnamed')) return json(withLogo(check(domain, { recommended_rail: 'domainConnect', rails: { ...check(domain).rails, domainConnect: { available: true } }, domain_connect_provider: 'dc.example.net', domain_connect: null })))
      if (domain.startsWith('key')) return json(withLogo(check(domain, { recommended_rail: 'apiKey', rails: { ...check(domain).rails, apiKey: { available: true, caveat: 'needs_provider_api_credential' } } })))
      if (domain.startsWith('unknown')) return json(withLogo(check(domain, { provider: null, provider_name: null, dashboard_url: null, nameservers: ['ns1.small-host.example'] })))
      return json(withLogo(check(domain)))
    }
    if (path.startsWith('/providers/')) return json({ provider: { id: 'cloudflare', name: 'Cloudflare', manual_steps: ['Sign in to the Cloudflare dashboard', 'Choose the zone, then DNS → Records', 'Add each record below; set the proxy status to "DNS only"', 'Save, then choose "I have added them"'], dashboard_url: 'https://dash.cloudflare.com/' } })
    if (path === '/providers') return json({ providers: [{ id: 'gandi', name: 'Gandi' }, { id: 'ovh', name: 'OVHcloud' }, { id: 'namecheap', name: 'Namecheap' }] })
    if (path === '/connections' && req.method() === 'POST') return json(connection(), 201)
    if (path.endsWith(':recheck')) {
      if (world.status === 'pending') change({ status: 'propagating' })
      return json(connection())
    }
    if (path.endsWith('/records')) return json({ records: connection().records, manual_steps: [], dashboard_url: 'https://dash.cloudflare.com/' })
    if (path.endsWith('/share')) return json({ url: 'https://portico.example/share/shr_7YbK2mQ9xD4wZ1', token: 'shr_7YbK2mQ9xD4wZ1', expires_at: '2026-04-11T09:30:00Z' })
    if (path.endsWith('/apply')) return json({ code: 'ProviderAuthenticationError', title: 'Authentication error', details: { provider: 'cloudflare' } }, 422)
    if (path.includes('/status') && outOfReach) return json({ code: 'not_found', title: 'Connection not found', details: null }, 404)
    if (path.includes('/status')) {
      // A long poll answered at once: the page's clock (installed) paces the widget's next look.
      return json(status())
    }
    if (/^\/connections\/con_tour$/.test(path)) return json(connection())
    return json({ code: 'not_found', title: 'Not found', details: null }, 404)
  })

  const open = async (config: Record<string, unknown>) => {
    world = { status: 'pending', secure: 'securing', secureError: null, conflicts: [], version: world.version + 1 }
    await page.evaluate((c) => {
      const w = window as any
      w.handle?.close()
      w.handle = w.Portico.open({ applicationId: 'app_tour', token: 'wt_tour', ...c })
    }, { locale: o.locale, ...config })
  }
  const waitFor = async (selector: string) => page.locator(selector).first().waitFor({ timeout: 20_000 })
  const typeDomain = async (d: string) => {
    await page.locator('#je-domain').fill(d)
    await page.locator('#je-continue').click()
  }
  const tick = async (ms: number) => {
    await page.clock.runFor(ms)
    await page.waitForTimeout(50)
  }
  /** Moves the page's clock a minute at a time until `selector` shows (the widget's next look at the status). */
  const until = async (selector: string) => {
    for (let i = 0; i < 10; i++) {
      if (await page.locator(selector).first().isVisible()) return
      await tick(61_000)
      await page.locator(selector).first().waitFor({ timeout: 1500 }).catch(() => undefined)
    }
    await waitFor(selector)
  }

  // The manual rail, from the domain field to secured.
  await open({})
  await waitFor('#je-domain')
  await page.locator('[data-portico][lang]').waitFor()
  await page.waitForFunction(() => !document.querySelector('[data-portico]')?.shadowRoot?.querySelector('.je-root .je-spin'))
  await o.at('01-enter-domain')
  await typeDomain('nowhere-at-all.example')
  await waitFor('#je-domain[aria-invalid="true"]')
  await o.at('02-domain-does-not-exist')
  await typeDomain('clash.example.com')
  await waitFor('#je-conflicts')
  await o.at('03-existing-records')
  await page.locator('#je-continue').click()
  await waitFor('#je-records')
  await o.at('04-manual-with-conflicts')
  await page.locator('#je-back').click()
  await waitFor('#je-conflicts')
  await page.locator('#je-back').click()
  await typeDomain('shop.example.com')
  await waitFor('#je-records')
  await page.waitForFunction(() => document.querySelectorAll('[data-portico] > li').length > 0)
  await o.at('05-manual')
  await page.locator('#je-share').click()
  await waitFor('#je-link')
  await o.at('06-link-shared')
  await page.locator('#je-back').click()
  await waitFor('#je-added')
  await page.locator('#je-added').click()
  await waitFor('#je-status')
  await o.at('07-waiting')
  await tick(2 * 60_000 + 1000)
  await until('#je-close')
  await o.at('08-almost-there')
  change({ status: 'live', secure: 'securing' })
  await until('#je-success[data-secure="securing"]')
  await o.at('09-connected-securing')
  change({ secure: 'secured' })
  await until('#je-success[data-secure="secured"]')
  await page.evaluate(() => document.querySelector('[data-portico]')?.shadowRoot?.querySelector('.je-confetti')?.remove())
  await o.at('10-connected-secure')

  // Connected, but the CA may not issue: a CAA record in the way.
  await open({ domain: 'tls.example.com' })
  await waitFor('#je-added')
  await page.locator('#je-added').click()
  await waitFor('#je-status')
  change({
    status: 'live',
    secure: 'failed',
    secureError: 'CAA record for example.com prevents issuance',
    conflicts: [{ kind: 'certificate', type: 'CAA', host: '@', value: '0 issue "other-ca.example"', desired: { type: 'CAA', host: '@', value: '0 issue "letsencrypt.org"' }, action: 'add', reason: 'caa_forbids_ca', blocks_certificate: true, fix: 'Add the CAA record 0 issue "letsencrypt.org" beside the one there.' }],
  })
  await until('#je-success[data-secure="blocked"]')
  await o.at('11-connected-not-secure')

  // One click: the Domain Connect provider named from its settings, then one whose name is unknown.
  await open({ domain: 'oneclick.example.com' })
  await waitFor('#je-setup-go')
  await o.at('12-domain-connect')
  await open({ domain: 'unnamed.example.com' })
  await waitFor('#je-setup-go')
  await o.at('13-domain-connect-unnamed')

  // The provider's API key, refused once.
  await open({ domain: 'key.example.com' })
  await waitFor('#je-credential')
  await o.at('14-api-key')
  await page.locator('#je-credential').fill('cf-token-with-too-few-permissions')
  await page.locator('#je-login-go').click()
  await waitFor('#je-reason')
  await o.at('15-api-key-refused')

  // Nameservers of a provider the catalog does not know.
  await open({ domain: 'unknown.example.com' })
  await waitFor('#je-provider')
  await o.at('16-provider-picker')

  // The widget token expired.
  sessionExpired = true
  await open({ domain: 'shop.example.com' })
  await waitFor('#je-error')
  sessionExpired = false
  await o.at('17-session-expired')

  // The connection went out of the token's reach while the person waited.
  await open({ domain: 'gone.example.com' })
  await waitFor('#je-added')
  await page.locator('#je-added').click()
  await waitFor('#je-status')
  outOfReach = true
  await until('#je-error')
  outOfReach = false
  await o.at('18-connection-out-of-reach')
  await page.evaluate(() => (window as any).handle?.close())
}
