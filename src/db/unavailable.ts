// Which database failures mean "the database cannot do this right now" (answered 503 with Retry-After,
// never 500), and which kind:
// - `unreachable`: a refused or closed connection, a server shutting down or starting up;
// - `overloaded`: too many connections, a statement cancelled by STATEMENT_TIMEOUT_MS, out of memory;
// - `read_only`: the server refuses writes (a failover onto a replica, default_transaction_read_only);
// - `full`: the server cannot write for lack of disk space.
// Anything else (a constraint, a syntax error) is a bug or a conflict and keeps its own answer.

export type DatabaseFailure = 'unreachable' | 'overloaded' | 'read_only' | 'full'

/** Bun's client codes for a connection that failed or was lost. */
const CLIENT_CODES = /^ERR_POSTGRES_(CONNECTION_|IDLE_TIMEOUT|LIFETIME_TIMEOUT|POOL)|^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTCONN)$/

/** A SQLSTATE's kind (PostgreSQL appendix A), or null. */
function stateKind(state: string): DatabaseFailure | null {
  switch (state) {
    case '25006': // read_only_sql_transaction: a standby, or default_transaction_read_only
      return 'read_only'
    case '53100': // disk_full
      return 'full'
    case '57014': // query_canceled (statement_timeout)
    case '53000': // insufficient_resources
    case '53200': // out_of_memory
    case '53300': // too_many_connections
    case '53400': // configuration_limit_exceeded
      return 'overloaded'
    case '57P01': // admin_shutdown
    case '57P02': // crash_shutdown
    case '57P03': // cannot_connect_now
    case '57P04': // database_dropped
    case '57P05': // idle_session_timeout
    case '58030': // io_error
      return 'unreachable'
  }
  return state.startsWith('08') ? 'unreachable' : null
}

export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseFailure(err) !== null
}

export function databaseFailure(err: unknown): DatabaseFailure | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, errno } = e as { code?: unknown; errno?: unknown }
    const state = typeof errno === 'string' ? errno : typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null
    const kind = state ? stateKind(state) : null
    if (kind) return kind
    if (typeof code === 'string' && CLIENT_CODES.test(code)) return 'unreachable'
  }
  return null
}

/** Whether `err` is a unique violation (SQLSTATE 23505): a row another transaction inserted first. */
export function isUniqueViolation(err: unknown): boolean {
  const { code, errno } = (err ?? {}) as { code?: unknown; errno?: unknown }
  return errno === '23505' || code === '23505'
}

/**
 * Whether `err` is a pooled session the server had ended (a failover, `pg_terminate_backend`,
 * `idle_session_timeout`, a closed socket), found on its next use: the statement never ran there.
 */
export function sessionEnded(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, errno } = e as { code?: unknown; errno?: unknown }
    if (errno === '57P01' || errno === '57P05' || code === '57P01' || code === '57P05' || code === 'ERR_POSTGRES_CONNECTION_CLOSED') return true
  }
  return false
}

/** Tries on a session ended by the server before one that answers is found (one per pooled session at most). */
export const ENDED_SESSION_TRIES = 8

/**
 * `fn`, begun again while it meets pooled sessions the server had ended (each is dropped and the pool
 * opens a fresh one); a database really gone is refused on the fresh session and answered as such.
 * Only for work that is safe to begin again: a read, or a transaction whose BEGIN failed.
 */
export async function againOnEndedSession<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      if (attempt >= ENDED_SESSION_TRIES || !sessionEnded(err)) throw err
    }
  }
}
