// Billing over the sandbox processor: the standing and who may read it, the card-setup ui_mode table,
// plan checkout, status and portal, and the gate on new connections (billing_required and, with
// BILLING_ENFORCE_QUOTA, quota_exceeded on the free plan), against real DNS from PowerDNS.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import type { SandboxPayments, SignedWebhook } from '../../src/adapters/payments/sandbox.ts'
import { assertCanConnect } from '../../src/domain/billing.ts'
import { ApiError } from '../../src/errors.ts'

let pdns: Pdns
let p: TestPortico
let sandbox: SandboxPayments
let zone: string
let seq = 0

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', BILLING_ENFORCE_QUOTA: '1' })
  sandbox = p.services.payments as SandboxPayments
  zone = `b${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
})

afterAll(async () => {
  await p?.close()
})

const host = () => `h${++seq}.${zone}`

async function keyWithRole(ws: Workspace, role: string): Promise<string> {
  const r = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role } })
  expect(r.status).toBe(201)
  return r.body.key
}

async function deliver(hook: SignedWebhook) {
  const res = await p.app.handle(new Request('http://portico.test/v1/payments/webhook', { method: 'POST', headers: hook.headers, body: hook.body }))
  expect(res.status).toBe(200)
}

const standing = async (token: string) => (await p.api('GET', '/v1/billing/standing', { token })).body

/** Rows standing for domains connected earlier this month (metering reads connections). */
async function fakeConnections(ws: Workspace, n: number) {
  for (let i = 0; i < n; i++) {
    const id = `con_fake${Date.now().toString(36)}${++seq}`
    await p.db`
      insert into connections (id, tenant_id, application_id, domain, apex_domain, status, desired_records, planned_target, verification_token, created_at, updated_at)
      values (${id}, ${ws.tenantId}, ${ws.appId}, ${`f${seq}.example.com`}, 'example.com', 'pending', '[]'::jsonb, '{}'::jsonb, 'x', ${p.clock.now()}, ${p.clock.now()})`
  }
}

describe('billing standing', () => {
  test('every field, for a new free workspace', async () => {
    const ws = await provision(p)
    const s = await standing(ws.apiKey)
    expect(s).toEqual({
      configured: false,
      restricted: false,
      first_domain_free: true,
      attention: false,
      code: null,
      title: null,
      details: null,
      billing_url: 'http://portico.test/v1/billing/portal',
      plan: { id: 'free', name: 'Free', hard_cap: true },
      usage: { used: 0, quota: 5, period: p.clock.now().toISOString().slice(0, 7) },
    })
  })

  test('credentials: any key role and an app-scoped widget token read it; a connect-scoped widget token gets 403', async () => {
    const ws = await provision(p)
    expect((await p.api('GET', '/v1/billing/standing', { token: await keyWithRole(ws, 'viewer') })).status).toBe(200)
    expect((await p.api('GET', '/v1/billing/standing', { token: await widgetToken(p, ws, { scope: 'app' }) })).status).toBe(200)
    const connect = await p.api('GET', '/v1/billing/standing', { token: await widgetToken(p, ws) })
    expect(connect.status).toBe(403)
    expect(connect.body.code).toBe('forbidden')
  })

  test('the first domain is free and not metered', async () => {
    const ws = await provision(p)
    const r = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: host() } })
    expect(r.status).toBe(201)
    const s = await standing(ws.apiKey)
    expect(s.first_domain_free).toBe(false)
    expect(s.usage.used).toBe(0)
  })
})

describe('POST /billing/setup ui_mode table', () => {
  const R = 'https://app.example/billing/return'
  const S = 'https://app.example/billing/ok'
  const C = 'https://app.example/billing/cancel'
  const cases: [string, Record<string, unknown>, number, string?][] = [
    ['return_url alone is embedded', { return_url: R }, 200, 'embedded'],
    ['return_url with ui_mode embedded', { return_url: R, ui_mode: 'embedded' }, 200, 'embedded'],
    ['return_url with ui_mode elements', { return_url: R, ui_mode: 'elements' }, 200, 'elements'],
    ['ui_mode null counts as omitted', { return_url: R, ui_mode: null }, 200, 'embedded'],
    ['ui_mode "" counts as omitted', { return_url: R, ui_mode: '' }, 200, 'embedded'],
    ['success_url and cancel_url are hosted', { success_url: S, cancel_url: C }, 200, 'hosted'],
    ['hosted with ui_mode null', { success_url: S, cancel_url: C, ui_mode: null }, 200, 'hosted'],
    ['hosted with ui_mode ""', { success_url: S, cancel_url: C, ui_mode: '' }, 200, 'hosted'],
    ['neither is 400', {}, 400],
    ['ui_mode alone is 400', { ui_mode: 'embedded' }, 400],
    ['hosted is never accepted as a request (with return_url)', { return_url: R, ui_mode: 'hosted' }, 400],
    ['hosted is never accepted as a request (with the pair)', { success_url: S, cancel_url: C, ui_mode: 'hosted' }, 400],
    ['another ui_mode value is 400', { return_url: R, ui_mode: 'custom' }, 400],
    ['ui_mode is case-sensitive', { return_url: R, ui_mode: 'Embedded' }, 400],
    ['elements needs return_url', { success_url: S, cancel_url: C, ui_mode: 'elements' }, 400],
    ['embedded needs return_url', { success_url: S, cancel_url: C, ui_mode: 'embedded' }, 400],
    ['success_url without cancel_url is 400', { success_url: S }, 400],
    ['cancel_url without success_url is 400', { cancel_url: C }, 400],
    ['both kinds of URL is 400', { return_url: R, success_url: S, cancel_url: C }, 400],
    ['a non-URL is 400', { return_url: 'not a url' }, 400],
    ['an unknown field is 400', { return_url: R, mode: 'setup' }, 400],
  ]
  let ws: Workspace
  beforeAll(async () => {
    ws = await provision(p)
  })

  test.each(cases)('%s', async (_name, body, status, uiMode) => {
    const r = await p.api('POST', '/v1/billing/setup', { token: ws.apiKey, body })
    expect(r.status).toBe(status)
    if (status === 200) {
      expect(Object.keys(r.body).sort()).toEqual(['client_secret', 'id', 'ui_mode', 'url'])
      expect(r.body.ui_mode).toBe(uiMode)
    } else {
      expect(r.body.code).toBe('invalid_request')
    }
  })

  test('an elements request answers embedded when Elements could not be created', async () => {
    sandbox.elementsAvailable = false
    try {
      const r = await p.api('POST', '/v1/billing/setup', { token: ws.apiKey, body: { return_url: R, ui_mode: 'elements' } })
      expect(r.status).toBe(200)
      expect(r.body.ui_mode).toBe('embedded')
    } finally {
      sandbox.elementsAvailable = true
    }
  })

  test('owners and admins may set up a card; members may not', async () => {
    expect((await p.api('POST', '/v1/billing/setup', { token: await keyWithRole(ws, 'admin'), body: { return_url: R } })).status).toBe(200)
    expect((await p.api('POST', '/v1/billing/setup', { token: await keyWithRole(ws, 'member'), body: { return_url: R } })).status).toBe(403)
  })
})

describe('the gate on new connections', () => {
  test('a paid plan without a card is billing_required (402) until a card is saved', async () => {
    const ws = await provision(p)
    await p.db`update tenants set plan_id = 'starter' where id = ${ws.tenantId}`
    const s = await standing(ws.apiKey)
    expect(s).toMatchObject({ configured: false, restricted: true, attention: true, code: 'billing_required', details: { reason: 'no_payment_method' }, plan: { id: 'starter', hard_cap: false } })
    const refused = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: host() } })
    expect(refused.status).toBe(402)
    expect(refused.body.code).toBe('billing_required')
    const bulk = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: [host()] } })
    expect(bulk.body.results[0]).toMatchObject({ status: 'failed', code: 'billing_required' })

    const setup = await p.api('POST', '/v1/billing/setup', { token: ws.apiKey, body: { return_url: 'https://app.example/r' } })
    await deliver(sandbox.complete(setup.body.id, { brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2031 }))
    expect(await standing(ws.apiKey)).toMatchObject({ configured: true, restricted: false, code: null })
    expect((await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: host() } })).status).toBe(201)
    const status = await p.api('GET', '/v1/billing/status', { token: ws.apiKey })
    expect(status.body.card).toEqual({ brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2031 })
  })

  test('the free plan past its quota is 402 quota_exceeded where enforcement is on, and only there', async () => {
    const ws = await provision(p)
    await fakeConnections(ws, 6) // the first is free: five counted
    const s = await standing(ws.apiKey)
    expect(s).toMatchObject({ restricted: true, code: 'quota_exceeded', usage: { used: 5, quota: 5 } })
    const refused = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: host() } })
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', details: { used: 5, quota: 5 } })
    // A domain already connected is not new: asking again is never refused.
    const [{ domain }] = await p.db`select domain from connections where tenant_id = ${ws.tenantId} limit 1`
    await assertCanConnect(p.db, ws.tenantId, p.clock.now(), { billingEnforceQuota: true }, domain)
    // Without BILLING_ENFORCE_QUOTA the same workspace may connect.
    await assertCanConnect(p.db, ws.tenantId, p.clock.now(), { billingEnforceQuota: false })
    const err = await assertCanConnect(p.db, ws.tenantId, p.clock.now(), { billingEnforceQuota: true }).catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(402)
  })

  test('a paid plan is never hard-capped', async () => {
    const ws = await provision(p)
    await p.db`update tenants set plan_id = 'starter' where id = ${ws.tenantId}`
    const setup = await p.api('POST', '/v1/billing/setup', { token: ws.apiKey, body: { return_url: 'https://app.example/r' } })
    await deliver(sandbox.complete(setup.body.id))
    await fakeConnections(ws, 120)
    expect(await standing(ws.apiKey)).toMatchObject({ restricted: false, attention: true, usage: { used: 120, quota: 100 } })
    expect((await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: host() } })).status).toBe(201)
  })
})

describe('plans, status and portal', () => {
  test('an owner buys a plan; the paid checkout changes the plan and adds an invoice', async () => {
    const ws = await provision(p)
    const admin = await keyWithRole(ws, 'admin')
    const body = { plan_id: 'growth', success_url: 'https://app.example/ok', cancel_url: 'https://app.example/no' }
    expect((await p.api('POST', '/v1/billing/checkout', { token: admin, body })).status).toBe(403)
    expect((await p.api('POST', '/v1/billing/checkout', { token: ws.apiKey, body: { ...body, plan_id: 'free' } })).status).toBe(400)
    const co = await p.api('POST', '/v1/billing/checkout', { token: ws.apiKey, body })
    expect(co.status).toBe(200)
    expect(Object.keys(co.body).sort()).toEqual(['client_secret', 'id', 'plan_id', 'url'])
    expect(co.body.plan_id).toBe('growth')
    const hook = sandbox.complete(co.body.id)
    await deliver(hook)
    await deliver(hook) // delivered twice: one invoice
    const st = await p.api('GET', '/v1/billing/status', { token: admin })
    expect(st.status).toBe(200)
    expect(st.body).toMatchObject({ plan: { id: 'growth', monthly_price_cents: 19900 }, subscription_status: 'active', amount_due_cents: 19900 })
    expect(st.body.invoices).toHaveLength(1)
    expect(st.body.invoices[0]).toMatchObject({ plan_id: 'growth', amount_cents: 19900, status: 'paid' })
    expect((await p.api('GET', '/v1/billing/status', { token: await keyWithRole(ws, 'member') })).status).toBe(403)
    expect((await standing(ws.apiKey)).plan).toEqual({ id: 'growth', name: 'Growth', hard_cap: false })
  })

  test('the portal link', async () => {
    const ws = await provision(p)
    const r = await p.api('POST', '/v1/billing/portal', { token: ws.apiKey, body: { return_url: 'https://app.example/settings' } })
    expect(r.status).toBe(200)
    expect(r.body.url).toMatch(/^http/)
  })
})
