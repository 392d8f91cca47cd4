// Sell (the API contract, sections 3 "Purchase order", 4 "Registrar", 6): quotes, checkout, and fulfilment
// that registers before it captures. The order row is the state machine (migrations/0007); every move
// is one guarded update, so concurrent requests and webhooks race safely. Each write is a transaction
// of its own (`deps.db.begin`): called from an operation, it commits with the operation's audit row.
// Invariants:
// - only the caller whose update moves an order authorized → registering registers and captures;
//   everyone else waits for the outcome and replays it: no path captures twice;
// - capture happens only after the order is `registered`; a refused registration releases the
//   authorization and emits `purchase.error`; success emits `domain.purchased` and connects the domain;
// - an unpaid quote or checkout older than QUOTE_TTL_MS expires with `purchase.confirmation.expired`;
// - an order left in `authorized`, `registering` or `registered` by a process that died is resumed by
//   the sell-resume sweep (resumeStalled): it asks the registrar whether the name was registered for
//   this order, then captures (once: the processor's own state says whether a capture happened) or
//   releases; an authorization near the end of its hold is released before the processor voids it.
//   Each step after the claim is guarded by `updated_at` (a lease): a resumer and a late original
//   never both act on one order.
import { createHash } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { DAY, HOUR } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import {
  claimAuthorized,
  claimStalledAuthorized,
  expireUnpaidBatch,
  insertOrder,
  leaseStalled,
  lockRegistered,
  orderById,
  orderOfKey,
  orderOfPayment,
  setAuthorized,
  setCheckoutSession,
  setCompleted,
  setOrderFailed,
  setPayment,
  setRegistered,
  stalledOrders,
  takeOpenQuote,
  type OrderRow,
  type OrderStatus,
} from '../db/sell-orders.ts'
import { newId } from '../ids.ts'
import { log, errorFields } from '../logger.ts'
import { failpoint } from '../failpoints.ts'
import { ApiError, type ErrorCode, type ErrorDetails, type ErrorReason } from '../errors.ts'
import type { Payments } from '../adapters/payments/index.ts'
import { RegistrarError, type Lookup, type Offer, type Registrar, type Registration } from '../adapters/registrar/index.ts'
import { openConnection } from './connect.ts'
import { effectiveTarget } from './connections.ts'
import { emit, orderEnvelope, type EventData, type OrderEventType } from './events.ts'
import { parseDomain } from './hostnames.ts'
import type { Provider } from './providers.ts'
import { getApplicationInTenant } from './tenancy.ts'

export const QUOTE_TTL_MS = DAY
/** How long a concurrent caller waits for the fulfilment another request is running. */
const WAIT_MS = 15_000
/** An in-flight order untouched this long lost the process that held it (registrar calls time out well before). */
export const STALL_MS = 5 * 60_000
/** How long a processor holds a manual-capture authorization before voiding it (card payments online: 7 days). */
export const AUTHORIZATION_HOLD_MS = 7 * DAY
/** An authorization this close to its end is released rather than left to be voided under a registration. */
export const RELEASE_MARGIN_MS = 12 * HOUR


export interface SellDeps {
  db: Sql
  clock: Clock
  /** The platform edge a bought domain's records point at by default. */
  config: { edge: { cnameTarget: string; apexIpv4: string[] } }
  payments: Payments
  registrar: Registrar
}

export const orderOut = (o: OrderRow) => ({
  id: o.id,
  application_id: o.application_id,
  domain: o.domain,
  years: o.years,
  amount_cents: o.price_cents * o.years,
  currency: o.currency,
  premium: o.premium,
  status: o.status,
  buyer_email: o.buyer_email,
  session_id: o.session_id,
  registrar: o.registrar,
  reg_order_id: o.reg_order_id,
  connection_id: o.connection_id,
  error_code: o.error_code,
  error_message: o.error_message,
  expires_at: o.expires_at,
  authorized_at: o.authorized_at,
  captured_at: o.captured_at,
  released_at: o.released_at,
  created_at: o.created_at,
  updated_at: o.updated_at,
})

