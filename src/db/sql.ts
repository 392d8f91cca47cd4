// The one database handle. Bun's built-in SQL client (tagged templates, pooled); `bench/` measured it
// at twice the `postgres` driver on this kind of machine, and both take tagged templates, so the
// driver is a one-line choice here. Everything else imports `Sql` from this module only.
import { SQL } from 'bun'

export type Sql = InstanceType<typeof SQL>

export function connect(url: string, max = 10): Sql {
  return new SQL({ url, max, idleTimeout: 30, connectionTimeout: 10 })
}

/** Postgres SQLSTATE of a driver error, if it has one. */
export function sqlState(err: unknown): string | undefined {
  const e = err as { errno?: unknown; code?: unknown }
  if (typeof e?.errno === 'string' && /^[0-9A-Z]{5}$/.test(e.errno)) return e.errno
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code
  return undefined
}

export const UNIQUE_VIOLATION = '23505'

// Bun's client sends a JS string bound to a json/jsonb parameter as a JSON string value, so pass
// objects and arrays as they are (`${obj}::jsonb`), never JSON.stringify'd.
