// Billing (CONTRACT.md section 4, "Billing"; section 2, "Billing standing"): the standing a tenant is
// in, card setup with its ui_mode rules, plan checkout, billing status and the portal link. The rules
// live in src/domain/billing.ts; the processor behind them is PAYMENTS (sandbox or Stripe).
import { Type } from '@sinclair/typebox'
import { unavailable } from '../errors.ts'
import { billingStanding, invalidPlan, periodOf, setupRequest } from '../domain/billing.ts'
import { billingAccountOf, upsertBillingAccount, insertPlanSession, insertSetupSession, planIdOfTenant, recentInvoices } from '../db/billing.ts'
import { planById } from '../domain/plans.ts'
import type { Payments } from '../adapters/payments/index.ts'
import { defineOp, type Ctx, type TenantCtx } from './registry.ts'
import { APP_ONLY } from './authority.ts'
import { Input, Nullable, Out, Timestamp } from './schemas.ts'

const TAG = 'Billing'
const Url = Type.String({ format: 'uri', maxLength: 2000 })
const CardSchema = Out({ brand: Type.String(), last4: Type.String(), exp_month: Type.Integer(), exp_year: Type.Integer() })

function paymentsOf(ctx: Ctx): Payments {
  if (!ctx.services.payments) throw unavailable('Billing checkout is not wired on this deployment')
  return ctx.services.payments
}

const tenantOf = (ctx: TenantCtx) => ctx.principal.tenantId

export const StandingSchema = Out({
  configured: Type.Boolean({ description: 'A card is saved' }),
  restricted: Type.Boolean({ description: 'A new connection would be refused now' }),
  first_domain_free: Type.Boolean({ description: 'The next domain is the tenant\'s first and its plan gives it free' }),
  attention: Type.Boolean({ description: 'Refused, lapsed, or at 80% or more of the monthly quota' }),
  code: Nullable(Type.String({ description: 'The refusal a new connection would get: `billing_required` (402) or `quota_exceeded` (402); null when none' })),
  title: Nullable(Type.String()),
  details: Nullable(Type.Object({}, { additionalProperties: true })),
  billing_url: Type.String({ description: 'The billing portal link route' }),
  plan: Out({ id: Type.String(), name: Type.String(), hard_cap: Type.Boolean() }),
  usage: Out({ used: Type.Integer(), quota: Type.Integer(), period: Type.String({ description: 'UTC calendar month, YYYY-MM' }) }),
})