/** A registrable name (an apex under a public suffix), lower-cased; null when it is not one. */
export function registrableName(input: string): string | null {
  const parsed = parseDomain(input)
  return parsed && parsed.isApex && !parsed.platform ? parsed.domain : null
}

async function emitOrder<T extends OrderEventType>(sql: Sql, o: OrderRow, type: T, now: Date, data: Omit<EventData<T>, 'order_id' | 'amount_cents' | 'currency' | 'years'>, connectionId: string | null = null) {
  const full = { order_id: o.id, amount_cents: o.price_cents * o.years, currency: o.currency, years: o.years, ...data } as EventData<T>
  await emit(sql, o.tenant_id, o.application_id, connectionId, orderEnvelope(o, type, now, full, connectionId))
}

/** A registrar read (availability, price, suggestions); a registrar that fails is 503 with its typed reason. */
export async function askRegistrar<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (!(err instanceof RegistrarError)) throw err
    log.warn('registrar call failed', errorFields(err))
    throw new ApiError('service_unavailable', 'The registrar did not answer; try again shortly', { reason: 'registrar_unavailable', registrar_reason: err.reason })
  }
}

/** A quote: a priced order valid for a day. Unavailable names are 409 with the registrar's answer. */
export async function createQuote(
  deps: Pick<SellDeps, 'db' | 'clock'>,
  app: { id: string; tenant_id: string },
  offer: Offer,
  years: number,
  extra: { status?: OrderStatus; email?: string; idempotencyKey?: string; requestHash?: string } = {},
): Promise<OrderRow | undefined> {
  if (!offer.available || offer.price_cents === null) throw new ApiError('conflict', `${offer.domain} is not available to buy`, { domain: offer.domain, available: false })
  const now = deps.clock.now()
  const price = offer.price_cents
  return deps.db.begin((tx) =>
    insertOrder(tx, {
      id: newId('ord', now.getTime()),
      tenant_id: app.tenant_id,
      application_id: app.id,
      domain: offer.domain,
      years,
      price_cents: price,
      currency: offer.currency,
      premium: offer.premium,
      status: extra.status ?? 'quoted',
      buyer_email: extra.email ?? null,
      idempotency_key: extra.idempotencyKey ?? null,
      request_hash: extra.requestHash ?? null,
      expires_at: new Date(now.getTime() + QUOTE_TTL_MS),
    }, now),
  )
}

/**
 * Checkout: the application's open quote for the name (or a fresh one) becomes `pending_payment` with
 * an authorization-only payment at the retail price.
 */
export async function startCheckout(deps: SellDeps, app: { id: string; tenant_id: string }, domain: string, years: number, email: string, returnUrl: string): Promise<{ order: OrderRow; session: { id: string; url: string; client_secret: string } }> {
  const now = deps.clock.now()
  const quoted = await deps.db.begin((tx) => takeOpenQuote(tx, app, domain, years, email, now))
  const order = quoted ?? (await createQuote(deps, app, await askRegistrar(() => deps.registrar.check(domain)), years, { status: 'pending_payment', email }))!
  const session = await deps.payments.checkout({
    amountCents: order.price_cents * order.years,
    currency: order.currency,
    email,
    description: `${order.domain} (${order.years} year${order.years > 1 ? 's' : ''})`,
    returnUrl,
    reference: order.id,
  })
  const at = deps.clock.now()
  const updated = await deps.db.begin((tx) => setCheckoutSession(tx, order, session.id, deps.payments.name, at))
  return { order: updated, session }
}

export interface Fulfilment {
  created: boolean
  status: number
  body: Record<string, unknown>
}

const TERMINAL: OrderStatus[] = ['completed', 'failed', 'expired']

