// Domain Connect end to end: Portico against a Domain Connect DNS Provider running on loopback
// (test/harness/dc-provider.ts) that writes into a real PowerDNS, which Portico resolves through.
// The signing public key is published in DNS exactly as GET /templates tells an integrator to.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { existsSync, mkdtempSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { startDcProvider, type DcProvider } from '../harness/dc-provider.ts'
import { provision, startPortico, widgetToken, testConfig, type TestPortico, type Workspace } from '../harness/portico.ts'
import { publicKeyFromTxt, splitSignedQuery, verifyApplyQuery } from '../../src/domain/domain-connect/signing.ts'
import { setLogLevel } from '../../src/logger.ts'
import { discover } from '../../src/domain/domain-connect/discovery.ts'
import { cleanupSessions, domainConnectGrantOf, reapplyWithGrant, revertWithGrant, type GrantDeps } from '../../src/domain/domain-connect/async-api.ts'

const OWN_DIR = join(import.meta.dir, '../../templates')
const PUBLIC_DIR = join(import.meta.dir, '../fixtures/domain-connect/templates')
const EDGE = 'edge.portico.test'
const APEX_IPS = ['203.0.114.10', '203.0.114.11']
const CLIENT_SECRET = 'dc-client-secret-0123456789'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let provider: DcProvider
let syncOnly: DcProvider
let seq = 0
const fresh = () => `dc${Date.now().toString(36)}${++seq}.test`

async function widget(domain?: string) {
  return widgetToken(p, ws, domain ? { domain } : {})
}

async function connect(domain: string, token: string) {
  const r = await p.api('POST', '/v1/connections', { token, body: { domain } })
  expect(r.status).toBe(201)
  return r.body as { id: string; status: string }
}

async function rrset(zone: string, name: string, type: string) {
  return (await pdns.listRecords(zone)).filter((r) => r.name === `${name}.` && r.type === type).map((r) => r.content)
}

function browserPath(location: string) {
  const u = new URL(location)
  return u.pathname + u.search
}

