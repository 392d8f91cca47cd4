// Sell over the sandbox processor and registrar: checkout, fulfilment that registers before it
// captures, replays and concurrency, the one-call purchase with its Idempotency-Key, the processor
// webhook, expiry of unpaid orders, and the 503 when purchasing is disabled.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { provision, sharedPortico, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import type { SandboxPayments, SignedWebhook } from '../../src/adapters/payments/sandbox.ts'
import { PREMIUM_CENTS, RETAIL_CENTS } from '../../src/adapters/registrar/sandbox.ts'
import { expireUnpaid } from '../../src/domain/sell.ts'
import { DAY } from '../../src/clock.ts'

const MINUTE = 60_000

let p: TestPortico
let ws: Workspace
let widget: string
let sandbox: SandboxPayments
let seq = 0
const fresh = (word = 'shop') => `${word}${Date.now().toString(36)}${++seq}.com`

beforeAll(async () => {
  p = await startPortico({ SELL_PURCHASE_ENABLED: '1', EDGE_CNAME_TARGET: 'edge.portico.test' })
  ws = await provision(p)
  widget = await widgetToken(p, ws)
  sandbox = p.services.payments as SandboxPayments
})

afterAll(async () => {
  await p?.close()
})

async function checkout(domain: string) {
  const r = await p.api('POST', '/v1/registrar/checkout', { token: widget, body: { domain, buyer: { email: 'buyer@example.com' }, return_url: 'https://shop.example/done' } })
  expect(r.status).toBe(200)
  return r.body as { id: string; url: string; client_secret: string; order_id: string }
}

const fulfill = (session_id: string) => p.api('POST', '/v1/registrar/fulfill', { token: widget, body: { session_id } })

async function deliver(hook: SignedWebhook) {
  const res = await p.app.handle(new Request('http://portico.test/v1/payments/webhook', { method: 'POST', headers: hook.headers, body: hook.body }))
  return { status: res.status, body: await res.json() }
}

async function eventsOf(orderId: string) {
  return (await p.db`select type, payload from events where payload->'data'->>'order_id' = ${orderId} order by id`) as { type: string; payload: any }[]
}

async function order(id: string) {
  const [o] = await p.db`select * from sell_orders where id = ${id}`
  return o as any
}

describe('search and quote', () => {
  test('a taken name has suggestions; a premium name its premium price', async () => {
    const taken = await p.api('POST', '/v1/registrar/search', { token: widget, body: { query: 'mytaken.com' } })
    expect(taken.status).toBe(200)
    expect(taken.body).toMatchObject({ domain: 'mytaken.com', available: false })
    expect(taken.body.suggestions.length).toBeGreaterThan(0)
    expect(taken.body.suggestions.every((s: { available: boolean }) => s.available)).toBe(true)
    const premium = await p.api('POST', '/v1/registrar/search', { token: ws.apiKey, body: { query: 'premiumcars' } })
    expect(premium.body).toMatchObject({ domain: 'premiumcars.com', available: true, premium: true, price_cents: PREMIUM_CENTS, suggestions: [] })
  })

  test('a quote is priced at retail and valid for one day', async () => {
    const r = await p.api('POST', '/v1/registrar/quote', { token: widget, body: { domain: fresh(), years: 2 } })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ status: 'quoted', amount_cents: 2 * RETAIL_CENTS.com!, premium: false })
    expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(DAY)
    const taken = await p.api('POST', '/v1/registrar/quote', { token: widget, body: { domain: 'alreadytaken.com' } })
    expect(taken.status).toBe(409)
  })
})

