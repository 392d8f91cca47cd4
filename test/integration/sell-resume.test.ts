// Sell's crash paths: a process that dies while an order is `registering` or `registered` leaves it
// to the sell-resume sweep, which asks the registrar whether the name was registered for the order,
// then captures exactly once or releases. Deaths are failpoints (src/failpoints.ts) thrown at the
// step where a process would die: nothing after them runs, as after a SIGKILL; the "restart" is the
// sweep run once the order has been untouched for STALL_MS.
import { describe, test, expect, beforeAll, afterAll, afterEach } from 'bun:test'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import type { SandboxPayments } from '../../src/adapters/payments/sandbox.ts'
import type { SandboxRegistrar } from '../../src/adapters/registrar/sandbox.ts'
import { AUTHORIZATION_HOLD_MS, RELEASE_MARGIN_MS, STALL_MS, resumeStalled, type SellDeps } from '../../src/domain/sell.ts'
import { arm, disarm } from '../../src/failpoints.ts'

let p: TestPortico
let ws: Workspace
let sandbox: SandboxPayments
let registrar: SandboxRegistrar
let deps: SellDeps
let seq = 0
const fresh = () => `resume${Date.now().toString(36)}${++seq}.com`

beforeAll(async () => {
  p = await startPortico({ SELL_PURCHASE_ENABLED: '1', EDGE_CNAME_TARGET: 'edge.portico.test' })
  ws = await provision(p)
  sandbox = p.services.payments as SandboxPayments
  registrar = p.services.registrar as SandboxRegistrar
  deps = { db: p.db, clock: p.clock, config: p.config, payments: sandbox, registrar }
})

afterAll(async () => {
  await p?.close()
})

afterEach(() => {
  for (const f of ['sell.after_register', 'sell.after_capture']) disarm(f)
})

/** A paid checkout: an order authorized at the processor, not yet fulfilled. */
async function paid(domain = fresh()) {
  const r = await p.api('POST', '/v1/registrar/checkout', { token: await widgetToken(p, ws), body: { domain, buyer: { email: 'buyer@example.com' }, return_url: 'https://shop.example/done' } })
  expect(r.status).toBe(200)
  sandbox.pay(r.body.id)
  return { sessionId: r.body.id as string, orderId: r.body.order_id as string, domain }
}

// A widget token is minted at the clock's time: a fresh one for each call, as the clock moves by days.
const fulfill = async (session_id: string) => p.api('POST', '/v1/registrar/fulfill', { token: await widgetToken(p, ws), body: { session_id } })
const order = async (id: string) => ((await p.db`select * from sell_orders where id = ${id}`) as any[])[0]
const eventTypes = async (id: string) => ((await p.db`select type from events where payload->'data'->>'order_id' = ${id} order by id`) as { type: string }[]).map((e) => e.type)

