import { Type } from '@sinclair/typebox'
import { planById } from '../../domain/plans.ts'
import { invalidPlan } from '../../domain/billing.ts'
import { billingAccountOf, insertPlanSession } from '../../db/billing.ts'
import { defineOp } from '../registry.ts'
import { Input, Out } from '../schemas.ts'
import { paymentsOf, TAG, tenantOf, Url } from './shared.ts'

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