/** The stored answer of a finished order: its result, or its error thrown again. */
function outcomeOf(o: OrderRow): Fulfilment {
  if (o.status === 'completed' && o.result) return { created: false, status: o.result_status ?? 201, body: o.result }
  if (o.status === 'expired') throw new ApiError('conflict', 'This checkout expired unpaid; quote again', { order_id: o.id, reason: 'expired' })
  // The stored answer was built by failOrder below, with a catalogue reason.
  const r = (o.result ?? {}) as { code?: ErrorCode; title?: string; details?: ErrorDetails }
  throw new ApiError(r.code ?? 'conflict', r.title ?? 'The purchase failed', r.details ?? { order_id: o.id, reason: (o.error_code ?? undefined) as ErrorReason | undefined })
}

async function waitForOutcome(deps: Pick<SellDeps, 'db'>, id: string): Promise<Fulfilment> {
  const deadline = performance.now() + WAIT_MS
  for (;;) {
    const o = (await orderById(deps.db, id))!
    if (TERMINAL.includes(o.status)) return outcomeOf(o)
    if (performance.now() > deadline) throw new ApiError('conflict', 'This purchase is still being fulfilled; retry shortly', { order_id: id, status: o.status })
    await Bun.sleep(25)
  }
}

/** Marks an order failed with the answer every later replay gives, and emits `purchase.error`. */
async function failOrder(deps: Pick<SellDeps, 'db' | 'clock'>, o: OrderRow, from: OrderStatus[], reason: ErrorReason, title: string, released: boolean, extra: Record<string, unknown> = {}): Promise<void> {
  const now = deps.clock.now()
  const details = { order_id: o.id, domain: o.domain, reason, released, ...extra }
  await deps.db.begin(async (tx) => {
    const row = await setOrderFailed(tx, o, from, { reason, title, result: { code: 'conflict', title, details }, released }, now)
    if (row) await emitOrder(tx, row, 'purchase.error', now, { reason, error_message: title, released, ...extra })
  })
}

/** Has the processor hold the money? Moves pending_payment → authorized, or fails a declined order. */
async function settleAuthorization(deps: SellDeps, o: OrderRow): Promise<void> {
  if (o.status === 'quoted' || (o.status === 'pending_payment' && !o.payment_id)) {
    throw new ApiError('conflict', 'No payment was started for this order; check out first', { order_id: o.id, reason: 'no_payment' })
  }
  if (o.status !== 'pending_payment' || !o.payment_id) return
  const status = await deps.payments.status(o.payment_id)
  if (status === 'requires_capture') {
    const now = deps.clock.now()
    await deps.db.begin((tx) => setAuthorized(tx, o, now))
  } else if (status === 'failed' || status === 'canceled') {
    await failOrder(deps, o, ['pending_payment'], 'payment_failed', 'The card was declined', false)
  } else {
    throw new ApiError('conflict', 'The payment is not authorized yet; complete the checkout first', { order_id: o.id, payment_status: status })
  }
}

/** The registrar's DNS as a provider, so a purchased apex is planned with its ALIAS-style record. */
function registrarDns(r: Registrar): Provider {
  return {
    id: `registrar-${r.name}`,
    name: `${r.name} registrar DNS`,
    nameserver_patterns: r.dns.nameservers,
    dashboard_url: '',
    rank: 0,
    logo: null,
    token_url: null,
    token_scopes: [],
    credential: null,
    built: { api_credential: false, oauth: false },
    audience: 'integrator',
    shares_nameservers_with: null,
    capabilities: { api_apply: false, oauth: false, domain_connect: { sync: false, async: false }, apex: r.dns.apex, wildcard: true, caa: true, mx: true, spf_override: false, subdomain_delegation: true },
    manual_steps: [],
  }
}

/**
 * Fulfils an order: verify the authorization, register, capture, connect. Safe to call any number of
 * times from any number of places (the widget, the purchase call, processor webhooks): the first
 * completes it (created: true), the others replay its outcome.
 */
