// Sell (CONTRACT.md section 4, "Registrar (Sell)"): search, quote, checkout, fulfil, one-call purchase
// with an Idempotency-Key, and the order list (the payment-processor webhook is src/http/payments-webhook.ts). Without
// SELL_PURCHASE_ENABLED every route that creates or moves an order answers 503 service_unavailable;
// search stays open. The rules live in src/domain/sell.ts.
import { named } from '../domain/named.ts'
import { Type } from '@sinclair/typebox'
import { invalid, notFound, unavailable } from '../errors.ts'
import { assertHostAllowed } from '../domain/connections.ts'
import { askRegistrar, createQuote, fulfillOrder, orderOut, purchase, registrableName, requestHash, startCheckout, type SellDeps } from '../domain/sell.ts'
import type { OrderRow } from '../db/sell-orders.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import type { ApplicationRow } from '../db/applications.ts'
import { orderOfSession, ordersOf } from '../db/sell-orders.ts'
import { defineOp, reply, type Ctx, type TenantCtx } from './registry.ts'
import { END_USER } from './authority.ts'
import { Email, Id, Input, Nullable, Out, Timestamp } from './schemas.ts'

const TAG = 'Registrar (Sell)'
const DomainField = Type.String({ minLength: 3, maxLength: 253, description: 'A registrable name, e.g. example.com' })
const Years = Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 1, description: 'Registration term in years (default 1)' }))
const Buyer = Input({ email: Email })

const OfferSchema = named('DomainOffer', Out({
  domain: Type.String(),
  available: Type.Boolean(),
  premium: Type.Boolean(),
  price_cents: Nullable(Type.Integer({ description: 'Retail price for one year, smallest currency unit' })),
  currency: Type.String(),
}))

const OrderSchema = named('Order', Out({
  id: Type.String(),
  application_id: Type.String(),
  domain: Type.String(),
  years: Type.Integer(),
  amount_cents: Type.Integer(),
  currency: Type.String(),
  premium: Type.Boolean(),
  status: Type.Union(['quoted', 'pending_payment', 'authorized', 'registering', 'registered', 'completed', 'failed', 'expired'].map((s) => Type.Literal(s))),
  buyer_email: Nullable(Type.String()),
  session_id: Nullable(Type.String()),
  registrar: Nullable(Type.String()),
  reg_order_id: Nullable(Type.String()),
  connection_id: Nullable(Type.String()),
  error_code: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
  expires_at: Timestamp('An unpaid order expires at this time'),
  authorized_at: Nullable(Timestamp()),
  captured_at: Nullable(Timestamp()),
  released_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
}))

const FulfillResult = Out({
  Domain: Type.String(),
  Registrar: Type.String(),
  RegOrderID: Type.String(),
  order_id: Type.String(),
  status: Type.Literal('completed'),
  amount_cents: Type.Integer(),
  currency: Type.String(),
  connection_id: Type.String({ description: 'The connection the purchased domain was connected with' }),
})

const CheckoutSession = named('CheckoutSession', Out({ id: Type.String(), url: Type.String(), client_secret: Type.String(), order_id: Type.String() }))

const STATE_NOTE =
  'The card is authorized with manual capture and captured only after the registrar settles; a failed registration releases the ' +
  'authorization (`purchase.error`); success emits `domain.purchased` and connects the domain. An unpaid order expires after one ' +
  'day (`purchase.confirmation.expired`). A registrar that has not confirmed yet is 409 with `details.reason: registration_pending`: the ' +
  'order is finished within minutes (captured once, or released). 503 `service_unavailable` when purchasing is disabled on the deployment.'

function sellDeps(ctx: Pick<Ctx, 'db' | 'clock' | 'config' | 'services'>, gated = true): SellDeps {
  if (gated && !ctx.config.sellPurchaseEnabled) throw unavailable('Domain purchasing is not enabled on this deployment')
  const { payments, registrar } = ctx.services
  if (!payments || !registrar) throw unavailable('Domain purchasing is not wired on this deployment')
  return { db: ctx.db, clock: ctx.clock, config: ctx.config, payments, registrar }
}

function nameOrThrow(input: string): string {
  const name = registrableName(input.trim().replace(/^https?:\/\//i, '').replace(/\/.*$/, ''))
  if (!name) throw invalid(`${JSON.stringify(input)} is not a registrable domain name`, [{ in: 'body', field: 'domain', message: 'must be a name directly under a public suffix' }])
  return name
}

/** The application the caller acts for: the widget's own, else `application_id` or the key's own. */
async function appOf(ctx: TenantCtx, given?: string): Promise<ApplicationRow> {
  const p = ctx.principal
  if (p.kind === 'WIDGET') {
    if (given !== undefined && given !== p.applicationId) throw notFound('Application not found')
    return getApplicationInTenant(ctx.db, p.tenantId, p.applicationId)
  }
  const id = given ?? (p.kind === 'KEY' ? p.applicationId : null)
  if (!id) throw invalid('application_id is required', [{ in: 'body', field: 'application_id', message: 'is required' }])
  return getApplicationInTenant(ctx.db, p.tenantId, id)
}

export const searchDomainsOp = defineOp({
  id: 'registrar.search',
  method: 'POST',
  path: '/registrar/search',
  summary: 'Search a domain name to buy',
  description: 'Availability, premium flag and retail price of the name (`.com` is assumed without a dot), with up to `limit` available suggestions when it is taken. Read-only.',
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:read',
  body: Input({ query: Type.String({ minLength: 1, maxLength: 253 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })) }),
  response: Type.Composite([OfferSchema, Out({ suggestions: Type.Array(OfferSchema) })]),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'read',
  async handler(ctx, input) {
    const { registrar } = sellDeps(ctx, false)
    const q = input.query.trim().toLowerCase()
    const name = nameOrThrow(q.includes('.') ? q : `${q}.com`)
    assertHostAllowed(ctx.principal, name)
    const offer = await askRegistrar(() => registrar.check(name))
    return { ...offer, suggestions: offer.available ? [] : await askRegistrar(() => registrar.suggest(offer.domain, input.limit ?? 5)) }
  },
})

export const quoteOp = defineOp({
  id: 'registrar.quote',
  method: 'POST',
  path: '/registrar/quote',
  summary: 'Quote a domain purchase',
  description: 'A priced order (`quoted`) valid for one day; `POST /registrar/checkout` for the same name and term uses it. A name that cannot be bought is 409. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:write',
  body: Input({ domain: DomainField, years: Years, application_id: Type.Optional(Id('app')) }),
  response: OrderSchema,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const domain = nameOrThrow(input.domain)
    assertHostAllowed(ctx.principal, domain)
    const app = await appOf(ctx, input.application_id)
    return orderOut((await createQuote(deps, app, await askRegistrar(() => deps.registrar.check(domain)), input.years ?? 1))!)
  },
})

