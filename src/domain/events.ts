// The outbox (CONTRACT.md section 6). An event row is written in the transaction of the change that
// caused it, carrying the whole envelope as it will be delivered; delivery jobs read it afterwards, so
// nothing is sent from inside a request and nothing committed is lost.
import type { Sql } from '../db/sql.ts'
import { newId } from '../ids.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { insertEvents } from '../db/events.ts'

export const EVENT_TYPES = [
  'connection.created',
  'connection.applied',
  'connection.live',
  'connection.failed',
  'connection.records.updated',
  'connection.reapply.failed',
  'connection.disconnected',
  'connection.records_outdated',
  'domain.record_missing',
  'domain.record_restored',
  'domain.purchased',
  'purchase.error',
  'purchase.confirmation.expired',
  'secure_status',
  'power_status',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export type Envelope = Record<string, unknown> & { id: string; type: EventType; created_at: string }

const PROPAGATION: Partial<Record<EventType, string>> = {
  'connection.created': 'pending',
  'connection.applied': 'pending',
  'connection.live': 'success',
  'connection.failed': 'timeout',
  'connection.records.updated': 'success',
}

/** The envelope of a connection event: flat, fields omitted when they do not apply. */
export function connectionEnvelope(c: ConnectionRow, type: EventType, now: Date, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Envelope {
  const env: Record<string, unknown> = {
    id: newId('evt', now.getTime()),
    type,
    connection_id: c.id,
    application_id: c.application_id,
  }
  if (c.end_user_ref) env.user_id = c.end_user_ref
  env.domain = c.domain
  const sub = c.domain === c.apex_domain ? '' : c.domain.slice(0, -(c.apex_domain.length + 1))
  if (sub) env.subdomain = sub
  if (c.provider_id) env.provider = c.provider_id
  env.setup_type = c.rail
  const prop = PROPAGATION[type]
  if (prop) env.propagation_status = prop
  env.data = data
  if (c.www_redirect) env.redirection_status = c.status === 'live' ? 'success' : c.status === 'failed' ? 'failed' : 'pending'
  if (c.error_code) {
    env.error_code = c.error_code
    if (c.error_message) env.error_message = c.error_message
  }
  Object.assign(env, extra)
  env.created_at = now.toISOString()
  return env as Envelope
}

export async function emit(sql: Sql, tenantId: string, applicationId: string, connectionId: string | null, env: Envelope): Promise<void> {
  await insertEvents(sql, [{ id: env.id, tenant_id: tenantId, application_id: applicationId, connection_id: connectionId, type: env.type, payload: env, created_at: env.created_at }])
}

export async function emitForConnection(sql: Sql, c: ConnectionRow, type: EventType, now: Date, data?: Record<string, unknown>, extra?: Record<string, unknown>): Promise<Envelope> {
  const env = connectionEnvelope(c, type, now, data, extra)
  await emit(sql, c.tenant_id, c.application_id, c.id, env)
  return env
}

/** Writes many connection events in one statement (the monitor sweep's drift events). */
export async function emitMany(sql: Sql, rows: ConnectionRow[], envs: Envelope[]): Promise<void> {
  const byId = new Map(rows.map((r) => [r.id, r]))
  await insertEvents(
    sql,
    envs.map((e) => {
      const c = byId.get(e.connection_id as string)!
      return { id: e.id, tenant_id: c.tenant_id, application_id: c.application_id, connection_id: c.id, type: e.type, payload: e, created_at: e.created_at }
    }),
  )
}