export async function fulfillOrder(deps: SellDeps, orderId: string): Promise<Fulfilment> {
  const o = (await orderById(deps.db, orderId))!
  if (TERMINAL.includes(o.status)) return outcomeOf(o)
  await settleAuthorization(deps, o)
  const now = deps.clock.now()
  const claimed = await deps.db.begin((tx) => claimAuthorized(tx, o, now))
  if (!claimed) return waitForOutcome(deps, o.id)
  return registerAndSettle(deps, claimed)
}

/** Releases the authorization (best effort: a hold lapses on its own) and fails the order. */
async function releaseAndFail(deps: SellDeps, o: OrderRow, reason: ErrorReason, title: string, extra: Record<string, unknown> = {}): Promise<void> {
  let released = false
  try {
    await deps.payments.release(o.payment_id!)
    released = true
  } catch (err) {
    // The hold lapses at the processor on its own; the order still never captures.
    log.error('could not release an authorization', { order_id: o.id, ...errorFields(err) })
  }
  await failOrder(deps, o, [o.status], reason, title, released, extra)
}

/**
 * The holder of a `registering` order (`o` as its claim returned it) registers it, with the order id
 * as the registrar's idempotency key, unless `known` says the registrar has it already; then captures
 * and completes, or releases and fails. A registrar that does not answer leaves the order to the
 * resume sweep, which asks it what happened.
 */
async function registerAndSettle(deps: SellDeps, o: OrderRow, known?: Lookup): Promise<Fulfilment> {
  let reg: Registration
  try {
    reg = known?.registered ? { ok: true, orderId: known.orderId, nameservers: known.nameservers } : await deps.registrar.register({ domain: o.domain, years: o.years, email: o.buyer_email ?? '', reference: o.id, priceCents: o.price_cents })
  } catch (err) {
    log.warn('the registrar did not answer; the order will be resumed', { order_id: o.id, ...errorFields(err) })
    throw new ApiError('conflict', 'The registrar has not confirmed the registration yet; the purchase completes shortly', { order_id: o.id, reason: 'registration_pending' })
  }
  failpoint('sell.after_register')
  if (!reg.ok) {
    await releaseAndFail(deps, o, 'registration_failed', reg.reason, { registrar_reason: reg.code })
    return outcomeOf((await orderById(deps.db, o.id))!)
  }
  const now = deps.clock.now()
  const registered = await deps.db.begin((tx) => setRegistered(tx, o, deps.registrar.name, reg.orderId, now))
  // Another holder (a resumer, after this process looked dead) moved it: its outcome is the answer.
  if (!registered) return waitForOutcome(deps, o.id)
  return captureAndComplete(deps, registered, reg.nameservers)
}

/**
 * Captures a `registered` order's payment exactly once and completes it. The processor's own state
 * says whether an earlier holder captured before it died; the capture's idempotency key covers a
 * capture whose answer was lost.
 */
async function captureAndComplete(deps: SellDeps, o: OrderRow, nameservers: string[]): Promise<Fulfilment> {
  const status = await deps.payments.status(o.payment_id!)
  if (status === 'requires_capture') {
    await deps.payments.capture(o.payment_id!, `capture_${o.id}`)
  } else if (status !== 'captured') {
    // The processor voided the hold: the domain is registered and unpaid. An operator must look.
    log.error('a registered order lost its authorization', { order_id: o.id, payment_status: status })
    await failOrder(deps, o, ['registered'], 'authorization_voided', 'The payment authorization lapsed before it could be captured', false)
    return outcomeOf((await orderById(deps.db, o.id))!)
  }
  failpoint('sell.after_capture')
  return complete(deps, o, nameservers)
}

