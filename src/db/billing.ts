// Queries of billing sessions, invoices and a tenant's plan. Statements moved from src/ops verbatim;
// the billing account's rules and queries are in src/domain/billing.ts.
import type { Sql } from './sql.ts'

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
