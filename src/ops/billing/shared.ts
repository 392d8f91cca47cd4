// Billing (the API contract, section 4, "Billing"; section 2, "Billing standing"): the standing a tenant is
// in, card setup with its ui_mode rules, plan checkout, billing status and the portal link. The rules
// live in src/domain/billing.ts; the processor behind them is PAYMENTS (sandbox or Stripe).
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import type { Payments } from '../../adapters/payments/index.ts'
import { unavailable } from '../../errors.ts'
import type { Ctx, TenantCtx } from '../registry.ts'

export const TAG = 'Billing'

export const Url = Type.String({ format: 'uri', maxLength: 2000 })

export function paymentsOf(ctx: Ctx): Payments {
  if (!ctx.services.payments) throw unavailable('Billing checkout is not wired on this deployment')
  return ctx.services.payments
}

export const tenantOf = (ctx: TenantCtx) => ctx.principal.tenantId