/** A connection set up through the async (managed) rail at the loopback provider, its record in PowerDNS. */
async function managedConnection(label: string): Promise<{ zone: string; c: { id: string } }> {
  const zone = fresh()
  await pdns.createZone(zone)
  await provider.serve(zone)
  const token = await widget(`${label}.${zone}`)
  const c = await connect(`${label}.${zone}`, token)
  const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { rail: 'async' } })
  const approved = await fetch(start.body.consent_url, { redirect: 'manual' })
  expect((await p.api('GET', browserPath(approved.headers.get('location')!))).body.applied).toBe(true)
  expect(await rrset(zone, `${label}.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
  return { zone, c }
}

beforeAll(async () => {
  pdns = await startPdns()
  provider = await startDcProvider({ pdns, templatesDir: OWN_DIR, async: true, clients: { 'portico.io': CLIENT_SECRET } })
  syncOnly = await startDcProvider({ pdns, templatesDir: OWN_DIR, providerId: 'synconly.test', providerName: 'Sync Only DNS' })
  p = await startPortico({
    DNS_RESOLVERS: pdns.dnsAddress,
    EDGE_CNAME_TARGET: EDGE,
    EDGE_APEX_IPV4: APEX_IPS.join(','),
    WEBHOOK_ALLOW_LOOPBACK: '1',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'portico-dc-data-')),
    DOMAIN_CONNECT_ASYNC_CLIENTS: JSON.stringify({ [provider.providerId]: { client_id: 'portico.io', client_secret: CLIENT_SECRET, url_api: provider.url } }),
  })
  ws = await provision(p)
  // The integrator publishes its signing key where GET /templates says.
  const cat = await p.api('GET', '/v1/templates')
  try {
    await pdns.createZone('portico.io')
  } catch {
    // already served by an earlier file of this process
  }
  for (const at of cat.body.signing.publish_at as string[]) await pdns.setRecords(at, 'TXT', (cat.body.signing.txt as string[]).map((t) => `"${t}"`))
})

afterAll(async () => {
  await provider?.stop()
  await syncOnly?.stop()
  await p?.close()
})

describe('GET /templates', () => {
  test('serves the loaded set with variables, groups and the key to publish', async () => {
    const r = await p.api('GET', '/v1/templates')
    expect(r.status).toBe(200)
    expect(r.body.rejected).toEqual([])
    const ids = r.body.templates.map((t: { service_id: string }) => t.service_id).sort()
    expect(ids).toEqual(['connect', 'connect-apex', 'connect-apex-alias', 'www'])
    const apex = r.body.templates.find((t: { service_id: string }) => t.service_id === 'connect-apex')
    expect(apex).toMatchObject({ provider_id: 'portico.io', signed: true, sync_pub_key_domain: 'portico.io', host_required: false })
    expect(apex.variables).toEqual(['ip1', 'token', 'ip2', 'ip3', 'ip4', 'target'])
    expect(apex.groups).toEqual(['core', 'ip2', 'ip3', 'ip4', 'www'])
    expect(r.body.signing).toMatchObject({ key: '_dck1', algorithm: 'RS256', publish_at: ['_dck1.portico.io'] })
    expect(publicKeyFromTxt(r.body.signing.txt)).not.toBeNull()
  })

  test('the 60 published templates load from their directory, none rejected', async () => {
    const other = await startPortico({ DOMAIN_CONNECT_TEMPLATES_DIR: PUBLIC_DIR, DATA_DIR: mkdtempSync(join(tmpdir(), 'portico-dc-data-')) })
    try {
      const r = await other.api('GET', '/v1/templates')
      expect(r.body.count).toBe(60)
      expect(r.body.rejected).toEqual([])
    } finally {
      await other.close()
    }
  })

  test('a file that fails validation is reported by name, the others are served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-dc-templates-'))
    copyFileSync(join(OWN_DIR, 'portico.io.connect.json'), join(dir, 'portico.io.connect.json'))
    writeFileSync(join(dir, 'broken.json'), JSON.stringify({ providerId: 'x.test', providerName: 'X', serviceId: 's', serviceName: 'S', records: [{ type: 'MX', host: '@', pointsTo: 'mx.test', ttl: 60 }] }))
    writeFileSync(join(dir, 'not-json.json'), '{"providerId": ')
    writeFileSync(join(dir, 'notes.txt'), 'not a template')
    // What start logs goes to stderr at level error: capture it.
    const logged: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string | Uint8Array) => (logged.push(String(chunk)), true)) as typeof process.stderr.write
    let other: TestPortico
    try {
      other = await startPortico({ DOMAIN_CONNECT_TEMPLATES_DIR: dir, DATA_DIR: mkdtempSync(join(tmpdir(), 'portico-dc-data-')), LOG_LEVEL: 'error' })
    } finally {
      process.stderr.write = write
      setLogLevel('silent')
    }
    const rejectedAtStart = logged.map((l) => JSON.parse(l)).filter((l) => l.msg === 'domain_connect.template_rejected')
    expect(rejectedAtStart.map((l) => l.file)).toEqual(['broken.json', 'not-json.json'])
    try {
      const r = await other.api('GET', '/v1/templates')
      expect(r.body.count).toBe(1)
      expect(r.body.rejected.map((f: { file: string }) => f.file)).toEqual(['broken.json', 'not-json.json'])
      expect(r.body.rejected[0].errors.join(' ')).toContain('missing required field "priority"')
      expect(r.body.ignored).toEqual(['notes.txt'])
    } finally {
      await other.close()
    }
  })

  test('a templates directory that does not exist stops the start with the setting named', () => {
    expect(() => testConfig({ DOMAIN_CONNECT_TEMPLATES_DIR: '/nonexistent/templates' })).toThrow(/DOMAIN_CONNECT_TEMPLATES_DIR/)
    expect(() => testConfig({ DOMAIN_CONNECT_PRIVATE_KEY: 'not a key' })).toThrow(/DOMAIN_CONNECT_PRIVATE_KEY/)
    expect(() => testConfig({ DOMAIN_CONNECT_ASYNC_CLIENTS: '{"x": {"client_id": "a"}}' })).toThrow(/DOMAIN_CONNECT_ASYNC_CLIENTS/)
    expect(() => testConfig({ DOMAIN_CONNECT_ASYNC_CLIENTS: '{"x": {"client_id": "a", "client_secret": "b", "url_api": "http://api.dns.example"}}' })).toThrow(/url_api/)
    expect(() => testConfig({ DOMAIN_CONNECT_KEY_HOST: 'bad key' })).toThrow(/DOMAIN_CONNECT_KEY_HOST/)
    expect(() => testConfig({ DOMAIN_CONNECT_KEY_HOST: '_dck1.keys' })).toThrow(/DOMAIN_CONNECT_KEY_HOST/)
    expect(testConfig({ DOMAIN_CONNECT_KEY_HOST: '_DCK2' }).domainConnect.keyHost).toBe('_dck2')
  })
})

describe('POST /templates/{serviceId}/apply-url', () => {
  test('a signed URL whose signature verifies with the key published in DNS', async () => {
    const r = await p.api('POST', '/v1/templates/connect/apply-url', {
      token: ws.apiKey,
      body: { domain: 'shop.example.com', provider_base: provider.url, params: { target: EDGE }, redirect_uri: 'https://app.portico.io/done', state: 's1' },
    })
    expect(r.status).toBe(200)
    expect(r.body.signed).toBe(true)
    const url = new URL(r.body.apply_url)
    expect(url.origin + url.pathname).toBe(`${provider.url}/v2/domainTemplates/providers/portico.io/services/connect/apply`)
    expect(url.searchParams.get('domain')).toBe('example.com')
    expect(url.searchParams.get('host')).toBe('shop')
    expect(url.searchParams.get('key')).toBe('_dck1')
    const txt = await p.services.dns.lookup('_dck1.portico.io', 'TXT')
    const pub = publicKeyFromTxt(txt.status === 'ok' ? txt.values : [])
    expect(pub).not.toBeNull()
    const { signed, sig } = splitSignedQuery(url.search)
    expect(verifyApplyQuery(signed, sig!, pub!)).toBe(true)
    expect(verifyApplyQuery(signed.replace('target=', 'target=x'), sig!, pub!)).toBe(false)
  })

  test('in production without DOMAIN_CONNECT_PRIVATE_KEY, signed templates answer 503 and nothing is generated', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portico-dc-data-'))
    const prod = await startPortico({ APP_ENV: 'production', DATA_DIR: dataDir })
    try {
      expect(prod.config.domainConnect.privateKeyPem).toBeNull()
      expect(existsSync(join(dataDir, 'domain-connect.pem'))).toBe(false)
      expect((await prod.api('GET', '/v1/templates')).body.signing).toBeNull()
      const w = await provision(prod)
      const r = await prod.api('POST', '/v1/templates/connect/apply-url', { token: w.apiKey, body: { domain: 'shop.example.com', provider_base: provider.url, params: { target: EDGE } } })
      expect(r.status).toBe(503)
      expect(r.body.title).toContain('DOMAIN_CONNECT_PRIVATE_KEY')
    } finally {
      await prod.close()
    }
  })

  test('missing variables, unknown templates and foreign redirects are refused', async () => {
    const missing = await p.api('POST', '/v1/templates/connect/apply-url', { token: ws.apiKey, body: { domain: 'shop.example.com', provider_base: provider.url } })
    expect(missing.status).toBe(400)
    expect(missing.body.title).toContain('target')
    const unknown = await p.api('POST', '/v1/templates/nope/apply-url', { token: ws.apiKey, body: { domain: 'shop.example.com', provider_base: provider.url } })
    expect(unknown.status).toBe(404)
    const redirect = await p.api('POST', '/v1/templates/connect/apply-url', {
      token: ws.apiKey,
      body: { domain: 'shop.example.com', provider_base: provider.url, params: { target: EDGE }, redirect_uri: 'https://evil.example.net/' },
    })
    expect(redirect.status).toBe(400)
    const apexHost = await p.api('POST', '/v1/templates/connect/apply-url', { token: ws.apiKey, body: { domain: 'example.com', provider_base: provider.url, params: { target: EDGE } } })
    expect(apexHost.status).toBe(400)
    const none = await p.api('POST', '/v1/templates/connect/apply-url', { body: { domain: 'shop.example.com', provider_base: provider.url } })
    expect(none.status).toBe(401)
  })
})

describe('synchronous rail', () => {
  test('discovery, signed apply at the provider, records in PowerDNS, the connection goes live', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    await pdns.setRecords(`shop.${zone}`, 'A', ['198.51.100.7'])
    const token = await widget(`shop.${zone}`)

    const check = await p.api('POST', '/v1/domains:check', { token, body: { domain: `shop.${zone}` } })
    expect(check.body.rails.domainConnect).toEqual({ available: true })
    expect(check.body.domain_connect).toEqual({ provider_id: provider.providerId, provider_name: 'Loop DNS', sync: true, async: true })
    expect(check.body.domain_connect_provider).toBe(provider.host)

    const c = await connect(`shop.${zone}`, token)
    const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { redirect_uri: 'https://app.portico.io/done', state: 'st-1' } })
    expect(start.status).toBe(200)
    expect(start.body).toMatchObject({ rail: 'sync', managed: false, consent_url: null, service_id: 'connect', service_ids: ['connect'] })
    expect(start.body).toMatchObject({ dc_provider: provider.providerId, dc_provider_name: 'Loop DNS', dc_host: provider.host })

    // A tampered query (another target) is refused by the provider, and nothing is written.
    const tampered = start.body.apply_url.replace(`target=${EDGE}`, 'target=evil.example.net')
    expect(tampered).not.toBe(start.body.apply_url)
    const bad = await fetch(tampered, { redirect: 'manual' })
    expect(bad.status).toBe(403)
    expect(await bad.json()).toEqual({ error: 'signature does not verify' })
    const unsigned = await fetch(start.body.apply_url.replace(/&sig=[^&]*&key=[^&]*$/, ''), { redirect: 'manual' })
    expect(unsigned.status).toBe(403)
    expect(await rrset(zone, `shop.${zone}`, 'CNAME')).toEqual([])
    expect(await rrset(zone, `shop.${zone}`, 'A')).toEqual(['198.51.100.7'])

    // The end user's browser follows the apply URL; the provider applies and sends it back.
    const res = await fetch(start.body.apply_url, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('https://app.portico.io/done?state=st-1')
    expect(await rrset(zone, `shop.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    expect(await rrset(zone, `shop.${zone}`, 'A')).toEqual([])
    expect(provider.applied.at(-1)).toMatchObject({ rail: 'sync', serviceId: 'connect', domain: zone, host: 'shop' })

    const recheck = await p.api('POST', `/v1/connections/${c.id}:recheck`, { token })
    expect(recheck.body.status).toBe('live')
  })

  test('an apex connection applies the groups that match its records', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    const token = await widget(zone)
    const c = await connect(zone, token)
    const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { service_id: 'connect-apex', rail: 'sync' } })
    expect(start.status).toBe(200)
    expect(new URL(start.body.apply_url).searchParams.get('groupId')).toBe('core,ip2')
    const res = await fetch(start.body.apply_url, { redirect: 'manual' })
    expect(res.status).toBe(200)
    expect((await rrset(zone, zone, 'A')).sort()).toEqual(APEX_IPS)
    expect(await rrset(zone, `www.${zone}`, 'CNAME')).toEqual([])
    expect((await p.api('POST', `/v1/connections/${c.id}:recheck`, { token })).body.status).toBe('live')
  })
})

