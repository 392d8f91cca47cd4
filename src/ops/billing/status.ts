import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { planById } from '../../domain/plans.ts'
import { billingAccountOf, planIdOfTenant, recentInvoices } from '../../db/billing.ts'
import { periodOf } from '../../domain/billing.ts'
import { Nullable, Out, Timestamp } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { TAG, tenantOf } from './shared.ts'

const CardSchema = named('Card', Out({ brand: Type.String(), last4: Type.String(), exp_month: Type.Integer(), exp_year: Type.Integer() }))

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
