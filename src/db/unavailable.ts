// Which database failures mean "the database cannot be reached right now" (answered 503 with
// Retry-After, never 500): a refused or closed connection, a server shutting down or starting up, too
// many connections, and a statement cancelled by STATEMENT_TIMEOUT_MS. Anything else (a constraint, a
// syntax error) is a bug or a conflict and keeps its own answer.

/** SQLSTATE classes and codes of an unreachable or overloaded server (PostgreSQL appendix A). */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '57P04', '57P05', '53300', '53400', '57014', '58030'])

/** Bun's client codes for a connection that failed or was lost. */
const CLIENT_CODES = /^ERR_POSTGRES_(CONNECTION_|IDLE_TIMEOUT|LIFETIME_TIMEOUT|POOL)|^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTCONN)$/

export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseFailure(err) !== null
}

/** `unreachable`: the server is gone or refuses connections; `overloaded`: it answered, too slowly or too busy. */
export function databaseFailure(err: unknown): 'unreachable' | 'overloaded' | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, errno } = e as { code?: unknown; errno?: unknown }
    const state = typeof errno === 'string' ? errno : typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null
    if (state && (state === '57014' || state === '53300' || state === '53400')) return 'overloaded'
    if (state && (UNAVAILABLE_STATES.has(state) || state.startsWith('08'))) return 'unreachable'
    if (typeof code === 'string' && CLIENT_CODES.test(code)) return 'unreachable'
  }
  return null
}