describe('asynchronous rail', () => {
  test('consent at the provider, token exchange, apply through its API: managed, applied, live', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    await pdns.setRecords(`_portico-challenge.${zone}`, 'TXT', ['"stale"'])
    const token = await widget(zone)
    const c = await connect(zone, token)
    const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { rail: 'async' } })
    expect(start.status).toBe(200)
    expect(start.body).toMatchObject({ rail: 'async', managed: true, apply_url: null, service_id: 'connect-apex', service_ids: ['connect-apex'] })
    const consent = new URL(start.body.consent_url)
    expect(consent.origin + consent.pathname).toBe(`${provider.url}/v2/domainTemplates/providers/portico.io`)
    expect(consent.searchParams.get('client_id')).toBe('portico.io')
    expect(consent.searchParams.get('redirect_uri')).toBe('http://portico.test/v1/connect/domainconnect/callback')

    const approved = await fetch(start.body.consent_url, { redirect: 'manual' })
    expect(approved.status).toBe(302)
    const back = browserPath(approved.headers.get('location')!)
    const cb = await p.api('GET', back)
    expect(cb.status).toBe(200)
    expect(cb.body).toEqual({ connection_id: c.id, domain: zone, applied: true, service_ids: ['connect-apex'] })

    expect((await rrset(zone, zone, 'A')).sort()).toEqual(APEX_IPS)
    const txt = await rrset(zone, `_portico-challenge.${zone}`, 'TXT')
    expect(txt).toHaveLength(1)
    expect(txt[0]).toMatch(/^"portico-verify=/)
    expect(provider.applied.at(-1)).toMatchObject({ rail: 'async', serviceId: 'connect-apex', domain: zone })

    const conn = await p.api('GET', `/v1/connections/${c.id}`, { token })
    expect(conn.body).toMatchObject({ managed: true, rail: 'domain_connect', status: 'propagating' })
    const events = (await p.db`select type, payload from events where connection_id = ${c.id} order by id`) as { type: string; payload: any }[]
    const applied = events.find((e) => e.type === 'connection.applied')
    expect(applied?.payload.data.via).toBe('async')
    expect(applied?.payload.data.updated_objects.length).toBe(3)
    const grants = await p.db`select access_token_sealed from domain_connect_grants where connection_id = ${c.id} and revoked_at is null`
    expect(grants.length).toBe(1)

    // The state is single use: a replay answers the same outcome and applies nothing again.
    const count = provider.applied.length
    const replay = await p.api('GET', back)
    expect(replay.body).toEqual(cb.body)
    expect(provider.applied.length).toBe(count)

    expect((await p.api('POST', `/v1/connections/${c.id}:recheck`, { token })).body.status).toBe('live')
  })

  test('the grant of a managed connection re-applies and reverts, refreshing an expired access token', async () => {
    const { zone, c } = await managedConnection('api')

    const deps: GrantDeps = {
      db: p.db,
      http: { dns: p.services.dns, allowLoopback: true },
      secretsKey: p.config.secretsKey,
      clients: p.config.domainConnect.asyncClients,
      now: () => p.clock.now(),
    }
    const grant = (await domainConnectGrantOf(p.db, ws.tenantId, c.id))!
    expect(grant.service_ids).toEqual(['connect'])
    expect(await domainConnectGrantOf(p.db, 'ten_other', c.id)).toBeUndefined()

    // Someone removes the record by hand; the grant puts it back.
    await pdns.deleteRecords(`api.${zone}`, 'CNAME')
    expect(await reapplyWithGrant(deps, grant)).toEqual({ ok: true, value: null })
    expect(await rrset(zone, `api.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    expect(provider.refreshes).toBe(0)

    // Two hours on, the access token has expired: it is refreshed first and the new one is kept.
    p.clock.advance(2 * 60 * 60 * 1000)
    await pdns.deleteRecords(`api.${zone}`, 'CNAME')
    const stale = (await domainConnectGrantOf(p.db, ws.tenantId, c.id))!
    expect(await reapplyWithGrant(deps, stale)).toEqual({ ok: true, value: null })
    expect(provider.refreshes).toBe(1)
    const fresher = (await domainConnectGrantOf(p.db, ws.tenantId, c.id))!
    expect(fresher.access_token_sealed).not.toBe(stale.access_token_sealed)
    expect(fresher.access_expires_at!.getTime()).toBeGreaterThan(p.clock.now().getTime())
    expect(await rrset(zone, `api.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])

    expect(await revertWithGrant(deps, fresher)).toEqual({ ok: true, value: null })
    expect(await rrset(zone, `api.${zone}`, 'CNAME')).toEqual([])
    expect(provider.reverted.at(-1)).toMatchObject({ serviceId: 'connect', domain: zone, host: 'api' })
  })

  test('a managed connection re-applies with :reapply, is repaired by the monitor, and is reverted on disconnect', async () => {
    const { zone, c } = await managedConnection('m')

    // Someone deletes the record at the provider; :reapply puts it back through the grant.
    await pdns.deleteRecords(`m.${zone}`, 'CNAME')
    const re = await p.api('POST', `/v1/connections/${c.id}:reapply`, { token: ws.apiKey })
    expect(re.status).toBe(200)
    expect(re.body.connection).toMatchObject({ id: c.id, managed: true, status: 'live' })
    expect(re.body.updated_objects).toEqual([{ type: 'CNAME', host: 'm', name: `m.${zone}`, value: EDGE }])
    expect(await rrset(zone, `m.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    const types = async () => ((await p.db`select type from events where connection_id = ${c.id} order by id`) as { type: string }[]).map((e) => e.type)
    expect(await types()).toContain('connection.records.updated')

    // The monitor's repair rail uses the same grant.
    await pdns.deleteRecords(`m.${zone}`, 'CNAME')
    const repair = await p.services.monitorRepair!.repair((await p.db`select * from connections where id = ${c.id}`)[0], [])
    expect(repair.fixed).toBe(true)
    expect(await rrset(zone, `m.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])

    // Disconnect reverts the template at the provider.
    const out = await p.api('DELETE', `/v1/connections/${c.id}`, { token: ws.apiKey })
    expect(out.status).toBe(200)
    expect(out.body.records).toMatchObject({ outcome: 'removed', via: 'domain_connect', removed: [{ type: 'CNAME', name: `m.${zone}`, value: EDGE }], left_in_place: [] })
    expect(await rrset(zone, `m.${zone}`, 'CNAME')).toEqual([])
    expect(provider.reverted.at(-1)).toMatchObject({ serviceId: 'connect', domain: zone, host: 'm' })
  })

  test('a grant withdrawn at the provider: :reapply flags re-consent, disconnect answers the removal plan and removes nothing', async () => {
    const { zone, c } = await managedConnection('w')
    provider.revokeAll()

    const re = await p.api('POST', `/v1/connections/${c.id}:reapply`, { token: ws.apiKey })
    expect(re.status).toBe(422)
    expect(re.body.code).toBe('ProviderAuthenticationError')
    const failed = (await p.db`select payload from events where connection_id = ${c.id} and type = 'connection.reapply.failed'`) as { payload: any }[]
    expect(failed).toHaveLength(1)
    expect(failed[0]!.payload.data).toMatchObject({ reason: 'reauthorization_required' })

    const out = await p.api('DELETE', `/v1/connections/${c.id}`, { token: ws.apiKey })
    expect(out.status).toBe(409)
    expect(out.body.code).toBe('reauthorization_required')
    expect(out.body.plan.records).toEqual([expect.objectContaining({ type: 'CNAME', name: `w.${zone}`, value: EDGE, action: 'delete' })])
    expect(await rrset(zone, `w.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    expect((await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body.status).not.toBe('disconnected')
  })

  test('several templates under one consent: each applied with its own groups', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    const token = await widget(zone)
    const r = await p.api('POST', '/v1/connections', { token, body: { domain: zone, www_redirect: true } })
    const start = await p.api('POST', `/v1/connections/${r.body.id}/domainconnect:start`, { token, body: { service_ids: ['connect-apex', 'www'], rail: 'async' } })
    expect(start.status).toBe(200)
    expect(start.body).toMatchObject({ rail: 'async', service_id: 'connect-apex', service_ids: ['connect-apex', 'www'] })
    expect(new URL(start.body.consent_url).searchParams.get('scope')).toBe('connect-apex www')
    const approved = await fetch(start.body.consent_url, { redirect: 'manual' })
    const before = provider.applied.length
    const cb = await p.api('GET', browserPath(approved.headers.get('location')!))
    expect(cb.body.applied).toBe(true)
    expect(provider.applied.slice(before).map((a) => a.serviceId)).toEqual(['connect-apex', 'www'])
    expect(await rrset(zone, `www.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    expect((await p.api('POST', `/v1/connections/${r.body.id}:recheck`, { token })).body.status).toBe('live')
    // Templates that do not set the records between them are refused.
    const other = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `x.${zone}` } })
    const wt = await widget(`x.${zone}`)
    const bad = await p.api('POST', `/v1/connections/${other.body.id}/domainconnect:start`, { token: wt, body: { service_ids: ['www', 'connect-apex'], rail: 'async' } })
    expect(bad.status).toBe(409)
    expect(bad.body.details.reason).toBe('template_mismatch')
  })

  test('a forged _domainconnect record never sees the client secret: the code goes to the registered API', async () => {
    // Someone publishes settings that claim to be the real provider, from their own server.
    const forger = await startDcProvider({ pdns, templatesDir: OWN_DIR, providerId: provider.providerId, async: true, clients: { 'portico.io': 'anything' } })
    try {
      const zone = fresh()
      await pdns.createZone(zone)
      await forger.serve(zone)
      const token = await widget(`app.${zone}`)
      const c = await connect(`app.${zone}`, token)
      const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { rail: 'async' } })
      expect(start.body.consent_url.startsWith(forger.url)).toBe(true)
      const approved = await fetch(start.body.consent_url, { redirect: 'manual' })
      const realBefore = provider.tokenRequests
      const cb = await p.api('GET', browserPath(approved.headers.get('location')!))
      expect(cb.body).toMatchObject({ applied: false, error: 'access_denied' })
      expect(forger.tokenRequests).toBe(0)
      expect(provider.tokenRequests).toBe(realBefore + 1)
      expect(forger.applied.length).toBe(0)
    } finally {
      await forger.stop()
    }
  })

  test('a refused consent records access_denied and writes nothing', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    const token = await widget(`app.${zone}`)
    const c = await connect(`app.${zone}`, token)
    const plain = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { managed: true, redirect_uri: 'http://app.example.net/back' } })
    expect(plain.status).toBe(400)
    const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { managed: true, redirect_uri: 'https://app.example.net/back?x=1' } })
    expect(start.body.rail).toBe('async')
    provider.denyNextConsent()
    const denied = await fetch(start.body.consent_url, { redirect: 'manual' })
    const cb = await p.api('GET', browserPath(denied.headers.get('location')!))
    expect(cb.status).toBe(302)
    expect(cb.body).toMatchObject({ applied: false, error: 'access_denied' })
    const back = new URL(cb.headers.get('location')!)
    expect(back.origin + back.pathname).toBe('https://app.example.net/back')
    expect(Object.fromEntries(back.searchParams)).toEqual({ x: '1', connection_id: c.id, applied: 'false', error: 'access_denied' })
    const conn = await p.api('GET', `/v1/connections/${c.id}`, { token })
    expect(conn.body).toMatchObject({ managed: false, status: 'pending', error_code: 'access_denied' })
    expect(await rrset(zone, `app.${zone}`, 'CNAME')).toEqual([])
  })

  test('consent sessions go a day after they expire; an expired state is not found', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    const token = await widget(`old.${zone}`)
    const c = await connect(`old.${zone}`, token)
    const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { rail: 'async' } })
    const state = new URL(start.body.consent_url).searchParams.get('state')!
    p.clock.advance(2 * 60 * 60 * 1000)
    expect((await p.api('GET', `/v1/connect/domainconnect/callback?state=${state}&code=x`)).status).toBe(404)
    expect(await cleanupSessions(p.db, p.clock.now())).toBe(0)
    p.clock.advance(24 * 60 * 60 * 1000)
    expect(await cleanupSessions(p.db, p.clock.now())).toBeGreaterThanOrEqual(1)
    expect((await p.db`select 1 from domain_connect_sessions where connection_id = ${c.id}`).length).toBe(0)
  })

  test('a connection removed before the consent returns: nothing is written at the provider', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    const token = await widget(`gone.${zone}`)
    const c = await connect(`gone.${zone}`, token)
    const start = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { rail: 'async' } })
    const approved = await fetch(start.body.consent_url, { redirect: 'manual' })
    expect((await p.api('DELETE', `/v1/connections/${c.id}`, { token })).status).toBe(200)
    const before = provider.applied.length
    const cb = await p.api('GET', browserPath(approved.headers.get('location')!))
    expect(cb.status).toBe(404)
    expect(provider.applied.length).toBe(before)
    expect(await rrset(zone, `gone.${zone}`, 'CNAME')).toEqual([])
  })

  test('an unknown or forged state is not found', async () => {
    const r = await p.api('GET', '/v1/connect/domainconnect/callback?state=forged&code=x')
    expect(r.status).toBe(404)
  })
})

