// Billing rules (the API contract, sections 2 "Billing standing", 4 "Billing", 7, 8): metered usage, the
// standing a tenant is in, the gate on new connections, and the card-setup request rules. Invariants:
// - usage is metered from the connections themselves: distinct domains a tenant connected in the UTC
//   calendar month (disconnecting does not give a domain back); the first domain a tenant ever
//   connects is not counted where its plan has `first_domain_free`;
// - a new connection is refused with `billing_required` (402) on a paid plan without a saved card or
//   with a lapsed subscription, and with `quota_exceeded` (402) only on a hard-capped plan (free) and
//   only where BILLING_ENFORCE_QUOTA is on; a domain the tenant already has open is never "new";
// - the standing answers exactly the refusal the gate would give, from the same function.
import type { Sql } from '../db/sql.ts'
import {
  billingAccountOf,
  completeSession,
  hasOpenDomain,
  insertPaidInvoice,
  lockQuota,
  meteredUsage,
  setTenantPlan,
  upsertBillingAccount,
  type BillingAccountRow,
} from '../db/billing.ts'
import { ApiError, invalid, type ErrorCode, type ErrorReason } from '../errors.ts'
import type { Card, SetupMode } from '../adapters/payments/index.ts'
import { planById, type Plan } from './plans.ts'

export interface Period {
  start: Date
  end: Date
  label: string
}

/** The metering period: the UTC calendar month around `now`. */
export function periodOf(now: Date): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
  return { start, end, label: start.toISOString().slice(0, 7) }
}

interface Refusal {
  code: ErrorCode
  title: string
  details: { reason?: ErrorReason } & Record<string, unknown>
}

export interface Standing {
  configured: boolean
  restricted: boolean
  first_domain_free: boolean
  attention: boolean
  code: string | null
  title: string | null
  details: Record<string, unknown> | null
  billing_url: string
  plan: { id: string; name: string; hard_cap: boolean }
  usage: { used: number; quota: number; period: string }
}

interface Facts {
  plan: Plan
  account: BillingAccountRow | undefined
  used: number
  /** The tenant has never connected a domain and its plan gives the first one free. */
  firstFree: boolean
  period: Period
}

async function facts(sql: Sql, tenantId: string, now: Date): Promise<Facts> {
  const period = periodOf(now)
  const r = await meteredUsage(sql, tenantId, period)
  if (!r) throw new ApiError('not_found', 'Tenant not found')
  const plan = planById(r.plan_id) ?? planById('free')!
  const firstInPeriod = r.first_at !== null && r.first_at >= period.start && r.first_at < period.end
  const used = plan.first_domain_free && firstInPeriod ? r.used - 1 : r.used
  return { plan, account: await billingAccountOf(sql, tenantId), used, firstFree: plan.first_domain_free && r.first_at === null, period }
}

/** BILLING_ENFORCE_QUOTA, and PUBLIC_URL for the portal link. */
export interface BillingSettings {
  billingEnforceQuota: boolean
  publicUrl: string
}

function refusalOf(f: Facts, config: Pick<BillingSettings, 'billingEnforceQuota'>): Refusal | null {
  const paid = f.plan.monthly_price_cents > 0
  const status = f.account?.subscription_status
  if (paid && (status === 'past_due' || status === 'canceled')) {
    return { code: 'billing_required', title: `The ${f.plan.name} subscription is ${status.replace('_', ' ')}; update the payment method`, details: { reason: status, plan_id: f.plan.id } }
  }
  if (paid && !f.account?.card && !f.firstFree) {
    return { code: 'billing_required', title: `The ${f.plan.name} plan needs a saved card before new domains can be connected`, details: { reason: 'no_payment_method', plan_id: f.plan.id } }
  }
  if (f.plan.hard_cap && config.billingEnforceQuota && !f.firstFree && f.used >= f.plan.domain_quota) {
    return { code: 'quota_exceeded', title: `The ${f.plan.name} plan allows ${f.plan.domain_quota} new domains a month`, details: { used: f.used, quota: f.plan.domain_quota, period: f.period.label, plan_id: f.plan.id } }
  }
  return null
}

export async function billingStanding(sql: Sql, tenantId: string, now: Date, config: BillingSettings): Promise<Standing> {
  const f = await facts(sql, tenantId, now)
  const refusal = refusalOf(f, config)
  const lapsed = f.account?.subscription_status === 'past_due' || f.account?.subscription_status === 'canceled'
  return {
    configured: Boolean(f.account?.card),
    restricted: refusal !== null,
    first_domain_free: f.firstFree,
    // Worth a person's look: refused, lapsed, or within 80% of the month's quota.
    attention: refusal !== null || lapsed || f.used >= Math.ceil(f.plan.domain_quota * 0.8),
    code: refusal?.code ?? null,
    title: refusal?.title ?? null,
    details: refusal?.details ?? null,
    billing_url: `${config.publicUrl}/v1/billing/portal`,
    plan: { id: f.plan.id, name: f.plan.name, hard_cap: f.plan.hard_cap },
    usage: { used: f.used, quota: f.plan.domain_quota, period: f.period.label },
  }
}

