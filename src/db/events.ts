// The events outbox: the statement that writes it (webhook deliveries fan out from it by a trigger,
// migrations/0003 and 0120), and the reads of the events API. Envelopes are built by
// src/domain/events.ts.
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
 * The one statement that writes the outbox, for one event or many (in the caller's transaction). Each
 * event of a connection takes the connection's next sequence number (under its row lock, so numbers
 * follow commit order), written into the row and put first in its payload. The verification sweep's
 * landing statement is the exception: it writes its events in the same statement as the connections
 * they belong to (verification.ts), to keep the batch to one round trip; it numbers them the same way.
 */
export async function insertEvents(sql: Sql, items: OutboxRow[], opts: { test?: boolean } = {}): Promise<{ id: string; sequence: number | null }[]> {
  if (items.length === 0) return []
  return (await sql`
    with e as (
      select * from json_to_recordset(${items}::json) as e(id text, tenant_id text, application_id text, connection_id text, type text, payload json, created_at timestamptz)
    ), n as (
      select connection_id, count(*)::int as k from e where connection_id is not null group by connection_id
    ), s as (
      update connections c set event_seq = c.event_seq + n.k from n where c.id = n.connection_id returning c.id, c.event_seq
    ), numbered as (
      select e.*, s.event_seq - count(*) over w + row_number() over (w order by e.id) as seq
      from e left join s on s.id = e.connection_id
      window w as (partition by e.connection_id)
    )
    insert into events (id, tenant_id, application_id, connection_id, type, payload, created_at, sequence, test)
    select id, tenant_id, application_id, connection_id, type, event_payload(payload, seq), created_at, seq, ${opts.test ?? false}
    from numbered
    returning id, sequence::int as sequence`) as { id: string; sequence: number | null }[]
}

/** An event as the events API reads it. */
export interface EventRow {
  id: string
  application_id: string
  connection_id: string | null
  type: string
  sequence: number | null
  /** The envelope as delivered (its JSON text). */
  payload: string
}

export interface EventFilter {
  tenantId: string
  appId: string | null
  type?: string
  connectionId?: string
  /** Time-ordered id bounds (from `created_after` / `created_before`). */
  fromId?: string
  toId?: string
  /** Sequence bounds, with `connectionId`. */
  afterSequence?: number
}

/**
 * One page of a workspace's events (never test events), oldest first from `after` (an id, exclusive),
 * one more than `limit` to tell a next page; one connection's in sequence order. Only the filters given
 * are in the statement, so the generic plan walks the index the filter names.
 */
export async function eventsPage(sql: Sql, f: EventFilter, after: string, limit: number): Promise<EventRow[]> {
  const cols = sql`id, application_id, connection_id, type, sequence::int as sequence, payload::text as payload`
  if (f.connectionId) {
    return (await sql`
      select ${cols} from events
      where connection_id = ${f.connectionId} and tenant_id = ${f.tenantId} and not test
        and sequence > ${f.afterSequence ?? 0}
        ${after ? sql`and id > ${after}` : sql``}
        ${f.appId ? sql`and application_id = ${f.appId}` : sql``}
        ${f.type ? sql`and type = ${f.type}` : sql``}
        ${f.fromId ? sql`and id >= ${f.fromId}` : sql``}
        ${f.toId ? sql`and id < ${f.toId}` : sql``}
      order by sequence limit ${limit + 1}`) as EventRow[]
  }
  return (await sql`
    select ${cols} from events
    where tenant_id = ${f.tenantId} and not test
      and id > ${after > (f.fromId ?? '') ? after : (f.fromId ?? '')}
      ${f.toId ? sql`and id < ${f.toId}` : sql``}
      ${f.appId ? sql`and application_id = ${f.appId}` : sql``}
      ${f.type ? sql`and type = ${f.type}` : sql``}
    order by id limit ${limit + 1}`) as EventRow[]
}

/** One event of the workspace (a test event too, by its id). */
export async function eventInTenant(sql: Sql, tenantId: string, id: string, appId: string | null): Promise<EventRow | undefined> {
  const [row] = (await sql`
    select id, application_id, connection_id, type, sequence::int as sequence, payload::text as payload from events
    where id = ${id} and tenant_id = ${tenantId} ${appId ? sql`and application_id = ${appId}` : sql``}`) as EventRow[]
  return row
}

/**
 * Deletes up to `batch` events minted before `beforeId` (older than the retention period), except any
 * a delivery still waits to send. Answers how many went.
 */
export async function deleteEventsBefore(sql: Sql, beforeId: string, batch: number): Promise<number> {
  const rows = await sql`
    delete from events e where e.id in (
      select o.id from events o where o.id < ${beforeId}
        and not exists (select 1 from webhook_deliveries d where d.event_id = o.id)
      order by o.id limit ${batch})
    returning 1`
  return rows.length
}

/** The oldest event kept (its id), for the events API's statement of what it still holds. */
export async function oldestEventId(sql: Sql): Promise<string | null> {
  const [row] = (await sql`select min(id) as id from events`) as { id: string | null }[]
  return row?.id ?? null
}
