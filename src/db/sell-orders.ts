// Queries of domain orders as the API reads them. Statements moved from src/ops/sell.ts verbatim; the
// order's lifecycle is src/domain/sell.ts.
import type { Sql } from './sql.ts'

export type OrderStatus = 'quoted' | 'pending_payment' | 'authorized' | 'registering' | 'registered' | 'completed' | 'failed' | 'expired'

export interface OrderRow {
  id: string
  tenant_id: string
  application_id: string
  domain: string
  years: number
  price_cents: number
  currency: string
  premium: boolean
  status: OrderStatus
  buyer_email: string | null
  processor: string | null
  payment_id: string | null
  session_id: string | null
  registrar: string | null
  reg_order_id: string | null
  connection_id: string | null
  error_code: string | null
  error_message: string | null
  idempotency_key: string | null
  request_hash: string | null
  result_status: number | null
  result: Record<string, unknown> | null
  expires_at: Date
  authorized_at: Date | null
  captured_at: Date | null
  released_at: Date | null
  created_at: Date
  updated_at: Date
}

/** The order of a checkout session, for the application the caller acts for (`''` for none). */
export async function orderOfSession(db: Sql, sessionId: string, tenantId: string, applicationId: string): Promise<OrderRow | undefined> {
  const [o] = await db`select * from sell_orders where session_id = ${sessionId} and tenant_id = ${tenantId} and application_id = ${applicationId}`
  return o as OrderRow | undefined
}

/** A tenant's orders (one application's when `app` is set), newest first. */
export async function ordersOf(sql: Sql, p: { tenantId: string }, app: string | null, input: { status?: string; limit?: number }): Promise<OrderRow[]> {
  return (await sql`
      select * from sell_orders where tenant_id = ${p.tenantId}
        and (${app}::text is null or application_id = ${app})
        and (${input.status ?? null}::text is null or status = ${input.status ?? null})
      order by id desc limit ${input.limit ?? 50}`) as OrderRow[]
}