/**
 * The gate on new connections. On a hard-capped plan with enforcement on it first takes a per-tenant
 * transaction lock, so concurrent creations inside transactions cannot both take the last slot.
 */
export async function assertCanConnect(sql: Sql, tenantId: string, now: Date, config: Pick<BillingSettings, 'billingEnforceQuota'>, domain?: string): Promise<void> {
  if (domain) {
    if (await hasOpenDomain(sql, tenantId, domain)) return
  }
  if (config.billingEnforceQuota) await lockQuota(sql, tenantId)
  const refusal = refusalOf(await facts(sql, tenantId, now), config)
  if (refusal) throw new ApiError(refusal.code, refusal.title, refusal.details)
}

export interface SetupRequest {
  mode: SetupMode
  returnUrl?: string
  successUrl?: string
  cancelUrl?: string
}

const field = (name: string, message: string) => [{ in: 'body', field: name, message }]

/**
 * The `POST /billing/setup` rules: `return_url` alone (embedded or Elements) or both `success_url` and
 * `cancel_url` (hosted redirect); neither, both kinds, or half a pair is 400. `ui_mode` null or "" is
 * omitted; `hosted` is never accepted as a request (it follows from the URLs); `elements` and
 * `embedded` need `return_url`; any other value is 400.
 */
export function setupRequest(body: { return_url?: string | null; success_url?: string | null; cancel_url?: string | null; ui_mode?: string | null }): SetupRequest {
  const uiMode = body.ui_mode === null || body.ui_mode === '' ? undefined : body.ui_mode
  if (uiMode !== undefined && uiMode !== 'embedded' && uiMode !== 'elements') {
    const why = uiMode === 'hosted' ? 'hosted is not requested: send success_url and cancel_url without ui_mode' : 'must be embedded or elements'
    throw invalid(`ui_mode ${JSON.stringify(uiMode)} is not accepted`, field('ui_mode', why))
  }
  const returnUrl = body.return_url || undefined
  const successUrl = body.success_url || undefined
  const cancelUrl = body.cancel_url || undefined
  if ((successUrl === undefined) !== (cancelUrl === undefined)) {
    throw invalid('success_url and cancel_url go together', field(successUrl ? 'cancel_url' : 'success_url', 'is required with the other'))
  }
  const hosted = successUrl !== undefined
  if (returnUrl && hosted) throw invalid('Send either return_url or success_url and cancel_url, not both', field('return_url', 'conflicts with success_url'))
  if (!returnUrl && !hosted) throw invalid('return_url, or success_url and cancel_url, is required', field('return_url', 'is required'))
  if (hosted) {
    if (uiMode) throw invalid(`ui_mode ${uiMode} needs return_url`, field('return_url', `is required with ui_mode ${uiMode}`))
    return { mode: 'hosted', successUrl, cancelUrl }
  }
  return { mode: uiMode ?? 'embedded', returnUrl }
}

export function invalidPlan(planId: string): ApiError {
  return invalid(`No purchasable plan ${JSON.stringify(planId)}`, field('plan_id', 'must be a paid plan from GET /plans'))
}

/**
 * A verified processor event about billing. Each session completes once (`status = 'open'` guard), so
 * a webhook delivered twice changes nothing the second time. A paid plan becomes the tenant's plan for
 * one month from now, with a paid invoice.
 */
export async function applyBillingEvent(
  sql: Sql,
  processor: string,
  now: Date,
  e: { kind: 'setup_completed'; sessionId: string; customerRef: string | null; card: Card | null } | { kind: 'plan_paid'; sessionId: string; customerRef: string | null; amountCents: number; currency: string },
): Promise<boolean> {
  const session = await completeSession(sql, e.sessionId, now)
  if (!session) return false
  if (e.kind === 'setup_completed') {
    await upsertBillingAccount(sql, session.tenant_id, processor, now, { customerRef: e.customerRef, card: e.card })
    return true
  }
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, now.getUTCDate(), now.getUTCHours(), now.getUTCMinutes()))
  await setTenantPlan(sql, session.tenant_id, session.plan_id, now)
  await upsertBillingAccount(sql, session.tenant_id, processor, now, { customerRef: e.customerRef, plan: { status: 'active', start: now, end } })
  await insertPaidInvoice(sql, { id: 'inv_' + e.sessionId, tenant_id: session.tenant_id, plan_id: session.plan_id, amount_cents: e.amountCents, currency: e.currency, period_start: now, period_end: end }, now)
  return true
}
