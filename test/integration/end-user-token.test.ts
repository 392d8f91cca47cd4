// The end user's widget token, from the end user's (and an attacker's) side: the token lives in a
// browser, so whoever holds it must not reach the integrator's application-level resources, and no
// secret is ever handed to anyone but the caller who created it.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let zone: string

beforeAll(async () => {
  pdns = await startPdns()
  zone = `enduser${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

describe('the reported attack: a domain-bound widget token against the integrator\'s webhooks', () => {
  test('registering the integrator\'s webhook URL again with the end user\'s token never returns the signing secret', async () => {
    const url = 'https://integrator.example.com/portico-hooks'
    const hook = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url, events: [] } })
    expect(hook.status).toBe(201)
    const secret: string = hook.body.secret
    const domain = `shop.${zone}`
    await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, end_user_ref: 'victim-user' } })
    const endUser = await widgetToken(p, ws, { domain })

    const again = await p.api('POST', '/v1/webhooks', { token: endUser, body: { url, events: [] } })
    expect(again.status).toBe(403)
    expect(again.body.code).toBe('forbidden')
    expect(JSON.stringify(again.body)).not.toContain(secret)
    // Nor any other way to the endpoints or the delivery log (other customers' domains and user ids).
    for (const [method, path] of [
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/webhook-deliveries'],
      ['DELETE', `/v1/webhooks/${hook.body.id}`],
      ['POST', `/v1/webhook-deliveries/whd_anything:retry`],
      ['POST', `/v1/webhooks/${hook.body.id}:rotate-secret`],
      ['GET', '/v1/ssl'],
      ['GET', '/v1/connections'],
      ['GET', '/v1/billing/standing'],
      ['GET', `/v1/applications/${ws.appId}`],
      ['GET', `/v1/applications/${ws.appId}/connect-target`],
    ] as const) {
      const r = await p.api(method, path, { token: endUser })
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 403 })
      expect(JSON.stringify(r.body)).not.toContain('victim-user')
    }
    // The endpoint is still there, untouched.
    const list = await p.api('GET', '/v1/webhooks', { token: ws.apiKey })
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toContain(hook.body.id)
  })

  test('a connect-scoped token without a domain (the end user\'s flow) is refused the same', async () => {
    const endUser = await widgetToken(p, ws)
    for (const [method, path, body] of [
      ['POST', '/v1/webhooks', { url: 'https://attacker.example.com/x' }],
      ['GET', '/v1/webhooks', undefined],
      ['GET', '/v1/webhook-deliveries', undefined],
      ['GET', '/v1/ssl', undefined],
    ] as const) {
      const r = await p.api(method, path, { token: endUser, body })
      expect({ path, status: r.status }).toEqual({ path, status: 403 })
    }
  })

  test('a domain-bound token acts on its own domain\'s connection only: another domain\'s connection is 404, a body naming another domain 403', async () => {
    const mine = `mine.${zone}`
    const theirs = `theirs.${zone}`
    const a = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: mine } })
    const b = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: theirs, end_user_ref: 'someone-else' } })
    const endUser = await widgetToken(p, ws, { domain: mine })
    expect((await p.api('GET', `/v1/connections/${a.body.id}`, { token: endUser })).status).toBe(200)
    for (const [method, path] of [
      ['GET', `/v1/connections/${b.body.id}`],
      ['GET', `/v1/connections/${b.body.id}/records`],
      ['POST', `/v1/connections/${b.body.id}:recheck`],
      ['POST', `/v1/connections/${b.body.id}/share`],
      ['DELETE', `/v1/connections/${b.body.id}`],
    ] as const) {
      const r = await p.api(method, path, { token: endUser })
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 404 })
      expect(JSON.stringify(r.body)).not.toContain('someone-else')
    }
    const create = await p.api('POST', '/v1/connections', { token: endUser, body: { domain: theirs } })
    expect(create.status).toBe(403)
    expect(JSON.stringify(create.body)).not.toContain(b.body.id)
  })

  test('the application-scoped token (the integrator\'s own pages) may register an endpoint: a new one, with its own secret', async () => {
    const url = 'https://integrator.example.com/app-scoped'
    const first = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url } })
    const app = await widgetToken(p, ws, { scope: 'app' })
    const second = await p.api('POST', '/v1/webhooks', { token: app, body: { url } })
    expect(second.status).toBe(201)
    expect(second.body.id).not.toBe(first.body.id)
    expect(second.body.secret).not.toBe(first.body.secret)
    // An app-scoped token bound to a domain is a domain-bound token: the narrower grant wins.
    const boundApp = await widgetToken(p, ws, { scope: 'app', domain: `shop.${zone}` })
    expect((await p.api('GET', '/v1/webhooks', { token: boundApp })).status).toBe(403)
  })
})

describe('secrets are shown once, to whoever created them', () => {
  test('client secrets, API keys, the default key and invitation tokens are never shown again', async () => {
    const w = await provision(p)
    // The default key exists since provisioning: asking again answers its id, no secret.
    const dk = await p.api('POST', `/v1/tenants/${w.tenantId}/default-key`, { headers: { 'x-provision-secret': 'prov_test_secret_0123456789' } })
    expect(dk.status).toBe(200)
    expect(dk.body.created).toBe(false)
    expect(dk.body.api_key).toBeUndefined()
    expect(JSON.stringify(dk.body)).not.toContain(w.apiKey)
    // Applications: listed and read without their client secret.
    const app = await p.api('POST', '/v1/applications', { token: w.apiKey, body: { tenant_id: w.tenantId, name: 'Second' } })
    expect(app.body.client_secret).toStartWith('pcs_')
    for (const path of ['/v1/applications', `/v1/applications/${app.body.id}`]) {
      expect(JSON.stringify((await p.api('GET', path, { token: w.apiKey })).body)).not.toContain(app.body.client_secret)
    }
    // A key's secret: never in the key list.
    const key = await p.api('POST', `/v1/applications/${w.appId}/keys`, { token: w.apiKey, body: { role: 'viewer' } })
    expect(JSON.stringify((await p.api('GET', `/v1/applications/${w.appId}/keys`, { token: w.apiKey })).body)).not.toContain(key.body.key)
    // Inviting the same person again mints a fresh token (the first stops working), never the first one back.
    const inv = await p.api('POST', '/v1/members', { token: w.apiKey, body: { email: 'twice@example.com', role: 'member' } })
    const again = await p.api('POST', '/v1/members', { token: w.apiKey, body: { email: 'twice@example.com', role: 'member' } })
    expect(again.body.invite_token).not.toBe(inv.body.invite_token)
    expect(JSON.stringify((await p.api('GET', '/v1/members', { token: w.apiKey })).body)).not.toContain(inv.body.invite_token)
    // A share link is minted anew for every caller.
    const c = await p.api('POST', '/v1/connections', { token: w.apiKey, body: { domain: `share.${zone}` } })
    const s1 = await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: w.apiKey })
    const s2 = await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: await widgetToken(p, w, { domain: `share.${zone}` }) })
    expect(s2.body.token).not.toBe(s1.body.token)
  })

  test('an Idempotency-Key replay of a minted secret goes to the credential that created it only', async () => {
    const w = await provision(p)
    const other = await p.api('POST', `/v1/applications/${w.appId}/keys`, { token: w.apiKey, body: { role: 'admin' } })
    const headers = { 'idempotency-key': 'mint-once' }
    const first = await p.api('POST', `/v1/applications/${w.appId}/keys`, { token: w.apiKey, body: { role: 'viewer' }, headers })
    const replay = await p.api('POST', `/v1/applications/${w.appId}/keys`, { token: w.apiKey, body: { role: 'viewer' }, headers })
    expect(replay.body.key).toBe(first.body.key)
    const theirs = await p.api('POST', `/v1/applications/${w.appId}/keys`, { token: other.body.key, body: { role: 'viewer' }, headers })
    expect(theirs.status).toBe(201)
    expect(theirs.body.key).not.toBe(first.body.key)
    const app1 = await p.api('POST', '/v1/applications', { token: w.apiKey, body: { tenant_id: w.tenantId, name: 'Once' }, headers: { 'idempotency-key': 'app-once' } })
    const app2 = await p.api('POST', '/v1/applications', { token: other.body.key, body: { tenant_id: w.tenantId, name: 'Once' }, headers: { 'idempotency-key': 'app-once' } })
    expect(app2.body.id).not.toBe(app1.body.id)
    expect(app2.body.client_secret).not.toBe(app1.body.client_secret)
  })
})