describe('checkout and fulfil', () => {
  test('success: registers, captures exactly once, connects the domain; replays answer 200 with the same body', async () => {
    const domain = fresh()
    const s = await checkout(domain)
    expect(s.id).toBeTruthy()
    expect(s.client_secret).toBeTruthy()
    const early = await fulfill(s.id)
    expect(early.status).toBe(409)
    expect(early.body.details.payment_status).toBe('requires_payment_method')
    const hook = sandbox.pay(s.id)
    const first = await fulfill(s.id)
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ Domain: domain, Registrar: 'sandbox', status: 'completed', amount_cents: RETAIL_CENTS.com })
    expect(first.body.RegOrderID).toMatch(/^rego_/)
    const replay = await fulfill(s.id)
    expect(replay.status).toBe(200)
    expect(replay.body).toEqual(first.body)
    // The processor's webhook arriving afterwards drives the same path and changes nothing.
    expect((await deliver(hook)).status).toBe(200)
    expect(sandbox.capturesOf(s.id)).toBe(1)
    expect(await sandbox.status(s.id)).toBe('captured')
    const c = await p.api('GET', `/v1/connections/${first.body.connection_id}`, { token: ws.apiKey })
    expect(c.status).toBe(200)
    expect(c.body).toMatchObject({ domain, application_id: ws.appId })
    expect(c.body.records[0]).toMatchObject({ type: 'ALIAS', host: '@', value: 'edge.portico.test', purpose: 'routing_alias' })
    expect((await eventsOf(s.order_id)).map((e) => e.type)).toEqual(['domain.purchased'])
    expect((await order(s.order_id)).status).toBe('completed')
  })

  test('the processor webhook alone completes a paid checkout', async () => {
    const s = await checkout(fresh())
    expect((await deliver(sandbox.pay(s.id))).body).toEqual({ received: true })
    expect((await order(s.order_id)).status).toBe('completed')
    expect(sandbox.capturesOf(s.id)).toBe(1)
    expect((await fulfill(s.id)).status).toBe(200)
  })

  test('a forged webhook is refused and moves nothing', async () => {
    const s = await checkout(fresh())
    const hook = sandbox.pay(s.id)
    // One hex digit of the signature changed (to another digit: replacing it with a fixed one would
    // leave one signature in sixteen as it was).
    const forged = { ...hook, headers: { ...hook.headers, 'portico-sandbox-signature': hook.headers['portico-sandbox-signature']!.replace(/v1=(.)/, (_, c: string) => `v1=${c === '0' ? '1' : '0'}`) } }
    expect((await deliver({ ...forged, body: hook.body })).status).toBe(400)
    expect((await order(s.order_id)).status).toBe('pending_payment')
  })

  test('registration failure releases the authorization, never captures, emits purchase.error', async () => {
    const s = await checkout(fresh('willfail'))
    sandbox.pay(s.id)
    const r = await fulfill(s.id)
    expect(r.status).toBe(409)
    expect(r.body.details).toMatchObject({ reason: 'registration_failed', released: true })
    expect(sandbox.capturesOf(s.id)).toBe(0)
    expect(await sandbox.status(s.id)).toBe('canceled')
    const again = await fulfill(s.id)
    expect(again.status).toBe(409)
    expect(again.body).toEqual(r.body)
    expect(sandbox.capturesOf(s.id)).toBe(0)
    expect((await eventsOf(s.order_id)).map((e) => e.type)).toEqual(['purchase.error'])
    const o = await order(s.order_id)
    expect(o.status).toBe('failed')
    expect(o.captured_at).toBeNull()
    expect(o.released_at).not.toBeNull()
  })

  test('a declined card fails the order without registering', async () => {
    const s = await checkout(fresh())
    sandbox.pay(s.id, '4000000000000002')
    const r = await fulfill(s.id)
    expect(r.status).toBe(409)
    expect(r.body.details.reason).toBe('payment_failed')
    expect((await order(s.order_id)).reg_order_id).toBeNull()
  })

  test('fulfil replayed concurrently from 20 requests captures once', async () => {
    const domain = fresh()
    const s = await checkout(domain)
    sandbox.pay(s.id)
    const before = sandbox.captures
    const answers = await Promise.all(Array.from({ length: 20 }, () => fulfill(s.id)))
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201])
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body)
    expect(sandbox.capturesOf(s.id)).toBe(1)
    expect(sandbox.captures - before).toBe(1)
    expect((await eventsOf(s.order_id)).map((e) => e.type)).toEqual(['domain.purchased'])
    const [{ n }] = await p.db`select count(*)::int as n from connections where domain = ${domain}`
    expect(n).toBe(1)
  })

  test('another application\'s session is 404', async () => {
    const s = await checkout(fresh())
    const other = await provision(p)
    const r = await p.api('POST', '/v1/registrar/fulfill', { token: await widgetToken(p, other), body: { session_id: s.id } })
    expect(r.status).toBe(404)
  })
})

