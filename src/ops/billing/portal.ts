import { Type } from '@sinclair/typebox'
import { billingAccountOf } from '../../db/billing.ts'
import { defineOp } from '../registry.ts'
import { Input, Out } from '../schemas.ts'
import { paymentsOf, TAG, tenantOf, Url } from './shared.ts'

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
