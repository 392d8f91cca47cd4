// Queries of webhook endpoints and their deliveries' attempts, as the API reads them; delivery itself
// is src/domain/webhook-delivery.ts (its statements: webhook-delivery.ts).
import type { AttemptRecord } from './webhook-delivery.ts'
import { newId } from '../ids.ts'
import type { Sql } from './sql.ts'

export interface WebhookRow {
  id: string
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