/** Captured: the order completes, the domain is connected and `domain.purchased` is emitted, in one transaction. */
async function complete(deps: SellDeps, o: OrderRow, nameservers: string[]): Promise<Fulfilment> {
  const now = deps.clock.now()
  const finished = await deps.db.begin(async (tx) => {
    // Only one completion connects the domain: the row is locked, and a finished one is left alone.
    if (!(await lockRegistered(tx, o))) return null
    const app = await getApplicationInTenant(tx, o.tenant_id, o.application_id)
    const parsed = parseDomain(o.domain)!
    const target = effectiveTarget(app, { cname_target: deps.config.edge.cnameTarget, apex_ipv4: deps.config.edge.apexIpv4 })
    const { row } = await openConnection(tx, now, app, target, parsed, { provider: registrarDns(deps.registrar), nameservers }, { endUserRef: null, wwwRedirect: false, records: null })
    const body = {
      Domain: o.domain,
      Registrar: deps.registrar.name,
      RegOrderID: o.reg_order_id!,
      order_id: o.id,
      status: 'completed',
      amount_cents: o.price_cents * o.years,
      currency: o.currency,
      connection_id: row.id,
    }
    const done = await setCompleted(tx, o, row, body, now)
    await emitOrder(tx, done, 'domain.purchased', now, { registrar: deps.registrar.name, reg_order_id: o.reg_order_id!, connection_id: row.id }, row.id)
    return { created: true, status: 201, body }
  })
  return finished ?? outcomeOf((await orderById(deps.db, o.id))!)
}

/** A processor said a payment is authorized or declined: drive the order it belongs to, if any. */
export async function onPaymentEvent(deps: SellDeps, e: { kind: 'payment_authorized' | 'payment_failed'; paymentId: string }): Promise<string | null> {
  const o = await orderOfPayment(deps.db, e.paymentId)
  if (!o) return null
  try {
    await fulfillOrder(deps, o.id)
  } catch (err) {
    // The outcome is on the order (failed, expired, or awaiting payment); the processor needs no retry.
    if (!(err instanceof ApiError)) throw err
  }
  return o.id
}

/** The hash an Idempotency-Key is bound to: the request body with its keys in a stable order. */
export function requestHash(body: unknown): string {
  const stable = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(stable) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, stable((v as Record<string, unknown>)[k])])) : v
  return createHash('sha256').update(JSON.stringify(stable(body))).digest('hex')
}

/**
 * `POST /registrar/purchase`: one call that quotes, authorizes with a payment method and fulfils,
 * bound to the Idempotency-Key. The same key with the same body replays the first answer (status and
 * body); the same key with another body is 422 `idempotency_key_reused`, and nothing is charged.
 */
export async function purchase(
  deps: SellDeps,
  app: { id: string; tenant_id: string },
  key: string,
  input: { domain: string; years: number; email: string; paymentMethod: string; hash: string },
): Promise<Fulfilment> {
  const prior = await orderOfKey(deps.db, app, key)
  const replay = async (o: OrderRow): Promise<Fulfilment> => {
    if (o.request_hash !== input.hash) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request', { idempotency_key: key, order_id: o.id, reason: 'idempotency_key_reused' })
    }
    const out = TERMINAL.includes(o.status) ? outcomeOf(o) : await waitForOutcome(deps, o.id)
    return { ...out, created: false }
  }
  if (prior) return replay(prior)
  const offer = await askRegistrar(() => deps.registrar.check(input.domain))
  const order = await createQuote(deps, app, offer, input.years, { status: 'pending_payment', email: input.email, idempotencyKey: key, requestHash: input.hash })
  if (!order) {
    // A concurrent request with the same key inserted first.
    const raced = await orderOfKey(deps.db, app, key)
    return replay(raced!)
  }
  const payment = await deps.payments.authorize({
    amountCents: order.price_cents * order.years,
    currency: order.currency,
    email: input.email,
    description: `${order.domain} (${order.years} year${order.years > 1 ? 's' : ''})`,
    paymentMethod: input.paymentMethod,
    reference: order.id,
    idempotencyKey: `authorize_${order.id}`,
  })
  const at = deps.clock.now()
  await deps.db.begin((tx) => setPayment(tx, order, payment.id, deps.payments.name, at))
  return fulfillOrder(deps, order.id)
}

