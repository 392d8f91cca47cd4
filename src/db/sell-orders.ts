// Queries of domain orders (the order's lifecycle is src/domain/sell.ts; every statement it runs is here).
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

export async function orderById(sql: Sql, id: string): Promise<OrderRow | undefined> {
  const [o] = await sql`select * from sell_orders where id = ${id}`
  return o as OrderRow | undefined
}

/** A new order; undefined when the application used its idempotency key already (a concurrent request). */
export async function insertOrder(
  tx: Sql,
  o: Pick<OrderRow, 'id' | 'tenant_id' | 'application_id' | 'domain' | 'years' | 'price_cents' | 'currency' | 'premium' | 'status' | 'buyer_email' | 'idempotency_key' | 'request_hash' | 'expires_at'>,
  now: Date,
): Promise<OrderRow | undefined> {
  const rows = await tx`
    insert into sell_orders (id, tenant_id, application_id, domain, years, price_cents, currency, premium, status, buyer_email,
      idempotency_key, request_hash, expires_at, created_at, updated_at)
    values (${o.id}, ${o.tenant_id}, ${o.application_id}, ${o.domain}, ${o.years}, ${o.price_cents}, ${o.currency},
      ${o.premium}, ${o.status}, ${o.buyer_email}, ${o.idempotency_key}, ${o.request_hash},
      ${o.expires_at}, ${now}, ${now})
    on conflict (application_id, idempotency_key) where idempotency_key is not null do nothing
    returning *`
  return rows[0] as OrderRow | undefined
}

/** The application's newest open quote for the name, taken for checkout (`pending_payment`); undefined when there is none free. */
export async function takeOpenQuote(tx: Sql, app: { id: string }, domain: string, years: number, email: string, now: Date): Promise<OrderRow | undefined> {
  const [quoted] = await tx`
    update sell_orders set status = 'pending_payment', buyer_email = ${email}, updated_at = ${now}
    where id = (select id from sell_orders where application_id = ${app.id} and domain = ${domain} and years = ${years}
                  and status = 'quoted' and expires_at > ${now} order by id desc limit 1 for update skip locked)
      and status = 'quoted'
    returning *`
  return quoted as OrderRow | undefined
}

export async function setCheckoutSession(tx: Sql, o: { id: string }, sessionId: string, processor: string, now: Date): Promise<OrderRow> {
  const [updated] = await tx`
    update sell_orders set payment_id = ${sessionId}, session_id = ${sessionId}, processor = ${processor}, updated_at = ${now}
    where id = ${o.id} returning *`
  return updated as OrderRow
}

/** Fails an order in one of the states `from`, with the answer every replay gives; undefined when it had moved on. */
export async function setOrderFailed(
  tx: Sql,
  o: { id: string },
  from: OrderStatus[],
  f: { reason: string; title: string; result: object; released: boolean },
  now: Date,
): Promise<OrderRow | undefined> {
  const [row] = await tx`
      update sell_orders set status = 'failed', error_code = ${f.reason}, error_message = ${f.title},
        result_status = 409, result = ${f.result}::jsonb,
        released_at = ${f.released ? now : null}, updated_at = ${now}
      where id = ${o.id} and status in ${tx(from)} returning *`
  return row as OrderRow | undefined
}

export async function setAuthorized(tx: Sql, o: { id: string }, now: Date): Promise<void> {
  await tx`update sell_orders set status = 'authorized', authorized_at = ${now}, updated_at = ${now} where id = ${o.id} and status = 'pending_payment'`
}

/** An authorized order taken for registering; undefined when another caller took it. */
export async function claimAuthorized(tx: Sql, o: { id: string }, now: Date): Promise<OrderRow | undefined> {
  const [claimed] = await tx`
    update sell_orders set status = 'registering', updated_at = ${now}
    where id = ${o.id} and status = 'authorized' returning *`
  return claimed as OrderRow | undefined
}

/** A stalled authorized order (as leased) taken for registering; undefined when it moved since. */
export async function claimStalledAuthorized(tx: Sql, o: { id: string; updated_at: Date }, now: Date): Promise<OrderRow | undefined> {
  const [claimed] = await tx`
    update sell_orders set status = 'registering', updated_at = ${now}
    where id = ${o.id} and status = 'authorized' and updated_at = ${o.updated_at} returning *`
  return claimed as OrderRow | undefined
}

/** The registrar has the domain; undefined when another holder moved the order since it was read. */
export async function setRegistered(tx: Sql, o: { id: string; updated_at: Date }, registrar: string, regOrderId: string, now: Date): Promise<OrderRow | undefined> {
  const [registered] = await tx`
    update sell_orders set status = 'registered', registrar = ${registrar}, reg_order_id = ${regOrderId}, updated_at = ${now}
    where id = ${o.id} and status = 'registering' and updated_at = ${o.updated_at} returning *`
  return registered as OrderRow | undefined
}

/** Locks the order while it is `registered`; false when it is not. */
export async function lockRegistered(tx: Sql, o: { id: string }): Promise<boolean> {
  const [still] = await tx`select id from sell_orders where id = ${o.id} and status = 'registered' for update`
  return !!still
}

export async function setCompleted(tx: Sql, o: { id: string }, c: { id: string }, body: object, now: Date): Promise<OrderRow> {
  const [done] = await tx`
      update sell_orders set status = 'completed', captured_at = ${now}, connection_id = ${c.id}, result_status = 201, result = ${body}::jsonb, updated_at = ${now}
      where id = ${o.id} and status = 'registered' returning *`
  return done as OrderRow
}

export async function orderOfPayment(db: Sql, paymentId: string): Promise<{ id: string } | undefined> {
  const [o] = await db`select id from sell_orders where payment_id = ${paymentId}`
  return o as { id: string } | undefined
}

export async function orderOfKey(db: Sql, app: { id: string }, key: string): Promise<OrderRow | undefined> {
  const [o] = await db`select * from sell_orders where application_id = ${app.id} and idempotency_key = ${key}`
  return o as OrderRow | undefined
}

export async function setPayment(tx: Sql, o: { id: string }, paymentId: string, processor: string, now: Date): Promise<void> {
  await tx`update sell_orders set payment_id = ${paymentId}, processor = ${processor}, updated_at = ${now} where id = ${o.id}`
}

/** Up to `batch` unpaid quotes and checkouts past their expiry become `expired` (SKIP LOCKED). */
export async function expireUnpaidBatch(tx: Sql, now: Date, batch: number): Promise<OrderRow[]> {
  return (await tx`
        update sell_orders set status = 'expired', error_code = 'expired', updated_at = ${now}
        where id in (select id from sell_orders where status in ('quoted', 'pending_payment') and expires_at <= ${now}
                     order by expires_at limit ${batch} for update skip locked)
        returning *`) as OrderRow[]
}

/** Orders in `statuses` untouched since `stale`, oldest first. */
export async function stalledOrders(db: Sql, statuses: OrderStatus[], stale: Date, batch: number): Promise<OrderRow[]> {
  return (await db`
    select * from sell_orders where status in ${db(statuses)} and updated_at <= ${stale}
    order by updated_at limit ${batch}`) as OrderRow[]
}

/** Leases a stalled order by bumping `updated_at` from the value read; undefined when it moved since. */
export async function leaseStalled(tx: Sql, row: { id: string; status: OrderStatus; updated_at: Date }, now: Date): Promise<OrderRow | undefined> {
  const [o] = await tx`
      update sell_orders set updated_at = ${now}
      where id = ${row.id} and status = ${row.status} and updated_at = ${row.updated_at} returning *`
  return o as OrderRow | undefined
}
