// The events outbox: the one statement that writes it (webhook deliveries fan out from it). Envelopes
// are built by src/domain/events.ts.
import type { Sql } from './sql.ts'

/** One outbox row: the envelope and the keys deliveries are fanned out by. */
export interface OutboxRow {
  id: string
  tenant_id: string
  application_id: string
  connection_id: string | null
  type: string
  payload: object
  created_at: string
}

/**
 * The one statement that writes the outbox, for one event or many (in the caller's transaction). The
 * verification sweep's landing statement is the exception: it writes its events in the same statement
 * as the connections they belong to (verification.ts), to keep the batch to one round trip.
 */
export async function insertEvents(sql: Sql, items: OutboxRow[]): Promise<void> {
  if (items.length === 0) return
  await sql`
    insert into events (id, tenant_id, application_id, connection_id, type, payload, created_at)
    select id, tenant_id, application_id, connection_id, type, payload, created_at
    from json_to_recordset(${items}::json) as e(id text, tenant_id text, application_id text, connection_id text, type text, payload json, created_at timestamptz)`
}