export const standingOp = defineOp({
  id: 'billing.standing',
  method: 'GET',
  path: '/billing/standing',
  summary: 'Billing standing',
  description:
    'Whether a new connection would be accepted, and why not: `billing_required` (402) on a paid plan without a saved card or with a lapsed ' +
    'subscription; `quota_exceeded` (402) on the free plan past its monthly quota where quota enforcement is on. Usage counts distinct domains ' +
    'connected in the UTC month. A connect-scoped widget token gets 403; mint one with scope `app`.',
  tag: TAG,
  auth: ['KEY', 'AGENT', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'billing:read',
  scope: 'domains:read',
  response: StandingSchema,
  errors: ['unauthorized', 'forbidden', 'insufficient_scope'],
  kind: 'read',
  zone: 'none',
  handler: async (ctx) => billingStanding(ctx.sql, tenantOf(ctx), ctx.clock.now(), ctx.config),
})

export const setupOp = defineOp({
  id: 'billing.setup',
  method: 'POST',
  path: '/billing/setup',
  summary: 'Save a card without charging',
  description:
    'Send either `return_url` (embedded, or Elements with `ui_mode: elements`) or both `success_url` and `cancel_url` (hosted redirect); neither, ' +
    'both kinds, or only one of the pair is 400. `ui_mode` is `embedded` or `elements`; null or "" counts as omitted; `hosted` is never accepted ' +
    '(send the two URLs instead) and any other value is 400; `embedded` and `elements` need `return_url`. The answer\'s `ui_mode` says what was ' +
    'really created: an `elements` request answers `embedded` when an Elements session could not be created.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'billing:manage',
  body: Input({
    return_url: Type.Optional(Nullable(Url)),
    success_url: Type.Optional(Nullable(Url)),
    cancel_url: Type.Optional(Nullable(Url)),
    ui_mode: Type.Optional(Nullable(Type.String({ maxLength: 40, description: '`embedded` or `elements`' }))),
  }),
  response: Out({ id: Type.String(), url: Type.String(), client_secret: Type.String(), ui_mode: Type.Union([Type.Literal('embedded'), Type.Literal('elements'), Type.Literal('hosted')]) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const req = setupRequest(input)
    const payments = paymentsOf(ctx)
    const tenantId = tenantOf(ctx)
    const account = await billingAccountOf(ctx.db, tenantId)
    const s = await payments.setupCard({ tenantId, customerRef: account?.customer_ref ?? null, ...req })
    const now = ctx.clock.now()
    await ctx.db.begin(async (tx) => {
      await insertSetupSession(tx, s, tenantId, now)
      await upsertBillingAccount(tx, tenantId, payments.name, now, { customerRef: s.customerRef })
    })
    ctx.audit.details = { requested: req.mode, created: s.ui_mode }
    return { id: s.id, url: s.url, client_secret: s.client_secret, ui_mode: s.ui_mode }
  },
})

export const planCheckoutOp = defineOp({
  id: 'billing.checkout',
  method: 'POST',
  path: '/billing/checkout',
  summary: 'Buy a plan',
  description: 'A hosted checkout for a paid plan from `GET /plans`; the plan becomes the tenant\'s when the processor reports the payment. Owners only.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'billing:owner',
  body: Input({ plan_id: Type.String({ minLength: 1, maxLength: 40 }), success_url: Url, cancel_url: Url }),
  response: Out({ id: Type.String(), url: Type.String(), client_secret: Type.String(), plan_id: Type.String() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const plan = planById(input.plan_id)
    if (!plan || plan.monthly_price_cents === 0) throw invalidPlan(input.plan_id)
    const payments = paymentsOf(ctx)
    const tenantId = tenantOf(ctx)
    const account = await billingAccountOf(ctx.db, tenantId)
    const s = await payments.planCheckout({
      tenantId,
      customerRef: account?.customer_ref ?? null,
      planId: plan.id,
      planName: plan.name,
      amountCents: plan.monthly_price_cents,
      currency: plan.currency,
      successUrl: input.success_url,
      cancelUrl: input.cancel_url,
    })
    await ctx.tx((tx) => insertPlanSession(tx, s, tenantId, plan, ctx.clock.now()))
    return { ...s, plan_id: plan.id }
  },
})

export const statusOp = defineOp({
  id: 'billing.status',
  method: 'GET',
  path: '/billing/status',
  summary: 'Billing status: dates, amounts, invoices, card',
  tag: TAG,
  auth: ['KEY'],
  permission: 'billing:manage',
  response: Out({
    plan: Out({ id: Type.String(), name: Type.String(), monthly_price_cents: Type.Integer(), currency: Type.String() }),
    subscription_status: Type.String({ description: 'none, active, past_due or canceled' }),
    current_period_start: Nullable(Timestamp()),
    current_period_end: Nullable(Timestamp()),
    next_payment_at: Nullable(Timestamp()),
    amount_due_cents: Type.Integer({ description: 'Due at the next payment' }),
    currency: Type.String(),
    usage_period: Type.String(),
    card: Nullable(CardSchema),
    invoices: Type.Array(Out({ id: Type.String(), plan_id: Type.String(), amount_cents: Type.Integer(), currency: Type.String(), status: Type.String(), period_start: Timestamp(), period_end: Timestamp(), created_at: Timestamp() })),
  }),
  errors: ['unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx) {
    const tenantId = tenantOf(ctx)
    const plan = planById(await planIdOfTenant(ctx.sql, tenantId)) ?? planById('free')!
    const a = await billingAccountOf(ctx.sql, tenantId)
    const invoices = await recentInvoices(ctx.sql, tenantId)
    const active = a?.subscription_status === 'active'
    return {
      plan: { id: plan.id, name: plan.name, monthly_price_cents: plan.monthly_price_cents, currency: plan.currency },
      subscription_status: a?.subscription_status ?? 'none',
      current_period_start: a?.current_period_start ?? null,
      current_period_end: a?.current_period_end ?? null,
      next_payment_at: active ? (a?.current_period_end ?? null) : null,
      amount_due_cents: active ? plan.monthly_price_cents : 0,
      currency: plan.currency,
      usage_period: periodOf(ctx.clock.now()).label,
      card: a?.card ?? null,
      invoices,
    }
  },
})

export const portalOp = defineOp({
  id: 'billing.portal',
  method: 'POST',
  path: '/billing/portal',
  summary: 'A link to the billing portal',
  description: 'A short-lived link to the payment processor\'s self-service portal (cards, invoices, cancellation); the person comes back to `return_url`.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'billing:manage',
  body: Input({ return_url: Url }),
  response: Out({ url: Type.String() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const payments = paymentsOf(ctx)
    const tenantId = tenantOf(ctx)
    const a = await billingAccountOf(ctx.db, tenantId)
    return payments.portal({ tenantId, customerRef: a?.customer_ref ?? null, returnUrl: input.return_url })
  },
})
