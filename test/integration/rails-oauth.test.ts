// The provider OAuth rail end to end against the DigitalOcean fake (authorization server and API):
// start answers an authorization URL with a signed state and PKCE; the callback exchanges the code,
// keeps the grant encrypted and writes the records; a forged, reused or expired state is refused; a
// grant revoked at the provider flags the connection for re-consent (`connection.reapply.failed`).
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { startDigitalOceanFake } from '../../src/adapters/dns-providers/digitalocean/stand-in.ts'
import { startVercelFake } from '../../src/adapters/dns-providers/vercel/stand-in.ts'
import { startGoogleDnsFake } from '../../src/adapters/dns-providers/google-cloud-dns/stand-in.ts'
import { startAzureFake } from '../../src/adapters/dns-providers/azure/stand-in.ts'
import type { ProviderOAuthFake } from '../harness/provider-fakes/oauth.ts'

const EDGE = 'edge.portico.test'
let pdns: Pdns
let p: TestPortico
let ws: Workspace
let dop: ReturnType<typeof startDigitalOceanFake>
let vercel: ReturnType<typeof startVercelFake>
let google: ReturnType<typeof startGoogleDnsFake>
let azure: ReturnType<typeof startAzureFake>
let seq = 0

beforeAll(async () => {
  pdns = await startPdns()
  dop = startDigitalOceanFake()
  vercel = startVercelFake()
  google = startGoogleDnsFake()
  azure = startAzureFake()
  p = await startPortico({
    DNS_RESOLVERS: pdns.dnsAddress,
    EDGE_CNAME_TARGET: EDGE,
    DNS_PROVIDER_API_BASES: `digitalocean=${dop.url}/v2,vercel=${vercel.url},google-cloud-dns=${google.url},azure=${azure.url}`,
    DIGITALOCEAN_OAUTH_CLIENT_ID: dop.oauth.clientId,
    DIGITALOCEAN_OAUTH_CLIENT_SECRET: dop.oauth.clientSecret,
    DIGITALOCEAN_OAUTH_BASE: dop.url,
    VERCEL_OAUTH_CLIENT_ID: vercel.oauth.clientId,
    VERCEL_OAUTH_CLIENT_SECRET: vercel.oauth.clientSecret,
    VERCEL_OAUTH_BASE: vercel.url,
    GOOGLE_CLOUD_DNS_OAUTH_CLIENT_ID: google.oauth.clientId,
    GOOGLE_CLOUD_DNS_OAUTH_CLIENT_SECRET: google.oauth.clientSecret,
    GOOGLE_CLOUD_DNS_OAUTH_BASE: google.url,
    AZURE_OAUTH_CLIENT_ID: azure.oauth.clientId,
    AZURE_OAUTH_CLIENT_SECRET: azure.oauth.clientSecret,
    AZURE_OAUTH_BASE: azure.url,
  })
  ws = await provision(p)
})
afterAll(async () => {
  await p?.close()
  for (const f of [dop, vercel, google, azure]) f?.stop()
})

async function doDomain() {
  const zone = `oa${Date.now().toString(36)}${++seq}.test`
  await pdns.createZone(zone, { nameservers: ['ns1.digitalocean.com.', 'ns2.digitalocean.com.'] })
  dop.addZone(zone)
  const domain = `shop.${zone}`
  const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })).body
  return { zone, domain, id: c.id as string }
}
const callback = (q: Record<string, string>) => p.api('GET', `/v1/connect/oauth/callback?${new URLSearchParams(q)}`)
const events = async (id: string) => (await p.db`select type, payload from events where connection_id = ${id} order by id`) as { type: string; payload: any }[]