describe('one-call purchase with Idempotency-Key', () => {
  const buy = (key: string | undefined, body: Record<string, unknown>) =>
    p.api('POST', '/v1/registrar/purchase', { token: widget, body, headers: key ? { 'idempotency-key': key } : {} })

  test('the header is required', async () => {
    const r = await buy(undefined, { domain: fresh(), buyer: { email: 'b@example.com' }, payment_method: 'pm_card_visa' })
    expect(r.status).toBe(400)
  })

  test('same key and body replays the first answer; another body with the key is refused', async () => {
    const key = `key-${fresh()}`
    const body = { domain: fresh(), buyer: { email: 'b@example.com' }, payment_method: 'pm_card_visa' }
    const before = sandbox.captures
    const first = await buy(key, body)
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ Domain: body.domain, Registrar: 'sandbox' })
    const again = await buy(key, { payment_method: 'pm_card_visa', buyer: { email: 'b@example.com' }, domain: body.domain })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    const other = await buy(key, { ...body, domain: fresh() })
    expect(other.status).toBe(422)
    expect(other.body).toMatchObject({ code: 'idempotency_key_reused', details: { reason: 'idempotency_key_reused' } })
    expect(sandbox.captures - before).toBe(1)
    const [{ n }] = await p.db`select count(*)::int as n from sell_orders where idempotency_key = ${key}`
    expect(n).toBe(1)
  })

  test('a declined payment method is refused and replayed as refused', async () => {
    const key = `key-${fresh()}`
    const body = { domain: fresh(), buyer: { email: 'b@example.com' }, payment_method: 'pm_card_chargeDeclined' }
    const r = await buy(key, body)
    expect(r.status).toBe(409)
    expect(r.body.details.reason).toBe('payment_failed')
    expect((await buy(key, body)).body).toEqual(r.body)
  })

  test('orders are listed for the application', async () => {
    const r = await p.api('GET', `/v1/sell/orders?app_id=${ws.appId}&status=completed`, { token: ws.apiKey })
    expect(r.status).toBe(200)
    expect(r.body.count).toBeGreaterThan(2)
    expect(r.body.orders.every((o: { status: string; application_id: string }) => o.status === 'completed' && o.application_id === ws.appId)).toBe(true)
  })
})

describe('expiry', () => {
  test('an unpaid quote and checkout expire after a day with purchase.confirmation.expired', async () => {
    const q = await p.api('POST', '/v1/registrar/quote', { token: widget, body: { domain: fresh() } })
    const s = await checkout(fresh())
    await expireUnpaid({ db: p.db, clock: p.clock })
    expect((await order(q.body.id)).status).toBe('quoted')
    p.clock.advance(DAY + MINUTE)
    expect(await expireUnpaid({ db: p.db, clock: p.clock, payments: sandbox })).toBeGreaterThanOrEqual(2)
    expect((await order(q.body.id)).status).toBe('expired')
    expect((await eventsOf(q.body.id)).map((e) => e.type)).toEqual(['purchase.confirmation.expired'])
    expect((await eventsOf(s.order_id)).map((e) => e.type)).toEqual(['purchase.confirmation.expired'])
    // The expired checkout was released at the processor: it cannot be paid, and fulfilling answers expired.
    expect(await sandbox.status(s.id)).toBe('canceled')
    expect(() => sandbox.pay(s.id)).toThrow()
    const late = await p.api('POST', '/v1/registrar/fulfill', { token: await widgetToken(p, ws), body: { session_id: s.id } })
    expect(late.status).toBe(409)
    expect(late.body.details.reason).toBe('expired')
    expect(sandbox.capturesOf(s.id)).toBe(0)
    expect(await expireUnpaid({ db: p.db, clock: p.clock })).toBe(0)
  })
})

describe('purchasing disabled', () => {
  test('purchase routes answer 503 service_unavailable; search stays open', async () => {
    const shared = await sharedPortico()
    const w = await provision(shared)
    const tok = await widgetToken(shared, w)
    const calls: [string, unknown, Record<string, string>?][] = [
      ['/v1/registrar/quote', { domain: 'example.com' }],
      ['/v1/registrar/checkout', { domain: 'example.com', buyer: { email: 'b@example.com' }, return_url: 'https://x.example/' }],
      ['/v1/registrar/fulfill', { session_id: 'cs_sbx_none' }],
      ['/v1/registrar/purchase', { domain: 'example.com', buyer: { email: 'b@example.com' }, payment_method: 'pm_card_visa' }, { 'idempotency-key': 'k1' }],
    ]
    for (const [path, body, headers] of calls) {
      const r = await shared.api('POST', path, { token: tok, body, headers })
      expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 503, code: 'service_unavailable' })
    }
    expect((await shared.api('POST', '/v1/registrar/search', { token: tok, body: { query: 'example.com' } })).status).toBe(200)
  })
})

describe('Stripe webhook verification (no network)', () => {
  test('a Stripe-signed event is read; a tampered one is refused', async () => {
    const { default: Stripe } = await import('stripe')
    const { StripePayments } = await import('../../src/adapters/payments/stripe.ts')
    const { WebhookSignatureError } = await import('../../src/adapters/payments/index.ts')
    const stripe = new StripePayments('sk_test_portico', 'whsec_portico')
    const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.amount_capturable_updated', data: { object: { id: 'pi_123', object: 'payment_intent' } } })
    const header = await new Stripe('sk_test_portico').webhooks.generateTestHeaderStringAsync({ payload, secret: 'whsec_portico' })
    expect(await stripe.parseWebhook(payload, new Headers({ 'stripe-signature': header }))).toEqual({ kind: 'payment_authorized', paymentId: 'pi_123' })
    const tampered = payload.replace('pi_123', 'pi_999')
    await expect(stripe.parseWebhook(tampered, new Headers({ 'stripe-signature': header }))).rejects.toBeInstanceOf(WebhookSignatureError)
  })
})