describe('a process killed in flight', () => {
  test('killed after the registrar registered: the restart finds the registration and captures once', async () => {
    const s = await paid()
    arm('sell.after_register')
    expect((await fulfill(s.sessionId)).status).toBe(500)
    disarm('sell.after_register')
    expect((await order(s.orderId)).status).toBe('registering')
    expect(await registrar.lookup({ domain: s.domain, reference: s.orderId })).toMatchObject({ registered: true })
    // Not yet stalled: a sweep leaves an order another process may still hold.
    await resumeStalled(deps)
    expect((await order(s.orderId)).status).toBe('registering')
    p.clock.advance(STALL_MS + 1000)
    // Two sweeps at once (two workers): one leases the order, the other passes it by.
    await Promise.all([resumeStalled(deps), resumeStalled(deps)])
    const o = await order(s.orderId)
    expect(o).toMatchObject({ status: 'completed', registrar: 'sandbox' })
    expect(o.captured_at).not.toBeNull()
    expect(sandbox.capturesOf(s.sessionId)).toBe(1)
    expect(await sandbox.status(s.sessionId)).toBe('captured')
    expect(await eventTypes(s.orderId)).toEqual(['domain.purchased'])
    const replay = await fulfill(s.sessionId)
    expect(replay.status).toBe(200)
    expect(replay.body).toMatchObject({ Domain: s.domain, status: 'completed', RegOrderID: o.reg_order_id })
    await resumeStalled(deps)
    expect(sandbox.capturesOf(s.sessionId)).toBe(1)
  })

  test('killed after the capture: the restart completes without capturing again', async () => {
    const s = await paid()
    arm('sell.after_capture')
    expect((await fulfill(s.sessionId)).status).toBe(500)
    disarm('sell.after_capture')
    expect((await order(s.orderId)).status).toBe('registered')
    expect(sandbox.capturesOf(s.sessionId)).toBe(1)
    p.clock.advance(STALL_MS + 1000)
    await resumeStalled(deps)
    expect((await order(s.orderId)).status).toBe('completed')
    expect(sandbox.capturesOf(s.sessionId)).toBe(1)
    expect(await eventTypes(s.orderId)).toEqual(['domain.purchased'])
    const [{ n }] = await p.db`select count(*)::int as n from connections where domain = ${s.domain}`
    expect(n).toBe(1)
  })

  test('the registrar never answered: the restart finds nothing registered and registers under the same key', async () => {
    const s = await paid()
    const register = registrar.register
    registrar.register = async () => {
      throw new Error('socket hang up')
    }
    try {
      const r = await fulfill(s.sessionId)
      expect(r.status).toBe(409)
      expect(r.body.details).toMatchObject({ reason: 'registration_pending', order_id: s.orderId })
    } finally {
      registrar.register = register
    }
    expect((await order(s.orderId)).status).toBe('registering')
    p.clock.advance(STALL_MS + 1000)
    await resumeStalled(deps)
    expect((await order(s.orderId)).status).toBe('completed')
    expect(sandbox.capturesOf(s.sessionId)).toBe(1)
  })
})

describe('an authorization near its end', () => {
  test('is released before the processor voids it, and the order fails with purchase.error', async () => {
    const s = await paid()
    const register = registrar.register
    registrar.register = async () => {
      throw new Error('registrar timeout')
    }
    try {
      expect((await fulfill(s.sessionId)).status).toBe(409)
      // The registrar stays silent for days; each sweep asks again and finds nothing.
      p.clock.advance(STALL_MS + 1000)
      await resumeStalled(deps)
      expect((await order(s.orderId)).status).toBe('registering')
      p.clock.advance(AUTHORIZATION_HOLD_MS - RELEASE_MARGIN_MS)
      await resumeStalled(deps)
    } finally {
      registrar.register = register
    }
    const o = await order(s.orderId)
    expect(o).toMatchObject({ status: 'failed', error_code: 'authorization_expiring' })
    expect(o.released_at).not.toBeNull()
    expect(o.captured_at).toBeNull()
    expect(await sandbox.status(s.sessionId)).toBe('canceled')
    expect(sandbox.capturesOf(s.sessionId)).toBe(0)
    expect(await eventTypes(s.orderId)).toEqual(['purchase.error'])
    const r = await fulfill(s.sessionId)
    expect(r.status).toBe(409)
    expect(r.body.details).toMatchObject({ reason: 'authorization_expiring', released: true })
  })

  test('a registered order is captured even near the end of its hold', async () => {
    const s = await paid()
    arm('sell.after_register')
    expect((await fulfill(s.sessionId)).status).toBe(500)
    disarm('sell.after_register')
    p.clock.advance(AUTHORIZATION_HOLD_MS - RELEASE_MARGIN_MS + 1000)
    await resumeStalled(deps)
    expect((await order(s.orderId)).status).toBe('completed')
    expect(sandbox.capturesOf(s.sessionId)).toBe(1)
  })
})
