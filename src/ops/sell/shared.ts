// Sell (the API contract, section 4, "Registrar (Sell)"): search, quote, checkout, fulfil, one-call purchase
// with an Idempotency-Key, and the order list (the payment-processor webhook is src/http/payments-webhook.ts). Without
// SELL_PURCHASE_ENABLED every route that creates or moves an order answers 503 service_unavailable;
// search stays open. The rules live in src/domain/sell.ts.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { registrableName, type SellDeps } from '../../domain/sell.ts'
import { invalid, notFound, unavailable } from '../../errors.ts'
import type { ApplicationRow } from '../../db/applications.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { Email, Input, Nullable, Out, Timestamp } from '../schemas.ts'
import type { Ctx, TenantCtx } from '../registry.ts'

export const TAG = 'Registrar (Sell)'

export const DomainField = Type.String({ minLength: 3, maxLength: 253, description: 'A registrable name, e.g. example.com' })

export const Years = Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 1, description: 'Registration term in years (default 1)' }))

export const Buyer = Input({ email: Email })

export const OrderSchema = named('Order', Out({
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

export const FulfillResult = Out({
  Domain: Type.String(),
  Registrar: Type.String(),
  RegOrderID: Type.String(),
  order_id: Type.String(),
  status: Type.Literal('completed'),
  amount_cents: Type.Integer(),
  currency: Type.String(),
  connection_id: Type.String({ description: 'The connection the purchased domain was connected with' }),
})

export const STATE_NOTE =
  'The card is authorized with manual capture and captured only after the registrar settles; a failed registration releases the ' +
  'authorization (`purchase.error`); success emits `domain.purchased` and connects the domain. An unpaid order expires after one ' +
  'day (`purchase.confirmation.expired`). A registrar that has not confirmed yet is 409 with `details.reason: registration_pending`: the ' +
  'order is finished within minutes (captured once, or released). 503 `service_unavailable` when purchasing is disabled on the deployment.'

export function sellDeps(ctx: Pick<Ctx, 'db' | 'clock' | 'config' | 'services'>, gated = true): SellDeps {
  if (gated && !ctx.config.sellPurchaseEnabled) throw unavailable('Domain purchasing is not enabled on this deployment')
  const { payments, registrar } = ctx.services
  if (!payments || !registrar) throw unavailable('Domain purchasing is not wired on this deployment')
  return { db: ctx.db, clock: ctx.clock, config: ctx.config, payments, registrar }
}

export function nameOrThrow(input: string): string {
  const name = registrableName(input.trim().replace(/^https?:\/\//i, '').replace(/\/.*$/, ''))
  if (!name) throw invalid(`${JSON.stringify(input)} is not a registrable domain name`, [{ in: 'body', field: 'domain', message: 'must be a name directly under a public suffix' }])
  return name
}

/** The application the caller acts for: the widget's own, else `application_id` or the key's own. */
export async function appOf(ctx: TenantCtx, given?: string): Promise<ApplicationRow> {
  const p = ctx.principal
  if (p.kind === 'WIDGET') {
    if (given !== undefined && given !== p.applicationId) throw notFound('Application not found')
    return getApplicationInTenant(ctx.db, p.tenantId, p.applicationId)
  }
  const id = given ?? (p.kind === 'KEY' ? p.applicationId : null)
  if (!id) throw invalid('application_id is required', [{ in: 'body', field: 'application_id', message: 'is required' }])
  return getApplicationInTenant(ctx.db, p.tenantId, id)
}
