// Queries of webhook endpoints and their deliveries' attempts, as the API reads them; delivery itself
// is src/domain/webhook-delivery.ts (its statements: webhook-delivery.ts).
import type { AttemptRecord } from './webhook-delivery.ts'
import { newId } from '../ids.ts'
import type { Sql } from './sql.ts'
import { notify, WORK_CHANNEL } from './channels.ts'

export interface WebhookRow {
  id: string
  tenant_id: string
  application_id: string
  url: string
  events: string[]
  secret_sealed: string
  created_at: Date
  disabled_at: Date | null
  disabled_reason: string | null
}

/** What the caller may see: its tenant, and one application when `appId` is set (a widget token). */
type Scope = { tenantId: string; appId: string | null }

export async function insertWebhook(
  sql: Sql,
  now: Date,
  p: { tenantId: string },
  appId: string,
  input: { url: string },
  events: string[],
  sealed: string,
): Promise<WebhookRow> {
  const [w] = (await sql`
      insert into webhooks (id, tenant_id, application_id, url, events, secret_sealed, created_at)
      values (${newId('whk', now.getTime())}, ${p.tenantId}, ${appId}, ${input.url}, ${events}::text[],
              ${sealed}, ${now})
      returning *`) as WebhookRow[]
  return w!
}

export async function webhooksInScope(sql: Sql, s: Scope): Promise<WebhookRow[]> {
  return (await sql`
      select * from webhooks where tenant_id = ${s.tenantId} and deleted_at is null
        and (${s.appId}::text is null or application_id = ${s.appId}) order by id`) as WebhookRow[]
}

/**
 * Gives a live endpoint a new sealed secret; the one it replaces keeps signing until `previousUntil`
 * (null: stops at once). Undefined when the endpoint is not in scope or removed.
 */
export async function rotateWebhookSecret(sql: Sql, input: { id: string }, s: Scope, sealed: string, previousUntil: Date | null): Promise<WebhookRow | undefined> {
  const [w] = (await sql`
      update webhooks set previous_secret_sealed = case when ${previousUntil}::timestamptz is null then null else secret_sealed end,
        previous_secret_until = ${previousUntil}, secret_sealed = ${sealed}
      where id = ${input.id} and tenant_id = ${s.tenantId} and (${s.appId}::text is null or application_id = ${s.appId}) and deleted_at is null
      returning *`) as WebhookRow[]
  return w
}

/** Removes an endpoint (once; a removed one keeps its first time); undefined when it is not in scope. */
export async function deleteWebhook(sql: Sql, now: Date, input: { id: string }, s: Scope): Promise<{ id: string } | undefined> {
  const [w] = await sql`
      update webhooks set deleted_at = coalesce(deleted_at, ${now})
      where id = ${input.id} and tenant_id = ${s.tenantId} and (${s.appId}::text is null or application_id = ${s.appId})
      returning id`
  return w as { id: string } | undefined
}

/**
 * One page of delivery attempts, newest first; one more than `limit` tells a next page. Only the
 * filters given are in the statement, so the prepared statement's generic plan walks the workspace's
 * index from the cursor (see connectionVersionsPage in src/db/connections.ts).
 */
export async function attemptsPage(sql: Sql, s: Scope, input: { type?: string }, before: string, limit: number) {
  return (await sql`
      select * from webhook_attempts
      where tenant_id = ${s.tenantId} and id < ${before}
        ${s.appId ? sql`and application_id = ${s.appId}` : sql``}
        ${input.type !== undefined ? sql`and event_type = ${input.type}` : sql``}
      order by id desc limit ${limit + 1}`) as (Omit<AttemptRecord, 'tenant_id' | 'created_at'> & { created_at: Date })[]
}

/** A queued delivery, or a finished one known by its attempts, by its id or one of its attempts' ids. */
export async function deliveryInScope(db: Sql, input: { id: string }, s: Scope): Promise<{ id: string; deleted_at: Date | null } | undefined> {
  const [d] = await db`
      select d.id, w.deleted_at from (
        select id, tenant_id, application_id, endpoint_id from webhook_deliveries where id = ${input.id}
        union all
        select delivery_id, tenant_id, application_id, endpoint_id from webhook_attempts
        where delivery_id = ${input.id} or id = ${input.id}
      ) d join webhooks w on w.id = d.endpoint_id
      where d.tenant_id = ${s.tenantId} and (${s.appId}::text is null or d.application_id = ${s.appId})
      limit 1`
  return d as { id: string; deleted_at: Date | null } | undefined
}