describe('provider OAuth', () => {
  test('sign in, callback writes the records with the kept grant; the state works once', async () => {
    const { zone, domain, id } = await doDomain()
    const check = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain } })
    expect(check.body.rails.oauth).toEqual({ available: true })
    expect(check.body.recommended_rail).toBe('oauth')

    const token = await widgetToken(p, ws, { domain })
    const start = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token, body: {} })
    expect(start.status).toBe(200)
    const url = new URL(start.body.authorize_url)
    expect(url.origin + url.pathname).toBe(`${dop.url}/v1/oauth/authorize`)
    expect(url.searchParams.get('redirect_uri')).toBe('http://portico.test/v1/connect/oauth/callback')
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    const state = url.searchParams.get('state')!

    const forged = await callback({ state: state.slice(0, -2) + 'xx', code: 'whatever' })
    expect(forged.status).toBe(400)
    expect(forged.body.details.reason).toBe('invalid_state')

    const code = dop.oauth.approve(start.body.authorize_url)
    const done = await callback({ state, code })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ connection_id: id, domain, changed: true, status: 'propagating' })
    expect(dop.zones.find((z) => z.name === zone)!.records).toContainEqual(expect.objectContaining({ type: 'CNAME', name: 'shop', data: EDGE }))
    const conn = (await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).body
    expect(conn).toMatchObject({ rail: 'oauth', managed: true })
    const applied = (await events(id)).find((e) => e.type === 'connection.applied')!
    expect(applied.payload.data.via).toBe('automatic')

    const account = (await p.api('GET', `/v1/provider-accounts/${done.body.account_id}`, { token: ws.apiKey })).body
    expect(account).toMatchObject({ kind: 'oauth', provider: 'digitalocean', access: 'continuous', credential_held: true, domains: [domain] })
    const sealed = (await p.db`select credential_sealed from provider_accounts where id = ${done.body.account_id}`)[0].credential_sealed as string
    expect(sealed).not.toContain(dop.oauth.issued.at(-1)!)

    const reused = await callback({ state, code })
    expect(reused.status).toBe(400)
    expect(reused.body.details.reason).toBe('state_used')

    // The grant is revoked at the provider: a re-apply flags the connection for re-consent.
    dop.oauth.revoke(dop.oauth.issued.at(-1)!)
    const re = await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })
    expect(re.status).toBe(422)
    expect(re.body.code).toBe('ProviderAuthenticationError')
    const failed = (await events(id)).find((e) => e.type === 'connection.reapply.failed')!
    expect(failed.payload.data).toMatchObject({ reason: 'reauthorization_required', provider: 'digitalocean' })
    // Removing it now needs re-authorization, with the removal plan.
    const del = await p.api('DELETE', `/v1/connections/${id}`, { token: ws.apiKey })
    expect(del.status).toBe(409)
    expect(del.body.plan).toMatchObject({ connected_via: 'oauth', reauthorize: { flow: 'oauth' } })
  })

  test('an expired state is refused; return_url gets a redirect; a refusal records access_denied', async () => {
    const { id } = await doDomain()
    const s1 = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: { return_url: 'https://app.example.com/done' } })
    const state1 = new URL(s1.body.authorize_url).searchParams.get('state')!
    const code1 = dop.oauth.approve(s1.body.authorize_url)
    p.clock.advance(11 * 60_000)
    const late = await callback({ state: state1, code: code1 })
    expect(late.status).toBe(400)
    expect(late.body.details.reason).toBe('state_expired')

    const s2 = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: { return_url: 'https://app.example.com/done' } })
    const denied = await callback({ state: new URL(s2.body.authorize_url).searchParams.get('state')!, error: 'access_denied' })
    expect(denied.status).toBe(400)
    expect((await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).body.error_code).toBe('access_denied')

    const s3 = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: { return_url: 'https://app.example.com/done' } })
    const ok = await callback({ state: new URL(s3.body.authorize_url).searchParams.get('state')!, code: dop.oauth.approve(s3.body.authorize_url) })
    expect(ok.status).toBe(302)
    expect(ok.headers.get('location')).toBe(`https://app.example.com/done?connection_id=${id}&status=connected`)
  })

  test('an expired access token is renewed with the refresh token before a re-apply', async () => {
    const { zone, id } = await doDomain()
    const start = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: {} })
    const state = new URL(start.body.authorize_url).searchParams.get('state')!
    expect((await callback({ state, code: dop.oauth.approve(start.body.authorize_url) })).status).toBe(200)
    const first = dop.oauth.issued.at(-1)!
    // Thirty days on the token has expired: the provider no longer takes it.
    p.clock.advance(30 * 24 * 3_600_000)
    dop.oauth.revoke(first)
    await dop.zones.find((z) => z.name === zone)!.records.splice(0)
    const re = await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })
    expect(re.status).toBe(200)
    expect(re.body.changed).toBe(true)
    expect(dop.oauth.issued.at(-1)).not.toBe(first)
    expect(dop.zones.find((z) => z.name === zone)!.records).toContainEqual(expect.objectContaining({ type: 'CNAME', name: 'shop' }))
  })

  test('a provider without a configured OAuth client is refused at start', async () => {
    const zone = `oa${Date.now().toString(36)}${++seq}.test`
    await pdns.createZone(zone)
    const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body
    const r = await p.api('POST', `/v1/connections/${c.id}/oauth:start`, { token: ws.apiKey, body: {} })
    expect(r.status).toBe(400)
    expect(r.body.details.reason).toBe('oauth_not_available')
  })
})