describe('start refuses what the domain check did not advertise', () => {
  test('no _domainconnect record', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const token = await widget(`www2.${zone}`)
    const check = await p.api('POST', '/v1/domains:check', { token, body: { domain: `www2.${zone}` } })
    expect(check.body.rails.domainConnect.available).toBe(false)
    const c = await connect(`www2.${zone}`, token)
    const r = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token })
    expect(r.status).toBe(409)
    expect(r.body.details.reason).toBe('not_discovered')
  })

  test('a _domainconnect record whose settings cannot be read', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(`_domainconnect.${zone}`, 'TXT', ['"127.0.0.1:9"'])
    const token = await widget(`app.${zone}`)
    const check = await p.api('POST', '/v1/domains:check', { token, body: { domain: `app.${zone}` } })
    expect(check.body.rails.domainConnect).toEqual({ available: false, reason: 'settings_unreachable' })
    expect(check.body.domain_connect).toBeNull()
    const c = await connect(`app.${zone}`, token)
    const r = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token })
    expect(r.status).toBe(409)
    expect(r.body.details.reason).toBe('settings_unreachable')
  })

  test('provider URLs go through the SSRF guard: private addresses always, loopback without the test setting', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(`_domainconnect.${zone}`, 'TXT', ['"10.0.0.7"'])
    const dns = p.services.dns
    const priv = await discover({ dns, allowLoopback: true, asyncClients: {} }, dns, zone)
    expect(priv).toMatchObject({ host: '10.0.0.7', settings: null })
    expect(priv!.error).toMatch(/^refused: 10\.0\.0\.7/)
    await provider.serve(zone)
    const seen = provider.refused.length + provider.applied.length
    const strict = await discover({ dns, allowLoopback: false, asyncClients: {} }, dns, zone)
    expect(strict!.settings).toBeNull()
    expect(strict!.error).toMatch(/^refused: /)
    expect(provider.refused.length + provider.applied.length).toBe(seen)
    const allowed = await discover({ dns, allowLoopback: true, asyncClients: {} }, dns, zone)
    expect(allowed).toMatchObject({ sync: true, async: false, settings: { providerId: provider.providerId } })
  })

  test('a provider without the async rail: redirect_only, and async falls through to sync', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await syncOnly.serve(zone)
    const token = await widget(`app.${zone}`)
    const check = await p.api('POST', '/v1/domains:check', { token, body: { domain: `app.${zone}` } })
    expect(check.body.rails.domainConnect).toEqual({ available: true, caveat: 'redirect_only' })
    expect(check.body.domain_connect).toMatchObject({ sync: true, async: false })
    const c = await connect(`app.${zone}`, token)
    // The managed rail is not offered: the request falls through to the sync rail, where only the first template applies.
    const r = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { rail: 'async', service_ids: ['connect', 'connect-apex'] } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ rail: 'sync', managed: false, consent_url: null, service_id: 'connect', service_ids: ['connect'] })
    expect(r.body.apply_url.startsWith(`${syncOnly.url}/v2/domainTemplates/providers/portico.io/services/connect/apply?`)).toBe(true)
    const wrong = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { service_id: 'connect-apex' } })
    expect(wrong.status).toBe(409)
    expect(wrong.body.details.reason).toBe('template_mismatch')
  })

  test('a provider with only the async rail: managed_only, and the default is the async rail', async () => {
    const asyncOnly = await startDcProvider({ pdns, templatesDir: OWN_DIR, providerId: provider.providerId, async: true, sync: false, clients: { 'portico.io': CLIENT_SECRET } })
    try {
      const zone = fresh()
      await pdns.createZone(zone)
      await asyncOnly.serve(zone)
      const token = await widget(`app.${zone}`)
      const check = await p.api('POST', '/v1/domains:check', { token, body: { domain: `app.${zone}` } })
      expect(check.body.rails.domainConnect).toEqual({ available: true, caveat: 'managed_only' })
      const c = await connect(`app.${zone}`, token)
      const sync = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { rail: 'sync' } })
      expect(sync.status).toBe(409)
      expect(sync.body.details.reason).toBe('sync_unsupported')
      const dflt = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token })
      expect(dflt.body).toMatchObject({ rail: 'async', managed: true, apply_url: null })
      expect(dflt.body.consent_url.startsWith(asyncOnly.url)).toBe(true)
    } finally {
      await asyncOnly.stop()
    }
  })

  test('a provider whose only rail needs a client Portico does not hold: no rail at all', async () => {
    const stranger = await startDcProvider({ pdns, templatesDir: OWN_DIR, providerId: 'stranger.test', async: true, sync: false, clients: {} })
    try {
      const zone = fresh()
      await pdns.createZone(zone)
      await stranger.serve(zone)
      const token = await widget(`app.${zone}`)
      const check = await p.api('POST', '/v1/domains:check', { token, body: { domain: `app.${zone}` } })
      expect(check.body.rails.domainConnect).toEqual({ available: false, reason: 'provider_unsupported' })
      expect(check.body.domain_connect).toMatchObject({ provider_id: 'stranger.test', sync: false, async: false })
      const c = await connect(`app.${zone}`, token)
      const r = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token, body: { managed: true } })
      expect(r.status).toBe(409)
      expect(r.body.details.reason).toBe('provider_unsupported')
    } finally {
      await stranger.stop()
    }
  })

  test('a template the provider has not onboarded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-dc-templates-'))
    copyFileSync(join(OWN_DIR, 'portico.io.connect.json'), join(dir, 'portico.io.connect.json'))
    const partial = await startDcProvider({ pdns, templatesDir: dir, providerId: provider.providerId, async: true, clients: { 'portico.io': CLIENT_SECRET } })
    try {
      const zone = fresh()
      await pdns.createZone(zone)
      await partial.serve(zone)
      const token = await widget(zone)
      const c = await connect(zone, token)
      const r = await p.api('POST', `/v1/connections/${c.id}/domainconnect:start`, { token })
      expect(r.status).toBe(409)
      expect(r.body.details.reason).toBe('template_unsupported')
      expect(partial.refused.some((x) => x.path.endsWith('/services/connect-apex') && x.status === 404)).toBe(true)
    } finally {
      await partial.stop()
    }
  })

  test('an integrator-authored record set, and a key instead of a widget token', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await provider.serve(zone)
    const r = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `api.${zone}`, records: [{ type: 'TXT', host: 'api', value: 'hello' }] } })
    expect(r.status).toBe(201)
    const token = await widget()
    const start = await p.api('POST', `/v1/connections/${r.body.id}/domainconnect:start`, { token })
    expect(start.status).toBe(409)
    expect(start.body.details.reason).toBe('custom_records')
    const withKey = await p.api('POST', `/v1/connections/${r.body.id}/domainconnect:start`, { token: ws.apiKey })
    expect(withKey.status).toBe(403)
  })
})
