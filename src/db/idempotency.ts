// Queries of Idempotency-Key records (src/http/idempotency.ts has the rules).
import type { Sql } from './sql.ts'

export interface IdempotencyRow {
  op_id: string
  request_hash: string
  state: 'running' | 'done'
  locked_until: Date | null
  status: number | null
  body: unknown
  headers: Record<string, string> | null
  expires_at: Date
}

export interface Claim {
  scope: string
  key: string
  tenantId: string | null
  opId: string
  hash: string
  now: Date
  leaseUntil: Date
  expiresAt: Date
}

/**
 * Takes the key for this request: when it is new or expired, or when a request with the same body
 * holds it under a lease that ran out (its process died). True when this request now holds it.
 */
export async function claimKey(sql: Sql, c: Claim): Promise<boolean> {
  const rows = await sql`
    insert into idempotency_keys (scope, key, tenant_id, op_id, request_hash, state, locked_until, created_at, expires_at)
    values (${c.scope}, ${c.key}, ${c.tenantId}, ${c.opId}, ${c.hash}, 'running', ${c.leaseUntil}, ${c.now}, ${c.expiresAt})
    on conflict (scope, key) do update set
      tenant_id = excluded.tenant_id, op_id = excluded.op_id, request_hash = excluded.request_hash, state = 'running',
      locked_until = excluded.locked_until, status = null, body = null, headers = null,
      created_at = case when idempotency_keys.expires_at <= ${c.now} then excluded.created_at else idempotency_keys.created_at end,
      expires_at = case when idempotency_keys.expires_at <= ${c.now} then excluded.expires_at else idempotency_keys.expires_at end
    where idempotency_keys.expires_at <= ${c.now}
       or (idempotency_keys.state = 'running' and idempotency_keys.locked_until <= ${c.now}
           and idempotency_keys.op_id = excluded.op_id and idempotency_keys.request_hash = excluded.request_hash)
    returning 1`
  return rows.length > 0
}

export async function keyRow(sql: Sql, scope: string, key: string): Promise<IdempotencyRow | undefined> {
  const [r] = await sql`select op_id, request_hash, state, locked_until, status, body, headers, expires_at from idempotency_keys where scope = ${scope} and key = ${key}`
  return r as IdempotencyRow | undefined
}

/** The answer, written in the operation's transaction: the key is bound to it from the commit on. */
export async function storeAnswer(sql: Sql, scope: string, key: string, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
  await sql`
    update idempotency_keys set state = 'done', locked_until = null, status = ${status}, body = ${body}::json, headers = ${headers}::json
    where scope = ${scope} and key = ${key}`
}

/** An error answer releases the key (nothing of the request was kept). */
export async function releaseKey(sql: Sql, scope: string, key: string, hash: string): Promise<void> {
  await sql`delete from idempotency_keys where scope = ${scope} and key = ${key} and state = 'running' and request_hash = ${hash}`
}

export async function deleteExpiredKeys(sql: Sql, now: Date): Promise<number> {
  const rows = await sql`delete from idempotency_keys where expires_at <= ${now} returning 1`
  return rows.length
}
