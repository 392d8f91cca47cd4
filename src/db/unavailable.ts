// Which database failures mean "the database cannot be reached right now" (answered 503 with
// Retry-After, never 500): a refused or closed connection, a server shutting down or starting up, too
// many connections, and a statement cancelled by STATEMENT_TIMEOUT_MS. Anything else (a constraint, a
// syntax error) is a bug or a conflict and keeps its own answer.

/** SQLSTATE classes and codes of an unreachable or overloaded server (PostgreSQL appendix A). */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '57P04', '57P05', '53300', '53400', '57014', '58030'])

/** Bun's client codes for a connection that failed or was lost. */
const CLIENT_CODES = /^ERR_POSTGRES_(CONNECTION_|IDLE_TIMEOUT|LIFETIME_TIMEOUT|POOL)|^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTCONN)$/

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, errno } = e as { code?: unknown; errno?: unknown }
    if (typeof errno === 'string' && (UNAVAILABLE_STATES.has(errno) || errno.startsWith('08'))) return true
    if (typeof code === 'string' && (CLIENT_CODES.test(code) || UNAVAILABLE_STATES.has(code) || /^08/.test(code))) return true
  }
  return false
}
