// The agents' authorization server as clients and people meet it: RFC 7591 registration and its
// refusals, the registration budget, the consent request and page (brand imitation, roles, deny),
// tokens (audience, tenant, scopes, refresh rotation, scope-less requests), discovery documents, and
// the cleanup of clients nobody approved.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { MovableClock, DAY } from '../../src/clock.ts'
import { createAuthServer } from '../../oauth/provider.ts'
import { cleanupAgentClients, handleRegistration, REGISTRATION_LIMITS, type RegistrationLimits } from '../../oauth/register.ts'
import { trustedProxies, type ProxyHeader } from '../../src/client-address.ts'
import { livePortico, registerClient, authorize, answer, pkce, token, agentToken, approveAs, ownerEmail, mailbox, mailSettled, linkIn, openSignInLink, CookieJar, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

let p: LivePortico
let ws: Workspace
let owner: string
beforeAll(async () => {
  p = await livePortico()
  ws = await provision(p)
  owner = await ownerEmail(p.url, ws.apiKey)
})
afterAll(async () => {
  await p.stop()
})

const LOOPBACK = 'http://127.0.0.1:9/cb'

function claims(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())
}

function header(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString())
}

async function startFlow(clientName: string, redirect = LOOPBACK, scope: string | null = 'domains:read') {
  const reg = await registerClient(p.url, { client_name: clientName, redirect_uris: [redirect] })
  expect(reg.status).toBe(201)
  const { verifier, challenge } = pkce()
  const params: Record<string, string> = { client_id: reg.body.client_id, redirect_uri: redirect, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' }
  if (scope !== null) params.scope = scope
  return { clientId: reg.body.client_id as string, verifier, auth: await authorize(p.url, params) }
}

describe('registration (RFC 7591)', () => {
  test('answers the contract registration response for a public client', async () => {
    const r = await registerClient(p.url, { client_name: 'My Agent', redirect_uris: [LOOPBACK], logo_uri: 'https://x.example/logo.png', scope: 'domains:read' })
    expect(r.status).toBe(201)
    expect(r.body).toEqual({
      client_id: expect.stringMatching(/^agc_/),
      client_id_issued_at: expect.any(Number),
      client_name: 'My Agent',
      redirect_uris: [LOOPBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    })
  })

  test('accepts a native app scheme and a brand whose redirects are its own or loopback', async () => {
    expect((await registerClient(p.url, { client_name: 'Cursor', redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback'] })).status).toBe(201)
    expect((await registerClient(p.url, { client_name: 'Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] })).status).toBe(201)
    expect((await registerClient(p.url, { client_name: 'Claude Code', redirect_uris: ['http://localhost:33418/callback'] })).status).toBe(201)
  })

  test.each([
    ['a brand imitation', { client_name: 'Gооgle Assistant', redirect_uris: ['https://evil.example/cb'] }, 'invalid_client_metadata'],
    ['a spaced-out brand', { client_name: 'O p e n A I', redirect_uris: ['https://evil.example/cb'] }, 'invalid_client_metadata'],
    ['plain http to a network host', { client_name: 'Agent', redirect_uris: ['http://agent.example/cb'] }, 'invalid_redirect_uri'],
    ['missing redirect_uris', { client_name: 'Agent' }, 'invalid_redirect_uri'],
    ['a javascript: redirect', { client_name: 'Agent', redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['a fragment', { client_name: 'Agent', redirect_uris: ['https://agent.example/cb#x'] }, 'invalid_redirect_uri'],
    ['a confidential client', { client_name: 'Agent', redirect_uris: [LOOPBACK], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    ['the implicit grant', { client_name: 'Agent', redirect_uris: [LOOPBACK], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['no client_name', { redirect_uris: [LOOPBACK] }, 'invalid_client_metadata'],
  ])('refuses %s with the RFC 7591 envelope', async (_what, metadata, error) => {
    const r = await registerClient(p.url, metadata)
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ error, error_description: expect.any(String) })
  })

  test('a per-address hourly budget answers 429 with Retry-After, and other addresses still register', async () => {
    const register = registrar({ perAddressPerHour: 2 })
    expect((await register('192.0.2.7')).status).toBe(201)
    expect((await register('192.0.2.7')).status).toBe(201)
    const refused = await register('192.0.2.7')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await refused.json()).error).toBe('too_many_requests')
    expect((await register('192.0.2.8')).status).toBe(201)
  })
})

let hours = 0

/**
 * Registers as the socket peer `peer` with any forwarded headers, under the given budgets and trusted
 * proxies. Each registrar's clock is two hours past the last one's, so it starts with fresh budgets.
 */
function registrar(limits: Partial<RegistrationLimits>, trustProxy: string[] = [], header: ProxyHeader = 'x-forwarded-for') {
  const auth = createAuthServer({ config: p.config, db: p.db, clock: p.clock })
  const clock = new MovableClock()
  clock.advance((hours += 2) * 3600_000)
  return async (peer: string, headers: Record<string, string> = {}) => {
    const deps = { db: p.db, clock, auth: await auth, trustProxy: trustedProxies(trustProxy, header), limits: { ...REGISTRATION_LIMITS, ...limits } }
    const body = JSON.stringify({ client_name: 'Burst', redirect_uris: [LOOPBACK] })
    return handleRegistration(deps, new Request(`${p.url}/v1/oauth/agent/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }), peer)
  }
}

describe('registration budgets behind a proxy (TRUST_PROXY)', () => {
  test('21 registrations from different forwarded addresses behind a trusted proxy are not limited together', async () => {
    const register = registrar({ perAddressPerHour: 20 }, ['10.0.0.0/8'])
    for (let i = 1; i <= 21; i++) {
      expect((await register('10.1.2.3', { 'x-forwarded-for': `198.51.100.${i}` })).status).toBe(201)
    }
    // The client behind the proxy has its own budget: the same forwarded address 20 more times is refused.
    for (let i = 0; i < 19; i++) expect((await register('10.1.2.3', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(201)
    expect((await register('10.1.2.3', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429)
    // A Forwarded header the client sent through a proxy that sets X-Forwarded-For is not read.
    expect((await register('10.1.2.3', { 'x-forwarded-for': '198.51.100.1', forwarded: 'for=198.51.100.200' })).status).toBe(429)
  })

  test('proxies that set RFC 7239 Forwarded (TRUST_PROXY_HEADER=forwarded): through two trusted hops the right-most untrusted address is the client; X-Forwarded-For is then not read', async () => {
    const register = registrar({ perAddressPerHour: 20 }, ['10.0.0.0/8'], 'forwarded')
    for (let i = 0; i < 20; i++) expect((await register('10.1.2.3', { forwarded: 'for=198.51.100.1, for="10.9.9.9"', 'x-forwarded-for': `198.51.100.${100 + i}` })).status).toBe(201)
    expect((await register('10.1.2.3', { forwarded: 'for=198.51.100.1, for="10.9.9.9"' })).status).toBe(429)
    expect((await register('10.1.2.3', { forwarded: 'for="[2001:db8:5::1]:4711"' })).status).toBe(201)
    const [row] = await p.db`select ip, ip_prefix from agent_clients order by created_at desc, client_id desc limit 1`
    expect(row).toEqual({ ip: '2001:db8:5::1', ip_prefix: '2001:db8:5:0::/64' })
  })

  test('forged forwarded headers from an untrusted peer are ignored', async () => {
    const register = registrar({ perAddressPerHour: 20 }, ['10.0.0.0/8'])
    for (let i = 1; i <= 20; i++) {
      expect((await register('203.0.113.9', { 'x-forwarded-for': `198.51.100.${i}`, forwarded: `for=198.51.101.${i}` })).status).toBe(201)
    }
    expect((await register('203.0.113.9', { 'x-forwarded-for': '198.51.100.77' })).status).toBe(429)
    // A client behind a trusted proxy cannot prepend addresses either: the right-most one is believed.
    for (let i = 1; i <= 20; i++) expect((await register('10.0.0.1', { 'x-forwarded-for': `192.0.2.${i}, 203.0.113.50` })).status).toBe(201)
    expect((await register('10.0.0.1', { 'x-forwarded-for': '192.0.2.99, 203.0.113.50' })).status).toBe(429)
  })

  test('one /24 or one IPv6 /64 has one budget, whatever addresses it rotates through', async () => {
    const register = registrar({ perPrefixPerHour: 5 })
    for (let i = 1; i <= 5; i++) expect((await register(`2001:db8:1:2::${i}`)).status).toBe(201)
    expect((await register('2001:db8:1:2:ffff::1')).status).toBe(429)
    expect((await register('2001:db8:1:3::1')).status).toBe(201)
    for (let i = 1; i <= 5; i++) expect((await register(`198.51.100.${i}`)).status).toBe(201)
    expect((await register('198.51.100.200')).status).toBe(429)
    expect((await register('198.51.101.1')).status).toBe(201)
  })

  test('a few prefixes cannot use up the overall budget for everyone', async () => {
    const register = registrar({ perPrefixPerHour: 5, globalPerHour: 10, prefixFloor: 2 })
    // Two prefixes fill the overall budget.
    for (const net of ['192.0.2', '198.51.100']) for (let i = 1; i <= 5; i++) expect((await register(`${net}.${i}`)).status).toBe(201)
    // A newcomer still gets its floor; the attackers get nothing more.
    expect((await register('203.0.113.1')).status).toBe(201)
    expect((await register('203.0.113.2')).status).toBe(201)
    expect((await register('203.0.113.3')).status).toBe(429)
    expect((await register('192.0.2.200')).status).toBe(429)
  })
})

describe('brand identity', () => {
  test.each(['Clɑude', 'Cl4ude', 'Ꮯlaude', 'ᎪnthropiᏟ', 'Cursoг', 'Perplexity', 'Windsurf', 'Mistral Le Chat', 'Grok', 'Portico'])(
    'registering "%s" with a redirect elsewhere is refused',
    async (name) => {
      const r = await registerClient(p.url, { client_name: name, redirect_uris: ['https://agent.example/cb'] })
      expect(r.status).toBe(400)
      expect(r.body.error).toBe('invalid_client_metadata')
    },
  )

  test('"Claude" redirecting to claude://cb registers, but the consent page does not call it Verified', async () => {
    const { auth } = await startFlow('Claude', 'claude://cb')
    const request = await (await fetch(`${p.url}/v1/agent/consent-request/${auth.consentId}`)).json()
    expect(request).toMatchObject({ verified: false, verified_as: null, imitates: null, redirect_host: 'claude://cb' })
    const page = await (await fetch(p.url + auth.consentPath)).text()
    expect(page).not.toContain('Verified')
  })
})

describe('discovery', () => {
  test('authorization server metadata names the registration endpoint, S256 and code only', async () => {
    const md = await (await fetch(`${p.url}/.well-known/oauth-authorization-server`)).json()
    expect(md).toMatchObject({
      issuer: p.url,
      registration_endpoint: `${p.url}/v1/oauth/agent/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
      revocation_endpoint: `${p.url}/oauth/token/revocation`,
    })
    expect(md.dpop_signing_alg_values_supported).toContain('ES256')
  })

  test('GET /v1/rbac publishes the agent scopes and /v1/config lists mcp', async () => {
    const rbac = await (await fetch(`${p.url}/v1/rbac`)).json()
    expect(rbac.agent_scopes.map((s: { id: string }) => s.id)).toEqual(['domains:read', 'domains:write', 'domains:disconnect', 'domains:records'])
    expect(rbac.agent_scopes[0].description).toBeTruthy()
    expect((await (await fetch(`${p.url}/v1/config`)).json()).products).toContain('mcp')
  })
})

describe('consent', () => {
  test('the consent request carries every contract field', async () => {
    const { clientId, auth } = await startFlow('Shell helper')
    const res = await fetch(`${p.url}/v1/agent/consent-request/${auth.consentId}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      client_id: clientId,
      client_name: 'Shell helper',
      redirect_uri: LOOPBACK,
      scopes: ['domains:read'],
      state: 'xyz',
      redirect_host: '127.0.0.1:9',
      verified: false,
      verified_as: null,
      local: true,
      imitates: null,
      registration: 'dynamic',
      registered_at: expect.any(String),
      client_id_host: null,
    })
    expect((await fetch(`${p.url}/v1/agent/consent-request/unknown_id_0123456789`)).status).toBe(404)
  })

  test('approval issues an ES256 at+jwt for the MCP audience with the tenant, granted scopes, iss in the response, and a rotating refresh token', async () => {
    const { clientId, verifier, auth } = await startFlow('Token checker', LOOPBACK, 'domains:read domains:write')
    const done = await approveAs(p.url, auth, owner, LOOPBACK)
    const back = new URL(done.location!)
    expect(back.searchParams.get('iss')).toBe(p.url)
    expect(back.searchParams.get('state')).toBe('xyz')
    // The consent request is answered: its id no longer reads.
    expect((await fetch(`${p.url}/v1/agent/consent-request/${auth.consentId}`)).status).toBe(404)
    const t = await token(p.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: verifier })
    expect(t.status).toBe(200)
    expect(header(t.body.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256' })
    expect(claims(t.body.access_token)).toMatchObject({ aud: `${p.url}/mcp`, iss: p.url, tenant_id: ws.tenantId, client_id: clientId, scope: 'domains:read domains:write' })
    expect(t.body.expires_in).toBeLessThanOrEqual(600)
    const refreshed = await token(p.url, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: clientId })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.refresh_token).not.toBe(t.body.refresh_token)
    // The rotated token lasts until its successor's first use (the reuse grace); then it is dead.
    const next = await token(p.url, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: clientId })
    expect(next.status).toBe(200)
    const reused = await token(p.url, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: clientId })
    expect(reused.status).toBe(400)
  })

  test('the person signs in as themselves by a link mailed to them, then approves only the scopes left checked', async () => {
    const { clientId, verifier, auth } = await startFlow('Two-step agent', LOOPBACK, 'domains:read domains:write domains:disconnect')
    const first = await (await fetch(p.url + auth.consentPath)).text()
    expect(first).toContain('type="email"')
    expect(first).not.toContain('api_key')
    const before = mailbox(p.url).length
    // An address that is no member's gets the same answer, and no mail.
    const stranger = await answer(p.url, auth, { action: 'email', email: 'nobody@example.org' }, LOOPBACK)
    expect(stranger.status).toBe(200)
    expect(stranger.page).toContain('id="sent"')
    await mailSettled()
    expect(mailbox(p.url).length).toBe(before)
    const asked = await answer(p.url, auth, { action: 'email', email: owner.toUpperCase() }, LOOPBACK)
    expect(asked.page).toContain('id="sent"')
    await mailSettled()
    const mail = mailbox(p.url).at(-1)!
    expect(mail).toMatchObject({ tenantId: ws.tenantId, to: owner })
    // The client's name is outside text: never part of Portico's mail (DESIGN.md), only what the link is for.
    expect(mail.text).not.toContain('Two-step agent')
    expect(mail.text).toContain('an agent\'s request for access')
    const link = await linkIn(p.url, owner)
    // The link's page names whom it signs in; opening it (GET) signs nobody in, Continue (POST) does, once.
    const landing = await (await fetch(link)).text()
    expect(landing).toContain(owner)
    expect(landing).toContain(ws.tenantId ? 'Workspace' : '')
    const used = await openSignInLink(link, auth.jar)
    expect(used.status).toBe(303)
    expect(used.headers.get('location')).toBe(auth.consentPath)
    expect(used.headers.get('set-cookie')).toMatch(/^portico_person=[\w-]+; Path=\/oauth; HttpOnly; SameSite=Lax/)
    expect((await fetch(link, { method: 'POST', redirect: 'manual' })).status).toBe(404)
    const signed = await (await fetch(p.url + auth.consentPath, { headers: { cookie: auth.jar.header() } })).text()
    expect(signed).toContain('id="workspace"')
    expect(signed).toContain(owner)
    const csrf = /name="csrf" value="([^"]+)"/.exec(signed)![1]!
    // A forged CSRF token, or no session at all, is refused; so is approving nothing.
    const forged = await answer(p.url, auth, {}, LOOPBACK, new URLSearchParams({ csrf: csrf.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), scopes_shown: '1', scope: 'domains:read', action: 'approve' }))
    expect(forged.status).toBe(403)
    const anonymous = await fetch(p.url + auth.consentPath, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, scope: 'domains:read', action: 'approve' }).toString() })
    expect(anonymous.status).toBe(401)
    const none = await answer(p.url, auth, { csrf, scopes_shown: '1', action: 'approve' }, LOOPBACK)
    expect(none.status).toBe(400)
    const form = new URLSearchParams({ csrf, scopes_shown: '1', action: 'approve' })
    form.append('scope', 'domains:read')
    form.append('scope', 'domains:write')
    const done = await answer(p.url, auth, {}, LOOPBACK, form)
    expect({ status: done.status, error: /id="error"[^>]*>([^<]*)/.exec(done.page)?.[1] }).toEqual({ status: 303, error: undefined })
    expect(done.location).toStartWith(LOOPBACK)
    const t = await token(p.url, { grant_type: 'authorization_code', code: new URL(done.location!).searchParams.get('code')!, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: verifier })
    expect(claims(t.body.access_token).scope).toBe('domains:read domains:write')
    const [member] = await p.db`select id from members where tenant_id = ${ws.tenantId} and email = ${owner}`
    const [grant] = await p.db`select account_id, approved_member_id from agent_grants where client_id = ${clientId}`
    expect(grant).toEqual({ account_id: member!.id, approved_member_id: member!.id })
  })

  test('an expired link signs nobody in; sign-out ends the session', async () => {
    const { auth } = await startFlow('Slow agent')
    await answer(p.url, auth, { action: 'email', email: owner }, LOOPBACK)
    const link = await linkIn(p.url, owner)
    p.clock.advance(16 * 60_000)
    try {
      expect((await fetch(link)).status).toBe(404)
      expect((await fetch(link, { method: 'POST', redirect: 'manual' })).status).toBe(404)
    } finally {
      p.clock.advance(-16 * 60_000)
    }
    await answer(p.url, auth, { action: 'email', email: owner }, LOOPBACK)
    const jar = new CookieJar()
    await openSignInLink(await linkIn(p.url, owner), jar)
    expect(await (await fetch(`${p.url}/oauth/agents`, { headers: { cookie: jar.header() } })).text()).toContain('signed in as')
    const out = await fetch(`${p.url}/oauth/signout`, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: 'next=/oauth/agents' })
    expect(out.status).toBe(303)
    const after = await fetch(`${p.url}/oauth/agents`, { headers: { cookie: jar.header() } })
    expect(await after.text()).not.toContain('signed in as')
  })

  test('the code needs the PKCE verifier', async () => {
    const { clientId, auth } = await startFlow('PKCE checker')
    const done = await approveAs(p.url, auth, owner, LOOPBACK)
    const code = new URL(done.location!).searchParams.get('code')!
    const t = await token(p.url, { grant_type: 'authorization_code', code, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: pkce().verifier })
    expect(t.status).toBe(400)
    expect(t.body.error).toBe('invalid_grant')
  })

  test('a request without scope asks for reading and writing, never disconnecting', async () => {
    const { clientId, verifier, auth } = await startFlow('No scope agent', LOOPBACK, null)
    const request = await (await fetch(`${p.url}/v1/agent/consent-request/${auth.consentId}`)).json()
    expect(request.scopes).toEqual(['domains:read', 'domains:write'])
    const done = await approveAs(p.url, auth, owner, LOOPBACK)
    const code = new URL(done.location!).searchParams.get('code')
    expect(code).toBeTruthy()
    const t = await token(p.url, { grant_type: 'authorization_code', code: code!, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: verifier })
    expect(claims(t.body.access_token).scope).toBe('domains:read domains:write')
  })

  test('deny sends the person back with access_denied', async () => {
    const { auth } = await startFlow('Denied agent')
    const done = await answer(p.url, auth, { action: 'deny' }, LOOPBACK)
    expect(new URL(done.location!).searchParams.get('error')).toBe('access_denied')
  })

  test('an API key is never a way in, and a role that cannot grant a scope is refused on the page', async () => {
    const { auth } = await startFlow('Writer agent', LOOPBACK, 'domains:write')
    const key = await answer(p.url, auth, { api_key: ws.apiKey, action: 'approve' }, LOOPBACK)
    expect(key.status).toBe(400)
    expect(key.page).toContain('API keys are not accepted here')
    const invite = await p.api('POST', '/v1/members', { token: ws.apiKey, body: { email: 'viewer-person@example.com', role: 'viewer' } })
    expect((await p.api('POST', '/v1/members:accept', { body: { invite_token: invite.body.invite_token } })).status).toBe(200)
    const pageHtml = await (async () => {
      await answer(p.url, auth, { action: 'email', email: 'viewer-person@example.com' }, LOOPBACK)
      await openSignInLink(await linkIn(p.url, 'viewer-person@example.com'), auth.jar)
      return (await fetch(p.url + auth.consentPath, { headers: { cookie: auth.jar.header() } })).text()
    })()
    expect(pageHtml).toContain('your viewer role cannot grant this')
    const csrf = /name="csrf" value="([^"]+)"/.exec(pageHtml)![1]!
    const viewer = await answer(p.url, auth, { csrf, scopes_shown: '1', scope: 'domains:write', action: 'approve' }, LOOPBACK)
    expect(viewer.status).toBe(403)
    expect(viewer.page).toContain('cannot grant: domains:write')
  })

  test('a client imitating a brand cannot be approved, even by a forged POST', async () => {
    // A client registered before its name's brand was listed: the consent step judges it again.
    const id = 'agc_imitator_0123456789'
    const redirect = 'https://stripe-payments.example/cb'
    const meta = { client_id: id, client_name: 'Stripe Payments', redirect_uris: [redirect], application_type: 'web', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
    await p.db`insert into oauth_store (model, id, payload) values ('Client', ${id}, ${meta}::jsonb)`
    await p.db`insert into agent_clients (client_id, client_name, redirect_uris, created_at) values (${id}, 'Stripe Payments', ${[redirect]}::text[], now())`
    const auth = await authorize(p.url, { client_id: id, redirect_uri: redirect, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:read' })
    const request = await (await fetch(`${p.url}/v1/agent/consent-request/${auth.consentId}`)).json()
    expect(request.imitates).toBe('Stripe')
    const page = await (await fetch(p.url + auth.consentPath)).text()
    expect(page).not.toContain('value="approve"')
    const forged = await answer(p.url, auth, { action: 'approve' }, redirect)
    expect(forged.status).toBe(403)
    expect(page).not.toContain('type="email"')
    expect(await p.db`select 1 from agent_grants where client_id = ${id}`).toHaveLength(0)
  })
})

describe('cleanup', () => {
  test('deletes clients nobody approved after 24 hours, keeps approved ones', async () => {
    const stale = await registerClient(p.url, { client_name: 'Forgotten agent', redirect_uris: [LOOPBACK] })
    const { clientId: approved } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Kept agent')
    const later = new MovableClock()
    later.advance(DAY + 60_000)
    const out = await cleanupAgentClients(p.db, later)
    expect(out.clients).toBeGreaterThanOrEqual(1)
    expect(await p.db`select 1 from agent_clients where client_id = ${stale.body.client_id}`).toHaveLength(0)
    expect(await p.db`select 1 from oauth_store where model = 'Client' and id = ${stale.body.client_id}`).toHaveLength(0)
    expect(await p.db`select 1 from agent_clients where client_id = ${approved}`).toHaveLength(1)
  })
})
