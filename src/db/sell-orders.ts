// Queries of domain orders as the API reads them. Statements moved from src/ops/sell.ts verbatim; the
// order's lifecycle is src/domain/sell.ts.
import type { OrderRow } from '../domain/sell.ts'
import type { Sql } from './sql.ts'

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
