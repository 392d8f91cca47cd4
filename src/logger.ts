// Structured JSON logs, one object a line. Callers pass fields, never secrets: request logs carry the
// path without its query string, and credentials are never handed to the logger.
// Lines are buffered and written together (at most every 20 ms, or at 64 KiB): a write system call
// per request costs more than the rest of a cached read. Errors are written at once.
type Level = 'debug' | 'info' | 'warn' | 'error'
const RANK = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
const FLUSH_MS = 20
const FLUSH_BYTES = 64 * 1024

let threshold: number = RANK.info
let buffer = ''
let timer: ReturnType<typeof setTimeout> | null = null

export function setLogLevel(level: keyof typeof RANK): void {
  threshold = RANK[level]
}

export function flushLogs(): void {
  if (timer) clearTimeout(timer)
  timer = null
  if (buffer === '') return
  const out = buffer
  buffer = ''
  process.stdout.write(out)
}

process.on('exit', flushLogs)

let lastMs = 0
let lastIso = ''
function isoNow(): string {
  const ms = Date.now()
  if (ms !== lastMs) {
    lastMs = ms
    lastIso = new Date(ms).toISOString()
  }
  return lastIso
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (RANK[level] < threshold) return
  const line = JSON.stringify({ level, time: isoNow(), msg, ...fields }) + '\n'
  if (level === 'error') {
    flushLogs()
    process.stderr.write(line)
    return
  }
  buffer += line
  if (buffer.length >= FLUSH_BYTES) flushLogs()
  else timer ??= setTimeout(flushLogs, FLUSH_MS)
}

export const log = {
  debug: (msg: string, f?: Record<string, unknown>) => write('debug', msg, f),
  info: (msg: string, f?: Record<string, unknown>) => write('info', msg, f),
  warn: (msg: string, f?: Record<string, unknown>) => write('warn', msg, f),
  error: (msg: string, f?: Record<string, unknown>) => write('error', msg, f),
}

/**
 * Logs what an answered error was caused by (an adapter's failure behind a 422), with the request id
 * or the job's fields: the cause is for the log, never for the answer, so a bug is seen here and not
 * only as a refusal.
 */
export function logCause(err: unknown, fields: Record<string, unknown>): void {
  const cause = err instanceof Error ? err.cause : undefined
  if (cause !== undefined) log.warn('error cause', { ...fields, ...errorFields(cause) })
}

export function errorFields(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { error: err.message, stack: err.stack }
  return { error: String(err) }
}
