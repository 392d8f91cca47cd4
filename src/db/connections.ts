// Queries that change a connection's columns for one operation. Statements moved from src/ops verbatim;
// the lifecycle's own writes (creation, verification, disconnect) are in src/domain/connect.ts.
import type { ConnectionRow } from '../domain/connections.ts'
import type { Sql } from './sql.ts'

/** The person declined the consent at the provider. */
export async function markConsentDenied(sql: Sql, c: { id: string }, description: string, now: Date): Promise<void> {
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
