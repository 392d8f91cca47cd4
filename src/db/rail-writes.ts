// Queries of a write through a rail (src/domain/apply.ts): the lease that keeps two writers apart, the
// priors recorded before the provider is written to, and the connection's state after.
import { statusColumns, type RailRow, type StatusWrite } from './connections.ts'
import type { Sql } from './sql.ts'
import { leaseHandle } from './write-guard.ts'

/**
 * Takes the connection's rail lease until `until` unless another holds it, and answers the connection
 * as it is now; undefined when it is taken or the connection is closed. The lease is the one write made
 * outside a transaction (leaseHandle): it records no change of state and expires on its own.
 */
export async function takeRailLease<A = unknown>(db: Sql, c: { id: string }, now: Date, until: Date): Promise<RailRow<A> | undefined> {
  const [row] = await leaseHandle(db)`
    update connections set rail_lease_until = ${until}
    where id = ${c.id} and disconnected_at is null and (rail_lease_until is null or rail_lease_until < ${now})
    returning *`
  return row as RailRow<A> | undefined
}

export async function releaseRailLease(db: Sql, id: string): Promise<void> {
  await leaseHandle(db)`update connections set rail_lease_until = null where id = ${id}`
}

export async function isOpenConnection(db: Sql, c: { id: string }): Promise<boolean> {
  const [exists] = await db`select 1 from connections where id = ${c.id} and disconnected_at is null`
  return !!exists
}

/** What the rail is about to write (the priors), kept before the provider is written to. */
export async function setApplied(tx: Sql, c: { id: string }, state: object | null): Promise<void> {
  await tx`update connections set applied = ${state}::jsonb where id = ${c.id} and disconnected_at is null`
}

/** The provider's refusal, diagnosed, on the connection. */
export async function setRailError(tx: Sql, c: { id: string }, code: string, message: string, now: Date): Promise<void> {
  await tx`update connections set error_code = ${code}, error_message = ${message}, updated_at = ${now} where id = ${c.id} and disconnected_at is null`
}

/**
 * The records are written: the connection is on this rail, with the status change src/domain/transitions.ts
 * decided (`s`); undefined when it was closed meanwhile or is no longer in `s.from`.
 */
export async function markWritten<A = unknown>(
  tx: Sql,
  c: { id: string },
  w: { rail: string; managed: boolean; accountId: string | null; changed: boolean },
  s: StatusWrite,
  now: Date,
): Promise<RailRow<A> | undefined> {
  const [r] = await tx`
      update connections set rail = ${w.rail}, managed = ${w.managed}, provider_account_id = ${w.accountId},
        applied_at = ${now}, records_written_at = case when ${w.changed} or records_written_at is null then ${now}::timestamptz else records_written_at end,
        reauthorize_needed_at = null, ${statusColumns(tx, s, now)}
      where id = ${c.id} and disconnected_at is null and status = ${s.from} returning *`
  return r as RailRow<A> | undefined
}
