// Bounded concurrency for the sweeps: `mapLimit` for the I/O inside one batch, `drainInRounds` for
// several batches side by side; `alone` keeps a sweep to one runner per database.
import type { Sql } from '../db/sql.ts'

export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

/**
 * Drains a due queue in rounds: one scan of its due index takes up to `round` ids without locking,
 * cut into batches that `lanes` loops take in turn; each batch re-checks that its ids are still due
 * (locking them with SKIP LOCKED where sweepers run side by side, as webhook delivery does). Batches that each
 * scanned the index from the front would walk the dead entries every earlier batch left behind,
 * which is quadratic over a backlog. Returns how many were handled.
 */
export async function drainInRounds(
  dueIds: (limit: number) => Promise<string[]>,
  step: (ids: string[]) => Promise<number>,
  opts: { lanes: number; batch: number; round?: number; budgetMs?: number },
): Promise<number> {
  const round = opts.round ?? 20_000
  const until = performance.now() + (opts.budgetMs ?? 55_000)
  let total = 0
  while (performance.now() < until) {
    const ids = await dueIds(round)
    const batches = Array.from({ length: Math.ceil(ids.length / opts.batch) }, (_, i) => ids.slice(i * opts.batch, (i + 1) * opts.batch))
    const counts = await mapLimit(batches, opts.lanes, (b) => (performance.now() < until ? step(b) : Promise.resolve(0)))
    const handled = counts.reduce((a, b) => a + b, 0)
    total += handled
    if (ids.length < round || handled === 0) break
  }
  return total
}

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