/** A live endpoint of the caller's scope, by id. */
export async function webhookInScope(sql: Sql, id: string, s: Scope): Promise<WebhookRow | undefined> {
  const [w] = (await sql`
      select * from webhooks where id = ${id} and tenant_id = ${s.tenantId} and deleted_at is null
        and (${s.appId}::text is null or application_id = ${s.appId})`) as WebhookRow[]
  return w
}

/** An event to send to one endpoint again (a replay) or for the first time (a test event). */
export interface Requeue {
  event_id: string
  event_type: string
  connection_id: string | null
  sequence: number | null
}

/** The endpoint is taken to be back: its run of failures and its pause for new events end. */
export async function endPause(sql: Sql, id: string): Promise<void> {
  await sql`update webhooks set failures = 0, paused_until = null where id = ${id} and (failures > 0 or paused_until is not null)`
}

/**
 * The endpoint's deliveries that ended without a 2xx, of events minted in [fromId, toId) that it is
 * subscribed to: each was attempted, none of its attempts was delivered, and it is not queued now.
 * Oldest first, at most `limit` + 1 (one more tells there are more).
 */
export async function failedDeliveries(sql: Sql, w: Pick<WebhookRow, 'id' | 'application_id' | 'events'> & { tenant_id: string }, fromId: string, toId: string, limit: number): Promise<(Requeue & { created_at: Date })[]> {
  const all = w.events.length === 0 || w.events.includes('*')
  return (await sql`
    select e.id as event_id, e.type as event_type, e.connection_id, e.sequence::int as sequence, e.created_at
    from events e
    cross join lateral (select 'whd_' || substr(e.id, 5) || '_' || substr(${w.id}::text, 5) as delivery_id) k
    where e.tenant_id = ${w.tenant_id} and e.application_id = ${w.application_id} and not e.test
      and e.id >= ${fromId} and e.id < ${toId}
      ${all ? sql`` : sql`and e.type = any(${w.events}::text[])`}
      and exists (select 1 from webhook_attempts a where a.delivery_id = k.delivery_id)
      and not exists (select 1 from webhook_attempts a where a.delivery_id = k.delivery_id and a.delivered)
      and not exists (select 1 from webhook_deliveries d where d.id = k.delivery_id)
    order by e.id limit ${limit + 1}`) as (Requeue & { created_at: Date })[]
}

/**
 * Queues deliveries of these events to one endpoint, due now, with fresh attempts; a connection's
 * delivery waits behind an earlier queued one of its connection, as fanned-out ones do (migration
 * 0120): the connections' rows are locked first, so no event of theirs is fanned out meanwhile. One
 * already queued is left as it is. Answers how many were queued.
 */
export async function queueDeliveries(sql: Sql, w: { id: string; tenant_id: string; application_id: string }, items: Requeue[], now: Date): Promise<number> {
  if (items.length === 0) return 0
  const connections = [...new Set(items.flatMap((i) => (i.connection_id ? [i.connection_id] : [])))].sort()
  if (connections.length) await sql`select id from connections where id = any(${connections}::text[]) order by id for update`
  const rows = await sql`
    insert into webhook_deliveries (id, tenant_id, application_id, endpoint_id, event_id, event_type, connection_id, sequence,
                                    next_attempt_at, created_at, updated_at)
    select 'whd_' || substr(i.event_id, 5) || '_' || substr(${w.id}::text, 5), ${w.tenant_id}, ${w.application_id}, ${w.id}, i.event_id,
           i.event_type, i.connection_id, i.sequence,
           case when i.sequence is not null and (
                  row_number() over (partition by i.connection_id order by i.sequence) > 1
                  or exists (select 1 from webhook_deliveries q where q.endpoint_id = ${w.id} and q.connection_id = i.connection_id))
                then 'infinity'::timestamptz else ${now}::timestamptz end,
           ${now}, ${now}
    from json_to_recordset(${items}::json) as i(event_id text, event_type text, connection_id text, sequence bigint)
    on conflict (id) do nothing
    returning 1`
  if (rows.length) await notify(sql, WORK_CHANNEL, 'webhook-deliver')
  return rows.length
}