/** The records each stand-in holds at `name`, as (type, value) pairs in the provider's own words. */
const OAUTH_CASES: {
  id: string
  fake: () => { oauth: ProviderOAuthFake; addZone(name: string): unknown; zones: { name: string; records: any[] }[] }
  nameservers: string[]
  /** The CNAME Portico wrote for `shop`, found in the stand-in's zone. */
  wrote(records: any[]): boolean
  authorize: Record<string, string>
  /** What the provider adds to the redirect besides code and state. */
  redirect: Record<string, string>
  rotates: boolean
}[] = [
  {
    id: 'vercel',
    fake: () => vercel,
    nameservers: ['ns1.vercel-dns.com.', 'ns2.vercel-dns.com.'],
    wrote: (rs) => rs.some((r) => r.type === 'CNAME' && r.name === 'shop' && r.value === EDGE),
    authorize: { scope: 'openid offline_access' },
    redirect: { configurationId: 'icfg_1', teamId: 'team_acme', next: 'https://vercel.com/acme/~/integrations' },
    rotates: true,
  },
  {
    id: 'google-cloud-dns',
    fake: () => google,
    nameservers: ['ns-cloud-a1.googledomains.com.', 'ns-cloud-a2.googledomains.com.'],
    wrote: (rs) => rs.some((r) => r.type === 'CNAME' && r.name.startsWith('shop.') && r.rrdatas.includes(`${EDGE}.`)),
    authorize: { access_type: 'offline', prompt: 'consent', scope: 'https://www.googleapis.com/auth/ndev.clouddns.readwrite https://www.googleapis.com/auth/cloudplatformprojects.readonly' },
    redirect: { scope: 'https://www.googleapis.com/auth/ndev.clouddns.readwrite https://www.googleapis.com/auth/cloudplatformprojects.readonly', authuser: '0', prompt: 'consent' },
    rotates: false,
  },
  {
    id: 'azure',
    fake: () => azure,
    nameservers: ['ns1-01.azure-dns.com.', 'ns2-01.azure-dns.net.'],
    wrote: (rs) => rs.some((r) => r.type === 'CNAME' && r.name === 'shop' && r.properties.CNAMERecord?.cname === EDGE),
    authorize: { scope: 'https://management.azure.com/user_impersonation offline_access' },
    redirect: { session_state: '3f1a7b2c-0000-4000-8000-000000000000' },
    rotates: true,
  },
]

