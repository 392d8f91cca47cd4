// The Name.com registrar adapter against a stand-in written from Name.com's published API reference
// (core API v1: the reference of its official SDKs, github.com/namedotcom/core-api-php, see
// test/harness/namecom.ts): availability and premium prices, an idempotent create, lookup through the
// paged order list, one test per documented error, and Sell end to end with REGISTRAR=namecom.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { NamecomRegistrar } from '../../src/adapters/registrar/namecom.ts'
import { RegistrarError, type RegistrarReason } from '../../src/adapters/registrar/index.ts'
import { NAMECOM_NAMESERVERS, PREMIUM_USD, PRICES_USD, startNamecom, type NamecomStandIn } from '../harness/namecom.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import type { SandboxPayments } from '../../src/adapters/payments/sandbox.ts'
import { STALL_MS, resumeStalled } from '../../src/domain/sell.ts'
import { testDatabaseUrl } from '../harness/db.ts'

let api: NamecomStandIn
let registrar: NamecomRegistrar
let seq = 0
const fresh = (word = 'name') => `${word}${Date.now().toString(36)}${++seq}.com`
const settings = () => ({ apiUrl: api.url, username: api.username, token: api.token })

beforeAll(() => {
  api = startNamecom()
  registrar = new NamecomRegistrar(settings())
})

afterAll(() => api?.stop())

describe('availability and prices', () => {
  test('a regular name is priced from getPricing; a premium one from its availability answer', async () => {
    const regular = await registrar.check(fresh())
    expect(regular).toMatchObject({ available: true, premium: false, price_cents: Math.round(PRICES_USD.com! * 100), currency: 'usd' })
    expect(api.calls.some((c) => c.endsWith(':getPricing'))).toBe(true)
    const premium = await registrar.check(fresh('premium'))
    expect(premium).toMatchObject({ available: true, premium: true, price_cents: PREMIUM_USD * 100 })
  })

  test('taken, aftermarket and unsold TLDs cannot be bought; suggestions are purchasable names', async () => {
    expect((await registrar.check(fresh('taken'))).available).toBe(false)
    expect((await registrar.check(fresh('aftermarket'))).available).toBe(false)
    expect(await registrar.check(`x${Date.now()}.xyz`)).toMatchObject({ available: false, price_cents: null })
    const suggestions = await registrar.suggest(fresh('taken'), 3)
    expect(suggestions.length).toBe(3)
    expect(suggestions.every((s) => s.available && s.price_cents! > 0)).toBe(true)
  })
})

describe('register and lookup', () => {
  test('a create is idempotent per order: the retry answers the first order and charges once', async () => {
    const domain = fresh()
    const before = api.account.balance
    const first = await registrar.register({ domain, years: 2, email: 'b@example.com', reference: 'ord_idem_1' })
    expect(first).toEqual({ ok: true, orderId: expect.stringMatching(/^\d+$/), nameservers: NAMECOM_NAMESERVERS })
    const again = await registrar.register({ domain, years: 2, email: 'b@example.com', reference: 'ord_idem_1' })
    expect(again).toEqual(first)
    expect(before - api.account.balance).toBeCloseTo(PRICES_USD.com! * 2)
    // Another order for the same name is refused: it is registered now.
    expect(await registrar.register({ domain, years: 1, email: 'b@example.com', reference: 'ord_idem_2' })).toMatchObject({ ok: false, code: 'unavailable' })
  })

  test('a premium create carries the quoted price; a changed price is refused before any charge', async () => {
    const domain = fresh('premium')
    const quote = await registrar.check(domain)
    api.premiumUsd = PREMIUM_USD + 100
    try {
      expect(await registrar.register({ domain, years: 1, email: 'b@example.com', reference: 'ord_prem_1', priceCents: quote.price_cents! })).toMatchObject({ ok: false, code: 'price_mismatch' })
    } finally {
      api.premiumUsd = PREMIUM_USD
    }
    expect(await registrar.register({ domain, years: 1, email: 'b@example.com', reference: 'ord_prem_2', priceCents: quote.price_cents! })).toMatchObject({ ok: true })
  })

  test('lookup walks the paged order list to the order that registered the name', async () => {
    const paged = new NamecomRegistrar(settings(), 2)
    const first = fresh()
    const reg = await paged.register({ domain: first, years: 1, email: 'b@example.com', reference: 'ord_page_0' })
    for (let i = 1; i <= 5; i++) await paged.register({ domain: fresh(), years: 1, email: 'b@example.com', reference: `ord_page_${i}` })
    const before = api.calls.length
    const found = await paged.lookup({ domain: first, reference: 'ord_page_0' })
    expect(found).toEqual({ registered: true, orderId: (reg as { orderId: string }).orderId, nameservers: NAMECOM_NAMESERVERS })
    const pages = api.calls.slice(before).filter((c) => c === 'GET /core/v1/orders')
    expect(pages.length).toBeGreaterThan(2)
    expect(await paged.lookup({ domain: fresh(), reference: 'ord_none' })).toEqual({ registered: false })
  })
})

