// Session advisory locks: one holder per database for a named sweep.
import type { Sql } from './sql.ts'

/**
 * Runs `sweep` if no other process runs the sweep named by `key` on this database (a session advisory
 * lock, released at the end or with the connection if the process dies); otherwise returns 0 at once.
 */
export async function alone(db: Sql, key: number, sweep: () => Promise<number>): Promise<number> {
  const lock = await db.reserve()
  try {
    const [{ held }] = await lock`select pg_try_advisory_lock(${key}) as held`
    if (!held) return 0
    try {
      return await sweep()
    } finally {
      await lock`select pg_advisory_unlock(${key})`
    }
  } finally {
    lock.release()
  }
}

/** A transaction advisory lock, held to the end of the transaction `tx`. */
export async function transactionLock(tx: Sql, key: number): Promise<void> {
  await tx`select pg_advisory_xact_lock(${key})`
}