describe('OAuth rails of Vercel, Google Cloud DNS and Azure DNS', () => {
  for (const c of OAUTH_CASES) {
    test(`${c.id}: sign in, records written with the person's grant; an hour later the token is renewed${c.rotates ? ' (the refresh token rotates)' : ''} and a re-apply works; a revoked grant asks for re-consent`, async () => {
      const f = c.fake()
      const zone = `oa${Date.now().toString(36)}${++seq}.test`
      await pdns.createZone(zone, { nameservers: c.nameservers })
      f.addZone(zone)
      const domain = `shop.${zone}`
      const id = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })).body.id as string
      const check = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain } })
      expect(check.body.provider?.id ?? check.body.provider).toBe(c.id)
      expect(check.body.rails.oauth).toEqual({ available: true })

      const start = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: {} })
      expect(start.status).toBe(200)
      const code = f.oauth.approve(start.body.authorize_url)
      const asked = f.oauth.requests.at(-1)!
      for (const [k, v] of Object.entries(c.authorize)) expect({ [k]: asked.searchParams.get(k) }).toEqual({ [k]: v })
      // The redirect carries the provider's own parameters besides code and state.
      const done = await callback({ state: asked.searchParams.get('state')!, code, ...c.redirect })
      expect(done.status).toBe(200)
      expect(done.body).toMatchObject({ connection_id: id, domain, changed: true })
      const records = () => f.zones.find((z) => z.name === zone)!.records
      expect(c.wrote(records())).toBe(true)

      // An hour on, the access token has expired: the provider refuses it, Portico renews it first.
      const first = f.oauth.issued.at(-1)!
      f.oauth.revoke(first)
      p.clock.advance(61 * 60_000)
      records().splice(0)
      const re = await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })
      expect(re.status).toBe(200)
      expect(c.wrote(records())).toBe(true)
      const renewal = f.oauth.tokenRequests.at(-1)!
      expect(renewal.get('grant_type')).toBe('refresh_token')
      expect(f.oauth.issued.at(-1)).not.toBe(first)

      // The person removes the app at the provider: the next renewal is refused, and the connection asks for re-consent.
      f.oauth.revokeRefresh()
      f.oauth.revoke(f.oauth.issued.at(-1)!)
      p.clock.advance(61 * 60_000)
      const refused = await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })
      expect(refused.status).toBe(422)
      expect(refused.body.code).toBe('ProviderAuthenticationError')
      expect(refused.body.details).toMatchObject({ provider: c.id, reason: 'oauth_grant_revoked' })
      const failed = (await events(id)).find((e) => e.type === 'connection.reapply.failed')!
      expect(failed.payload.data).toMatchObject({ reason: 'reauthorization_required', provider: c.id })
      // Removing it now needs the person again: 409 with the removal plan, nothing removed.
      const del = await p.api('DELETE', `/v1/connections/${id}`, { token: ws.apiKey })
      expect(del.status).toBe(409)
      expect(del.body).toMatchObject({ code: 'reauthorization_required', plan: { connected_via: 'oauth' } })
      expect(c.wrote(records())).toBe(true)
    })
  }

  test('the monitor\'s repair finds a grant the provider will not renew: not repaired, the account asks for re-consent', async () => {
    const zone = `oa${Date.now().toString(36)}${++seq}.test`
    await pdns.createZone(zone, { nameservers: ['ns-cloud-a1.googledomains.com.', 'ns-cloud-a2.googledomains.com.'] })
    google.addZone(zone)
    const id = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body.id as string
    const start = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: {} })
    const code = google.oauth.approve(start.body.authorize_url)
    const done = await callback({ state: google.oauth.requests.at(-1)!.searchParams.get('state')!, code })
    expect(done.status).toBe(200)
    google.oauth.revokeRefresh()
    google.oauth.revoke(google.oauth.issued.at(-1)!)
    p.clock.advance(61 * 60_000)
    const [row] = await p.db`select * from connections where id = ${id}`
    const outcome = await p.services.monitorRepair!.repair(row as never, [])
    expect(outcome).toMatchObject({ fixed: false, detail: expect.stringContaining('re-authorize') })
    const account = await p.api('GET', `/v1/provider-accounts/${done.body.account_id}`, { token: ws.apiKey })
    expect(account.body.status).toBe('needs_reconnect')
    expect((await events(id)).map((e) => e.type)).toContain('connection.reapply.failed')
  })

  test('a refused OAuth client or an unreachable token endpoint is not the person\'s to fix: no re-consent is asked', async () => {
    const zone = `oa${Date.now().toString(36)}${++seq}.test`
    await pdns.createZone(zone, { nameservers: ['ns1.vercel-dns.com.', 'ns2.vercel-dns.com.'] })
    vercel.addZone(zone)
    const id = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body.id as string
    const start = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: {} })
    const done = await callback({ state: new URL(start.body.authorize_url).searchParams.get('state')!, code: vercel.oauth.approve(start.body.authorize_url) })
    expect(done.status).toBe(200)
    vercel.oauth.revoke(vercel.oauth.issued.at(-1)!)
    p.clock.advance(61 * 60_000)
    // The operator rotated the client secret at Vercel but not in Portico's settings.
    const secret = vercel.oauth.clientSecret
    vercel.oauth.clientSecret = 'rotated-' + secret
    const refused = await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })
    expect(refused.status).toBe(503)
    expect(refused.body.details).toMatchObject({ reason: 'oauth_client_refused' })
    vercel.oauth.clientSecret = secret
    expect((await events(id)).map((e) => e.type)).not.toContain('connection.reapply.failed')
    const account = await p.api('GET', `/v1/provider-accounts/${done.body.account_id}`, { token: ws.apiKey })
    expect(account.body.status).not.toBe('needs_reconnect')
    // With the client right again, the same grant renews and works.
    expect((await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })).status).toBe(200)
  })

  test('two re-applies at once spend a rotating refresh token once, and both succeed', async () => {
    const zone = `oa${Date.now().toString(36)}${++seq}.test`
    await pdns.createZone(zone, { nameservers: ['ns1-01.azure-dns.com.', 'ns2-01.azure-dns.net.'] })
    azure.addZone(zone)
    const id = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body.id as string
    const start = await p.api('POST', `/v1/connections/${id}/oauth:start`, { token: ws.apiKey, body: {} })
    const code = azure.oauth.approve(start.body.authorize_url)
    expect((await callback({ state: azure.oauth.requests.at(-1)!.searchParams.get('state')!, code })).status).toBe(200)
    azure.oauth.revoke(azure.oauth.issued.at(-1)!)
    p.clock.advance(61 * 60_000)
    const before = azure.oauth.tokenRequests.filter((r) => r.get('grant_type') === 'refresh_token').length
    const [a, b] = await Promise.all([1, 2].map(() => p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })))
    expect([a!.status, b!.status].filter((s) => s === 422)).toEqual([])
    expect(azure.oauth.tokenRequests.filter((r) => r.get('grant_type') === 'refresh_token').length - before).toBe(1)
  })

  test('an OAuth rail is offered only where its client is configured', async () => {
    const bare = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
    try {
      const team = await provision(bare)
      const zone = `oa${Date.now().toString(36)}${++seq}.test`
      await pdns.createZone(zone, { nameservers: ['ns1.vercel-dns.com.', 'ns2.vercel-dns.com.'] })
      const check = await bare.api('POST', '/v1/domains:check', { token: team.apiKey, body: { domain: `shop.${zone}` } })
      expect(check.body.rails.oauth.available).toBe(false)
      const providers = (await bare.api('GET', '/v1/providers')).body.providers as { id: string; built: { oauth: boolean } }[]
      // The catalog says what Portico has built; the check says what this deployment offers.
      expect(providers.find((x) => x.id === 'vercel')!.built.oauth).toBe(true)
    } finally {
      await bare.close()
    }
  })
})
