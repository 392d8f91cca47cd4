// Structured JSON logs, one object a line. Callers pass fields, never secrets: request logs carry the
// path without its query string, and credentials are never handed to the logger.
type Level = 'debug' | 'info' | 'warn' | 'error'
const RANK = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const

let threshold: number = RANK.info

export function setLogLevel(level: keyof typeof RANK): void {
  threshold = RANK[level]
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (RANK[level] < threshold) return
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })
  ;(level === 'error' ? process.stderr : process.stdout).write(line + '\n')
}

export const log = {
  debug: (msg: string, f?: Record<string, unknown>) => write('debug', msg, f),
  info: (msg: string, f?: Record<string, unknown>) => write('info', msg, f),
  warn: (msg: string, f?: Record<string, unknown>) => write('warn', msg, f),
  error: (msg: string, f?: Record<string, unknown>) => write('error', msg, f),
}

export function errorFields(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { error: err.message, stack: err.stack }
  return { error: String(err) }
}
