// PostgreSQL NOTIFY channels shared by the writer and its listeners, named once, and the statement that notifies.
import type { Sql } from './sql.ts'

/** A revoked API key's hash (hex): every process's key cache evicts it (src/adapters/key-cache.ts). */
export const KEYS_CHANNEL = 'portico_keys'

/** A payload on KEYS_CHANNEL that names a credential just made valid (`+` and its SHA-256, hex), not a revoked one. */
export const VALID_PREFIX = '+'

/** Database triggers and the sweeps NOTIFY this channel with a queue name when they make work due (src/jobs/index.ts listens). */
export const WORK_CHANNEL = 'portico_work'

/** Notifies `channel` (delivered at commit when `sql` is a transaction). */
export async function notify(sql: Sql, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`
}
