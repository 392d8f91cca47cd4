// Queries of Domain Connect consent sessions (the asynchronous rail's callback; the operations are in
// src/ops/domain-connect/); the grant kept afterwards is src/domain/domain-connect/async-api.ts.
import type { ConnectionRow } from './connections.ts'
import { sha256 } from '../crypto.ts'
import type { Sql } from './sql.ts'

export interface ConsentScope {
  tenant_id: string
  application_id: string
  connection_id: string
  dc_provider_id: string
  url_api: string
  template_provider_id: string
  service_ids: string[]
  apex: string
  host: string
  applies: ApplyStep[]
  /** The redirect_uri of the consent; the draft wants it again on every token request. */
  redirect_uri: string
}

export interface ApplyStep {
  service_id: string
  /** Null: every record of the template. */
  group_ids: string[] | null
  params: Record<string, string>
}

export interface SessionRow extends ConsentScope {
  state_hash: Buffer
  return_url: string | null
  expires_at: Date
  used_at: Date | null
  outcome: CallbackOutcome | null
}

export interface CallbackOutcome {
  connection_id: string
  domain: string
  applied: boolean
  service_ids: string[]
  error?: string
  error_description?: string
}

/** A consent started: the session the callback will find by its state's hash. */
export async function insertConsentSession(
  sql: Sql,
  v: {
    state: string
    c: Pick<ConnectionRow, 'id' | 'tenant_id' | 'application_id'>
    dc: { providerId: string }
    client: { url_api: string }
    first: { template: { providerId: string }; domain: string; host: string }
    serviceIds: string[]
    applies: ApplyStep[]
    callback: string
    input: { redirect_uri?: string }
    now: Date
    ttlMs: number
  },
): Promise<void> {
  const { state, c, dc, client, first, serviceIds, applies, callback, input, now, ttlMs } = v
  await sql`
      insert into domain_connect_sessions (state_hash, tenant_id, application_id, connection_id, dc_provider_id, url_api, template_provider_id,
        service_ids, apex, host, applies, redirect_uri, return_url, created_at, expires_at)
      values (${sha256(state)}, ${c.tenant_id}, ${c.application_id}, ${c.id}, ${dc.providerId}, ${client.url_api},
        ${first.template.providerId}, ${serviceIds}::text[], ${first.domain}, ${first.host}, ${applies}::jsonb, ${callback}, ${input.redirect_uri ?? null}, ${now}, ${new Date(now.getTime() + ttlMs)})`
}

export async function consentSession(db: Sql, state: string): Promise<SessionRow | undefined> {
  const [row] = await db`select * from domain_connect_sessions where state_hash = ${sha256(state)}`
  return row as SessionRow | undefined
}

/** Single use: true for the one callback that claims the session. */
export async function claimConsentSession(sql: Sql, s: Pick<SessionRow, 'state_hash'>, now: Date): Promise<boolean> {
  const claimed = await sql`update domain_connect_sessions set used_at = ${now} where state_hash = ${s.state_hash} and used_at is null returning state_hash`
  return claimed.length > 0
}

/** What the callback that claimed the session answered (null while it is still running). */
export async function consentOutcome(sql: Sql, s: Pick<SessionRow, 'state_hash'>): Promise<CallbackOutcome | null | undefined> {
  const [again] = await sql`select outcome from domain_connect_sessions where state_hash = ${s.state_hash}`
  return (again as { outcome: CallbackOutcome | null } | undefined)?.outcome
}

export async function saveConsentOutcome(sql: Sql, s: Pick<SessionRow, 'state_hash'>, outcome: CallbackOutcome): Promise<void> {
  await sql`update domain_connect_sessions set outcome = ${outcome}::jsonb where state_hash = ${s.state_hash}`
}

/** The session's connection is still open (nothing is written at the provider for one removed meanwhile). */
export async function connectionOpen(db: Sql, s: Pick<SessionRow, 'connection_id' | 'tenant_id'>): Promise<boolean> {
  const [open] = await db`select 1 from connections where id = ${s.connection_id} and tenant_id = ${s.tenant_id} and disconnected_at is null`
  return !!open
}

/** The session's connection, locked for the rest of the callback's transaction. */
export async function lockConnection(sql: Sql, s: Pick<SessionRow, 'connection_id' | 'tenant_id'>): Promise<ConnectionRow | undefined> {
  const [row] = await sql`select * from connections where id = ${s.connection_id} and tenant_id = ${s.tenant_id} for update`
  return row as ConnectionRow | undefined
}

/** Sessions expired before `before` are deleted; how many went. */
export async function deleteSessionsExpiredBefore(db: Sql, before: Date): Promise<number> {
  const gone = await db`delete from domain_connect_sessions where expires_at < ${before} returning state_hash`
  return gone.length
}
