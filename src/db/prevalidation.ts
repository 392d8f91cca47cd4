// Queries of pre-validation (src/domain/prevalidation.ts decides; these write what it decided): the
// stage moves, the connections whose certificate is to be ordered through delegated DCV, and what a
// stage waits on.
import type { ConnectionRow } from './connections.ts'
import type { Sql } from './sql.ts'

type Stage = NonNullable<ConnectionRow['validation_stage']>

/** Moves the stage from `from` to `to` when the connection is still there (and in `status` when given); the row, or undefined. */
export async function moveStage(sql: Sql, id: string, from: Stage, to: Stage, now: Date, status?: ConnectionRow['status']): Promise<ConnectionRow | undefined> {
  const [row] = await sql`
    update connections set validation_stage = ${to}, validation_detail = null, updated_at = ${now}
    where id = ${id} and validation_stage = ${from} and (${status ?? null}::text is null or status = ${status ?? null})
    returning *`
  return row as ConnectionRow | undefined
}

/**
 * The certificate is on every edge node: the routing records join the desired ones, the stage is
 * `awaiting_routing`, and verification starts again (now). Undefined when the stage moved already.
 */
export async function askForRouting(sql: Sql, id: string, now: Date): Promise<ConnectionRow | undefined> {
  const [row] = await sql`
    update connections set desired_records = desired_records || coalesce(held_records, '[]'::jsonb), held_records = null,
      validation_stage = 'awaiting_routing', validation_detail = null, next_check_at = ${now}, updated_at = ${now}
    where id = ${id} and validation_stage = 'issuing' and disconnected_at is null
    returning *`
  return row as ConnectionRow | undefined
}

/** An integrator-authored routing set for a connection whose routing records are still held back. */
export async function setHeldRecords(sql: Sql, id: string, records: unknown[], now: Date): Promise<ConnectionRow | undefined> {
  const [row] = await sql`
    update connections set held_records = ${records}::jsonb, records_source = 'custom', updated_at = ${now}
    where id = ${id} and validation_stage in ('awaiting_records', 'issuing') returning *`
  return row as ConnectionRow | undefined
}

/** Says what the stage waits on (null: nothing). */
export async function setValidationDetail(sql: Sql, id: string, detail: string | null): Promise<void> {
  await sql`update connections set validation_detail = ${detail} where id = ${id} and validation_detail is distinct from ${detail}`
}

/**
 * Connections in stage `issuing` whose order is due: none yet, a failed one past its retry time, a
 * stale pending one, or one issued but not yet known on every edge node. Oldest first.
 */
export async function issuingDue(db: Sql, q: { now: Date; staleBefore: Date; limit: number }) {
  return (await db`
    select c.* from connections c
    left join certificates k on k.connection_id = c.id and k.status <> 'removed'
    where c.validation_stage = 'issuing' and c.disconnected_at is null
      and (k.id is null or k.status = 'issued'
        or (k.status = 'failed' and k.retry_at <= ${q.now})
        or (k.status = 'pending' and (k.updated_at < ${q.staleBefore} or k.retry_at <= ${q.now})))
    order by c.id limit ${q.limit}`) as ConnectionRow[]
}

/** When the earliest failed pre-validation order may be tried again. */
export async function nextIssuingRetry(db: Sql): Promise<Date | null> {
  const [row] = (await db`
    select min(k.retry_at) as at from certificates k join connections c on c.id = k.connection_id
    where k.status in ('failed', 'pending') and c.validation_stage = 'issuing' and c.disconnected_at is null`) as { at: Date | null }[]
  return row?.at ?? null
}

/**
 * The `_acme-challenge` delegations one DNS name shares (issue 50): every connection made through
 * delegated DCV for `base` or `*.<base>`, open ones first, then the newest. The delegation is one per
 * DNS name, so a tenant's apex and wildcard of one name, and a reconnect of the same host, take the
 * label kept here.
 */
export async function delegationsOfName(sql: Sql, base: string): Promise<Pick<ConnectionRow, 'id' | 'tenant_id' | 'domain' | 'dcv_label' | 'disconnected_at' | 'desired_records'>[]> {
  return (await sql`
    select id, tenant_id, domain, dcv_label, disconnected_at, desired_records from connections
    where domain in (${base}, ${'*.' + base}) and dcv_label is not null
    order by (disconnected_at is null) desc, created_at desc`) as never
}

/** Says `detail` on every open connection in stage `issuing` that does not say it yet; how many. */
export async function sayOnIssuing(db: Sql, detail: string): Promise<number> {
  const rows = await db`
    update connections set validation_detail = ${detail}
    where validation_stage = 'issuing' and disconnected_at is null and validation_detail is distinct from ${detail}
    returning id`
  return rows.length
}