describe('every documented error, mapped to a typed reason', () => {
  const refused = async (domain: string, code: RegistrarReason, on: NamecomRegistrar = registrar) => {
    expect(await on.register({ domain, years: 1, email: 'b@example.com', reference: `ord_${domain}` })).toMatchObject({ ok: false, code })
  }
  const thrown = async (call: () => Promise<unknown>, reason: RegistrarReason) => {
    const err = await call().then(() => null, (e: unknown) => e)
    expect(err).toBeInstanceOf(RegistrarError)
    expect((err as RegistrarError).reason).toBe(reason)
  }

  test('400 Invalid Argument: a name that is not a valid label is refused', () => refused(`bad_label${++seq}.com`, 'invalid_request'))
  test('400 Purchase price does not match: the premium price moved between check and create', async () => {
    const domain = fresh('premium')
    // The stand-in answers the check at one price and changes it before the create arrives.
    const check = registrar.check.bind(registrar)
    registrar.check = async (d) => {
      const offer = await check(d)
      api.premiumUsd = PREMIUM_USD + 1
      return offer
    }
    try {
      await refused(domain, 'price_mismatch')
    } finally {
      registrar.check = check
      api.premiumUsd = PREMIUM_USD
    }
    expect(api.account.domains.has(domain)).toBe(false)
  })
  test('401 Unauthenticated: bad credentials are thrown, never a refusal', async () => {
    const wrong = new NamecomRegistrar({ ...settings(), token: 'wrong' })
    await thrown(() => wrong.check(fresh()), 'unauthorized')
    await thrown(() => wrong.register({ domain: fresh(), years: 1, email: 'b@example.com', reference: 'ord_401' }), 'unauthorized')
  })
  test('402 Payment Required: the reseller balance is short', async () => {
    const balance = api.account.balance
    api.account.balance = 1
    try {
      await refused(fresh(), 'insufficient_funds')
    } finally {
      api.account.balance = balance
    }
  })
  test('403 Permission Denied: a TLD the account may not sell', () => refused(`shop${++seq}.bank`, 'forbidden'))
  test('404 Not Found: lookup of a name not in the account answers not registered', async () => {
    expect(await registrar.lookup({ domain: fresh(), reference: 'ord_404' })).toEqual({ registered: false })
  })
  test('405 Method Not Allowed', async () => {
    api.failNext(405)
    await thrown(() => registrar.check(fresh()), 'unsupported')
  })
  test('409 Conflict: the name is registered already', () => refused(fresh('taken'), 'unavailable'))
  test('423 Locked: the name is locked at the registry', () => refused(fresh('locked'), 'locked'))
  test('429 Too Many Requests: thrown, so the order waits for the resume sweep', async () => {
    api.failNext(429, 2)
    await thrown(() => registrar.check(fresh()), 'rate_limited')
    await thrown(() => registrar.lookup({ domain: fresh(), reference: 'ord_429' }), 'rate_limited')
  })
  for (const status of [500, 502, 504]) {
    test(`${status} from the registrar during a create is thrown: the outcome is unknown`, async () => {
      const domain = fresh()
      const check = registrar.check.bind(registrar)
      // The availability check passes; the create meets the failure.
      registrar.check = async (d) => {
        const offer = await check(d)
        api.failNext(status)
        return offer
      }
      try {
        await thrown(() => registrar.register({ domain, years: 1, email: 'b@example.com', reference: `ord_${status}` }), 'registry_error')
      } finally {
        registrar.check = check
      }
    })
  }
  test('501 Not Implemented: a refusal', async () => {
    const check = registrar.check.bind(registrar)
    registrar.check = async (d) => {
      const offer = await check(d)
      api.failNext(501)
      return offer
    }
    try {
      await refused(fresh(), 'unsupported')
    } finally {
      registrar.check = check
    }
  })
  test('no answer at all is unreachable', async () => {
    const dead = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const url = `http://127.0.0.1:${dead.port}`
    dead.stop(true)
    await thrown(() => new NamecomRegistrar({ ...settings(), apiUrl: url }).check(fresh()), 'unreachable')
  })
})

