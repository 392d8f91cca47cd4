// The one database handle. Bun's built-in SQL client (tagged templates, pooled); `bench/` measured it
// at twice the `postgres` driver on this kind of machine, and both take tagged templates, so the
// driver is a one-line choice here. Everything else imports `Sql` from this module only.
import { SQL } from 'bun'

export type Sql = InstanceType<typeof SQL>

export function connect(url: string, max = 10): Sql {
  return new SQL({ url, max, idleTimeout: 30, connectionTimeout: 10 })
}

// Bun's client sends a JS string bound to a json/jsonb parameter as a JSON string value, so pass
// objects and arrays as they are (`${obj}::jsonb`), never JSON.stringify'd.
