// Queries of billing: the billing account, sessions, invoices, metered usage and a tenant's plan (the
// rules are src/domain/billing.ts).
import type { Sql } from './sql.ts'

/** A card as the processor described it (src/adapters/payments `Card`). */
export interface StoredCard {
  brand: string
  last4: string
  exp_month: number
  exp_year: number
}

export interface BillingAccountRow {
  tenant_id: string
  processor: string
  customer_ref: string | null
  card: StoredCard | null
  subscription_status: 'none' | 'active' | 'past_due' | 'canceled'
  current_period_start: Date | null
  current_period_end: Date | null
}

export async function billingAccountOf(sql: Sql, tenantId: string): Promise<BillingAccountRow | undefined> {
  const [a] = await sql`select * from billing_accounts where tenant_id = ${tenantId}`
  return a as BillingAccountRow | undefined
}

/** Saves the billing account (created on first use) with what the processor told us. */
export async function upsertBillingAccount(sql: Sql, tenantId: string, processor: string, now: Date, set: { customerRef?: string | null; card?: StoredCard | null; plan?: { status: 'active'; start: Date; end: Date } }): Promise<void> {
  await sql`
    insert into billing_accounts (tenant_id, processor, customer_ref, card, subscription_status, current_period_start, current_period_end, created_at, updated_at)
    values (${tenantId}, ${processor}, ${set.customerRef ?? null}, ${set.card ?? null}::jsonb, ${set.plan?.status ?? 'none'},
            ${set.plan?.start ?? null}, ${set.plan?.end ?? null}, ${now}, ${now})
    on conflict (tenant_id) do update set
      customer_ref = coalesce(excluded.customer_ref, billing_accounts.customer_ref),
      card = coalesce(excluded.card, billing_accounts.card),
      subscription_status = case when ${set.plan !== undefined} then excluded.subscription_status else billing_accounts.subscription_status end,
      current_period_start = coalesce(excluded.current_period_start, billing_accounts.current_period_start),
      current_period_end = coalesce(excluded.current_period_end, billing_accounts.current_period_end),
      updated_at = excluded.updated_at`
}

/** The tenant's plan, the distinct domains it connected in the period, and when it first connected one; undefined for no tenant. */
export async function meteredUsage(sql: Sql, tenantId: string, period: { start: Date; end: Date }): Promise<{ plan_id: string; used: number; first_at: Date | null } | undefined> {
  const [row] = await sql`
    select t.plan_id,
      (select count(distinct domain)::int from connections c
        where c.tenant_id = t.id and c.created_at >= ${period.start} and c.created_at < ${period.end}) as used,
      (select c.created_at from connections c where c.tenant_id = t.id order by c.created_at limit 1) as first_at
    from tenants t where t.id = ${tenantId}`
  return row as { plan_id: string; used: number; first_at: Date | null } | undefined
}

/** The tenant has this domain open already. */
export async function hasOpenDomain(sql: Sql, tenantId: string, domain: string): Promise<boolean> {
  const [open] = await sql`select 1 from connections where tenant_id = ${tenantId} and domain = ${domain} and disconnected_at is null limit 1`
  return !!open
}

/** The tenant's quota lock, held to the end of the transaction. */
export async function lockQuota(sql: Sql, tenantId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${'quota:' + tenantId}))`
}

/** Completes an open session once; undefined when it was not open. */
export async function completeSession(sql: Sql, sessionId: string, now: Date): Promise<{ tenant_id: string; plan_id: string | null } | undefined> {
  const [s] = await sql`update billing_sessions set status = 'complete', completed_at = ${now} where id = ${sessionId} and status = 'open' returning tenant_id, plan_id`
  return s as { tenant_id: string; plan_id: string | null } | undefined
}

export async function setTenantPlan(sql: Sql, tenantId: string, planId: string | null, now: Date): Promise<void> {
  await sql`update tenants set plan_id = ${planId}, updated_at = ${now} where id = ${tenantId}`
}

/** The paid invoice of a plan session (once per session). */
export async function insertPaidInvoice(
  sql: Sql,
  i: { id: string; tenant_id: string; plan_id: string | null; amount_cents: number; currency: string; period_start: Date; period_end: Date },
  now: Date,
): Promise<void> {
  await sql`
    insert into billing_invoices (id, tenant_id, plan_id, amount_cents, currency, status, period_start, period_end, created_at)
    values (${i.id}, ${i.tenant_id}, ${i.plan_id}, ${i.amount_cents}, ${i.currency}, 'paid', ${i.period_start}, ${i.period_end}, ${now})
    on conflict (id) do nothing`
}

/** A card-setup session, recorded so the processor's report completes it once. */
export async function insertSetupSession(tx: Sql, s: { id: string; ui_mode: string }, tenantId: string, now: Date): Promise<void> {
  await tx`insert into billing_sessions (id, tenant_id, kind, ui_mode, created_at) values (${s.id}, ${tenantId}, 'setup', ${s.ui_mode}, ${now})`
}

/** A plan-checkout session, recorded so the processor's report completes it once. */
export async function insertPlanSession(db: Sql, s: { id: string }, tenantId: string, plan: { id: string }, now: Date): Promise<void> {
  await db`insert into billing_sessions (id, tenant_id, kind, plan_id, created_at) values (${s.id}, ${tenantId}, 'plan', ${plan.id}, ${now})`
}

export async function planIdOfTenant(sql: Sql, tenantId: string): Promise<string> {
  const [t] = await sql`select plan_id from tenants where id = ${tenantId}`
  return (t as { plan_id: string }).plan_id
}

export interface InvoiceRow {
  id: string
  plan_id: string
  amount_cents: number
  currency: string
  status: string
  period_start: Date
  period_end: Date
  created_at: Date
}

/** The last two years of monthly invoices, newest first. */
export async function recentInvoices(sql: Sql, tenantId: string): Promise<InvoiceRow[]> {
  return (await sql`
      select id, plan_id, amount_cents, currency, status, period_start, period_end, created_at
      from billing_invoices where tenant_id = ${tenantId} order by id desc limit 24`) as InvoiceRow[]
}