/**
 * The expiry sweep: unpaid quotes and checkouts past their day become `expired` with
 * `purchase.confirmation.expired`, in batches under SKIP LOCKED. A checkout's payment is released
 * afterwards in case the buyer paid at the last moment.
 */
export async function expireUnpaid(deps: Pick<SellDeps, 'db' | 'clock'> & { payments?: Payments }, batch = 500): Promise<number> {
  let total = 0
  for (;;) {
    const now = deps.clock.now()
    const expired = await deps.db.begin(async (tx) => {
      const rows = await expireUnpaidBatch(tx, now, batch)
      for (const o of rows) await emitOrder(tx, o, 'purchase.confirmation.expired', now, { expired_at: now.toISOString(), quoted_at: new Date(o.created_at).toISOString() })
      return rows
    })
    for (const o of expired) {
      if (o.payment_id && deps.payments) await deps.payments.release(o.payment_id).catch(() => {})
    }
    total += expired.length
    if (expired.length < batch) return total
  }
}

const IN_FLIGHT: OrderStatus[] = ['authorized', 'registering', 'registered']

/** Has the authorization come within RELEASE_MARGIN_MS of the processor voiding it? */
function authorizationEnding(o: OrderRow, now: Date): boolean {
  return (o.authorized_at ?? o.created_at).getTime() + AUTHORIZATION_HOLD_MS - RELEASE_MARGIN_MS <= now.getTime()
}

/** Carries one stalled order (already leased by resumeStalled) to its end. */
async function resumeOrder(deps: SellDeps, o: OrderRow): Promise<void> {
  // Money taken at the registrar is owed: a registered order captures even near the end of its hold.
  if (o.status === 'registered') {
    await captureAndComplete(deps, o, deps.registrar.dns.nameservers)
    return
  }
  const found: Lookup = o.status === 'registering' ? await deps.registrar.lookup({ domain: o.domain, reference: o.id }) : { registered: false }
  if (found.registered) {
    await registerAndSettle(deps, o, found)
    return
  }
  if (authorizationEnding(o, deps.clock.now())) {
    await releaseAndFail(deps, o, 'authorization_expiring', 'The payment authorization was about to lapse before the domain was registered')
    return
  }
  if (o.status === 'registering') {
    // Never registered (the call was lost on the way): try again under the same idempotency key.
    await registerAndSettle(deps, o)
    return
  }
  const now = deps.clock.now()
  const claimed = await deps.db.begin((tx) => claimStalledAuthorized(tx, o, now))
  if (claimed) await registerAndSettle(deps, claimed)
}

/**
 * The sell-resume sweep: orders in flight (`authorized`, `registering`, `registered`) untouched for
 * STALL_MS lost their process. Each is leased by bumping `updated_at` from the value read, so two
 * sweeps never resume one order, then carried on. Answers how many it took.
 */
export async function resumeStalled(deps: SellDeps, batch = 100): Promise<number> {
  const stale = new Date(deps.clock.now().getTime() - STALL_MS)
  const rows = await stalledOrders(deps.db, IN_FLIGHT, stale, batch)
  let taken = 0
  for (const row of rows) {
    const now = deps.clock.now()
    const o = await deps.db.begin((tx) => leaseStalled(tx, row, now))
    if (!o) continue
    taken++
    try {
      await resumeOrder(deps, o)
    } catch (err) {
      // Still in flight (the registrar did not answer): the next sweep asks again.
      if (!(err instanceof ApiError)) log.error('could not resume an order', { order_id: row.id, ...errorFields(err) })
    }
  }
  return taken
}
