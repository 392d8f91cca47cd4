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
  // Written as the one object it is, without copying the fields into a new one first (the request log
  // runs on every request). The fields' own `level`, `time` or `msg` would be a second key: a caller
  // never passes those, and an own key is kept rather than overridden.
  const rest = fields === undefined ? '{}' : JSON.stringify(fields)
  emit(level, `{"level":"${level}","time":"${isoNow()}","msg":${JSON.stringify(msg)}${rest.length > 2 ? `,${rest.slice(1)}` : '}'}\n`)
}

function emit(level: Level, line: string): void {
  if (level === 'error') {
    flushLogs()
    process.stderr.write(line)
    return
  }
  buffer += line
  if (buffer.length >= FLUSH_BYTES) flushLogs()
  else timer ??= setTimeout(flushLogs, FLUSH_MS)
}

/**
 * The request log line (one per REST request), written field by field: the same object `log.info`
 * would write for these fields, without building one first. Only the path and the request id come
 * from the caller's request; they are escaped as JSON.
 */
export function logRequest(method: string, path: string, op: string | undefined, status: number, durationMs: number, requestId: string): void {
  if (RANK.info < threshold) return
  emit(
    'info',
    `{"level":"info","time":"${isoNow()}","msg":"request","method":${quoted(method)},"path":${quoted(path)}${op === undefined ? '' : `,"op":${quoted(op)}`},"status":${status},"duration_ms":${durationMs},"request_id":${quoted(requestId)}}\n`,
  )
}

/** Printable ASCII without a quote or a backslash: written as it is between quotes by JSON.stringify too. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/** A string as JSON: quoted as it is when nothing in it needs escaping (nearly every method, path, id), else by JSON.stringify. */
function quoted(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s)
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

/**
 * What a log line says of a thrown value: message, code, stack and the chain of causes, each readable.
 * Not every thrown value is an Error (a rejected fetch body, a driver's plain object): those are
 * written as JSON, never as `[object Object]`.
 */
export function errorFields(err: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { error: describe(err) }
  if (err instanceof Error) {
    const code = codeOf(err)
    if (code) out.error_code = code
    if (err.stack) out.stack = err.stack
    const causes: string[] = []
    for (let c = err.cause, depth = 0; c !== undefined && c !== null && depth < 5; c = c instanceof Error ? c.cause : undefined, depth++) causes.push(describe(c))
    if (causes.length) out.cause = causes.length === 1 ? causes[0] : causes
  }
  return out
}

function codeOf(e: object): string | undefined {
  const { code, errno } = e as { code?: unknown; errno?: unknown }
  const parts = [code, errno].filter((v) => typeof v === 'string' || typeof v === 'number').map(String)
  return parts.length ? parts.join(' ') : undefined
}

function describe(v: unknown): string {
  if (v instanceof Error) {
    const code = codeOf(v)
    return `${v.name && v.name !== 'Error' ? v.name + ': ' : ''}${v.message || '(no message)'}${code ? ` [${code}]` : ''}`
  }
  if (typeof v === 'string') return v
  if (v === undefined || v === null || typeof v !== 'object') return String(v)
  try {
    const seen = new WeakSet<object>()
    return JSON.stringify(v, (_k, x) => {
      if (typeof x === 'bigint') return x.toString()
      if (typeof x === 'object' && x !== null) {
        if (seen.has(x)) return '[circular]'
        seen.add(x)
      }
      return x
    }).slice(0, 2000)
  } catch {
    return Object.prototype.toString.call(v)
  }
}