export const checkoutOp = defineOp({
  id: 'registrar.checkout',
  method: 'POST',
  path: '/registrar/checkout',
  summary: 'Start paying for a domain',
  description: 'Authorizes payment with manual capture at the retail price and answers the checkout session: pay on `url` (or with `client_secret`), then call `POST /registrar/fulfill` with its `id`. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  body: Input({ domain: DomainField, buyer: Buyer, return_url: Type.String({ format: 'uri', maxLength: 2000 }), years: Years }),
  response: CheckoutSession,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'conflict', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const domain = nameOrThrow(input.domain)
    assertHostAllowed(ctx.principal, domain)
    const { order, session } = await startCheckout(deps, await appOf(ctx), domain, input.years ?? 1, input.buyer.email, input.return_url)
    ctx.audit.targetId = order.id
    return { ...session, order_id: order.id }
  },
})

async function orderBySession(ctx: TenantCtx, sessionId: string): Promise<OrderRow> {
  const p = ctx.principal
  const o = await orderOfSession(ctx.db, sessionId, p.tenantId, p.kind === 'WIDGET' ? p.applicationId : '')
  // A domain-bound token sees only its own domain's orders, as 404 like any other order it cannot see.
  if (!o || (p.kind === 'WIDGET' && p.boundHost && p.boundHost !== o.domain)) throw notFound('Checkout session not found')
  return o
}

export const fulfillOp = defineOp({
  id: 'registrar.fulfill',
  method: 'POST',
  path: '/registrar/fulfill',
  summary: 'Register a paid domain and capture the payment',
  description:
    'Verifies the authorization, registers the domain, captures, and connects it: 201 the first time, 200 with the same body on every replay ' +
    '(the processor webhook drives the same path). A payment not yet authorized, a declined card, a refused registration or an expired ' +
    'checkout is 409 `conflict` with `details.reason`. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  body: Input({ session_id: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: FulfillResult,
  status: 201,
  altStatus: [{ status: 200, description: 'Replay: this session was fulfilled before' }],
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const o = await orderBySession(ctx, input.session_id)
    ctx.audit.targetId = o.id
    const f = await fulfillOrder(deps, o.id)
    return reply(f.created ? 201 : 200, f.body)
  },
})

export const purchaseOp = defineOp({
  id: 'registrar.purchase',
  method: 'POST',
  path: '/registrar/purchase',
  summary: 'Buy a domain in one call',
  description:
    'Quotes, authorizes `payment_method` with manual capture, registers, captures and connects, in one call. The `Idempotency-Key` header ' +
    'is required: the same key with the same body replays the first answer (its status and body) and charges nothing more; the same key ' +
    'with a different body is 422 `idempotency_key_reused` (`details.reason` says so too) and charges nothing. The key is bound to the ' +
    'application, so a retry from another widget token of the same application replays the same order. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  headers: Input({ 'idempotency-key': Type.String({ minLength: 1, maxLength: 255, description: 'Unique per purchase attempt' }) }, { additionalProperties: true }),
  body: Input({ domain: DomainField, years: Years, buyer: Buyer, payment_method: Type.String({ minLength: 1, maxLength: 255, description: 'A payment method of the processor (sandbox: pm_card_visa; pm_card_chargeDeclined declines)' }) }),
  response: FulfillResult,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'conflict', 'idempotency_key_reused', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const domain = nameOrThrow(input.domain)
    assertHostAllowed(ctx.principal, domain)
    const { 'idempotency-key': key, ...body } = input
    const f = await purchase(deps, await appOf(ctx), key, { domain, years: input.years ?? 1, email: input.buyer.email, paymentMethod: input.payment_method, hash: requestHash(body) })
    ctx.audit.targetId = f.body.order_id as string
    return reply(f.status, f.body, f.created ? undefined : { 'idempotent-replayed': 'true' })
  },
})

export const listOrdersOp = defineOp({
  id: 'sell.orders.list',
  method: 'GET',
  path: '/sell/orders',
  summary: 'The application\'s domain orders',
  description: 'Newest first. `app_id` filters (default: the key\'s own application, else every application of the tenant); `status` filters.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'billing:read',
  query: Input({ app_id: Type.Optional(Id('app')), status: Type.Optional(Type.String({ maxLength: 40 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) }),
  response: Out({ orders: Type.Array(OrderSchema), count: Type.Integer() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx, input) {
    const p = ctx.principal
    if (input.app_id) await getApplicationInTenant(ctx.sql, p.tenantId, input.app_id)
    const app = input.app_id ?? p.applicationId
    const rows = await ordersOf(ctx.sql, p, app, input)
    return { orders: rows.map(orderOut), count: rows.length }
  },
})
