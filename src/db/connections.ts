// Queries that change a connection's columns for one operation. Statements moved from src/ops verbatim;
// the lifecycle's own writes (creation, verification, disconnect) are in src/domain/connect.ts.
import type { RailConnection } from '../domain/apply.ts'
import type { ConnectionRow } from '../domain/connections.ts'
import type { Sql } from './sql.ts'

/** The person declined the consent or the sign-in at the provider. */
export async function markAccessDenied(sql: Sql, c: { id: string }, description: string, now: Date): Promise<void> {
  await sql`update connections set error_code = 'access_denied', error_message = ${description}, updated_at = ${now} where id = ${c.id}`
}

/** The provider applied the templates through the consent: the connection is managed and re-verified now. */
export async function markAppliedThroughConsent(sql: Sql, c: { id: string }, now: Date): Promise<ConnectionRow> {
  const [updated] = await sql`
        update connections set rail = 'domain_connect', managed = true, records_written_at = ${now}, error_code = null, error_message = null,
          status = case when status in ('pending', 'failed') then 'propagating' else status end,
          propagating_since = case when status in ('pending', 'failed') then ${now}::timestamptz else propagating_since end,
          retried_at = case when status = 'failed' then ${now}::timestamptz else retried_at end, failed_at = null,
          next_check_at = ${now}, updated_at = ${now}
        where id = ${c.id} returning *`
  return updated as ConnectionRow
}

/** A connection as the rails read it (with what they applied), by id. */
export async function railConnection(db: Sql, c: { id: string }): Promise<RailConnection> {
  const [row] = await db`select * from connections where id = ${c.id}`
  return row as RailConnection
}

/** An open connection by id (any tenant: the caller found it in its tenant already). */
export async function openRailConnection(db: Sql, conn: { id: string }): Promise<RailConnection | undefined> {
  const [row] = await db`select * from connections where id = ${conn.id} and disconnected_at is null`
  return row as RailConnection | undefined
}

/** An open connection of a tenant (a provider sign-in's callback). */
export async function openRailConnectionInTenant(db: Sql, s: { connection_id: string; tenant_id: string }): Promise<RailConnection | undefined> {
  const [row] = await db`select * from connections where id = ${s.connection_id} and tenant_id = ${s.tenant_id} and disconnected_at is null`
  return row as RailConnection | undefined
}

/** A re-apply through a kept grant worked: the connection no longer needs re-authorizing. */
export async function clearReauthorize(tx: Sql, c: { id: string }, now: Date): Promise<RailConnection> {
  const [fresh] = await tx`update connections set reauthorize_needed_at = null, updated_at = ${now} where id = ${c.id} returning *`
  return fresh as RailConnection
}
