// The one database handle. Bun's built-in SQL client (tagged templates, pooled); `bench/` measured it
// at twice the `postgres` driver on this kind of machine, and both take tagged templates, so the
// driver is a one-line choice here. Everything else imports `Sql` from this module only.
import { SQL } from 'bun'

export type Sql = InstanceType<typeof SQL>

/**
 * The pool. `statementMs` bounds every statement on the server (STATEMENT_TIMEOUT_MS), and a session
 * left idle inside a transaction (a process frozen mid-request) is ended after twice that, so its
 * locks go with it. A connection that cannot be made fails after `connectMs`; one idle `idleS` seconds
 * (default 30; 0: never) is closed.
 */
export function connect(url: string, max = 10, opts: { statementMs?: number; connectMs?: number; idleS?: number } = {}): Sql {
  const connection: Record<string, string> = {}
  if (opts.statementMs) {
    connection.statement_timeout = String(opts.statementMs)
    connection.idle_in_transaction_session_timeout = String(opts.statementMs * 2)
  }
  return new SQL({ url, max, idleTimeout: opts.idleS ?? 30, connectionTimeout: Math.max(1, Math.round((opts.connectMs ?? 10_000) / 1000)), connection } as ConstructorParameters<typeof SQL>[0])
}

// Bun's client sends a JS string bound to a json/jsonb parameter as a JSON string value, so pass
// objects and arrays as they are (`${obj}::jsonb`), never JSON.stringify'd.

/**
 * The transaction does not wait for the WAL flush at commit: for batches whose commit, lost in a
 * crash, loses a state and its events together (the work is simply done again).
 */
export async function asyncCommit(tx: Sql): Promise<void> {
  await tx`set local synchronous_commit = off`
}