describe('Sell with REGISTRAR=namecom', () => {
  let p: TestPortico
  let ws: Workspace
  let sandbox: SandboxPayments

  const env = () => ({ SELL_PURCHASE_ENABLED: '1', EDGE_CNAME_TARGET: 'edge.portico.test', REGISTRAR: 'namecom', NAMECOM_API_URL: api.url, NAMECOM_USERNAME: api.username, NAMECOM_API_TOKEN: api.token })

  beforeAll(async () => {
    p = await startPortico(env())
    ws = await provision(p)
    sandbox = p.services.payments as SandboxPayments
  })
  afterAll(async () => {
    await p?.close()
  })

  const buy = async (domain: string, key = `k-${domain}`) =>
    p.api('POST', '/v1/registrar/purchase', { token: await widgetToken(p, ws), headers: { 'idempotency-key': key }, body: { domain, buyer: { email: 'b@example.com' }, payment_method: 'pm_card_visa' } })

  test('search shows the premium price; a purchase registers at Name.com and captures once', async () => {
    const s = await p.api('POST', '/v1/registrar/search', { token: ws.apiKey, body: { query: fresh('premium') } })
    expect(s.body).toMatchObject({ available: true, premium: true, price_cents: PREMIUM_USD * 100 })
    const domain = fresh()
    const before = sandbox.captures
    const r = await buy(domain)
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ Domain: domain, Registrar: 'namecom', RegOrderID: String(api.account.domains.get(domain)!.order) })
    expect(sandbox.captures - before).toBe(1)
  })

  test('a refusal fails the order with the typed reason and releases the card; a registrar outage is 503', async () => {
    const balance = api.account.balance
    api.account.balance = 0
    let r
    try {
      r = await buy(fresh())
    } finally {
      api.account.balance = balance
    }
    expect(r.status).toBe(409)
    expect(r.body.details).toMatchObject({ reason: 'registration_failed', registrar_reason: 'insufficient_funds', released: true })
    api.failNext(502)
    const down = await p.api('POST', '/v1/registrar/search', { token: ws.apiKey, body: { query: fresh() } })
    expect(down.status).toBe(503)
    expect(down.body).toMatchObject({ code: 'service_unavailable', details: { reason: 'registrar_unavailable', registrar_reason: 'registry_error' } })
  })

  test('a create whose answer was lost: the order waits in registering, and the resume sweep finds it and captures once', async () => {
    const domain = fresh()
    api.loseNextCreate = true
    const before = sandbox.captures
    const r = await buy(domain)
    expect(r.status).toBe(409)
    expect(r.body.details.reason).toBe('registration_pending')
    const [o] = await p.db`select * from sell_orders where domain = ${domain}`
    expect(o.status).toBe('registering')
    expect(api.account.domains.has(domain)).toBe(true)
    p.clock.advance(STALL_MS + 1000)
    await resumeStalled({ db: p.db, clock: p.clock, config: p.config, payments: sandbox, registrar: p.services.registrar! })
    const [done] = await p.db`select * from sell_orders where domain = ${domain}`
    expect(done).toMatchObject({ status: 'completed', registrar: 'namecom', reg_order_id: String(api.account.domains.get(domain)!.order) })
    expect(sandbox.captures - before).toBe(1)
    // One registration at Name.com: the lookup found it, nothing was created twice.
    expect(api.account.orders.filter((x) => x.orderItems[0]!.name === domain).length).toBe(1)
    const replay = await buy(domain)
    expect(replay.status).toBe(201)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
  })

  test('a process killed with SIGKILL while its create is at Name.com: the restart finds the registration and captures once', async () => {
    const domain = fresh()
    let arrived!: () => void
    let release!: () => void
    const atRegistrar = new Promise<void>((r) => (arrived = r))
    const held = new Promise<void>((r) => (release = r))
    api.onCreate = async () => {
      arrived()
      await held
    }
    const setpriv = Bun.which('setpriv')
    const cmd = [process.execPath, 'test/harness/sell-child.ts']
    const child = Bun.spawn(setpriv ? [setpriv, '--pdeathsig', 'KILL', ...cmd] : cmd, {
      env: {
        ...process.env,
        PORTICO_CHILD_ENV: JSON.stringify(env()),
        PORTICO_CHILD_DB: await testDatabaseUrl(),
        PORTICO_CHILD_PURCHASE: JSON.stringify({ token: await widgetToken(p, ws), key: `kill-${domain}`, body: { domain, buyer: { email: 'b@example.com' }, payment_method: 'pm_card_visa' } }),
      },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    let inFlight: { payment_id: string; price_cents: number; years: number }
    try {
      await Promise.race([atRegistrar, child.exited.then(async () => Promise.reject(new Error(`the child exited before its create reached Name.com: ${await new Response(child.stderr).text()}`)))])
      inFlight = ((await p.db`select * from sell_orders where domain = ${domain}`) as (typeof inFlight)[])[0]!
      expect(inFlight).toMatchObject({ status: 'registering', captured_at: null })
      child.kill('SIGKILL')
      expect(await child.exited).not.toBe(0)
      expect(await new Response(child.stdout).text()).toBe('')
    } finally {
      // Name.com finishes the registration; nobody is left to hear the answer.
      api.onCreate = null
      release()
    }
    while (!api.account.domains.has(domain)) await Bun.sleep(10)
    // The restarted process is this one. The processor keeps the authorization across our restarts;
    // the sandbox keeps it in the dead process's memory, so it is handed over.
    sandbox.adopt(inFlight.payment_id, inFlight.price_cents * inFlight.years)
    const [left] = await p.db`select * from sell_orders where domain = ${domain}`
    expect(left.status).toBe('registering')
    p.clock.advance(STALL_MS + 1000)
    await resumeStalled({ db: p.db, clock: p.clock, config: p.config, payments: sandbox, registrar: p.services.registrar! })
    const [done] = await p.db`select * from sell_orders where domain = ${domain}`
    expect(done).toMatchObject({ status: 'completed', reg_order_id: String(api.account.domains.get(domain)!.order) })
    expect(sandbox.capturesOf(inFlight.payment_id)).toBe(1)
    expect(api.account.orders.filter((x) => x.orderItems[0]!.name === domain).length).toBe(1)
    await resumeStalled({ db: p.db, clock: p.clock, config: p.config, payments: sandbox, registrar: p.services.registrar! })
    expect(sandbox.capturesOf(inFlight.payment_id)).toBe(1)
  })
})
