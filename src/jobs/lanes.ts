// Bounded concurrency for the sweeps: `mapLimit` for the I/O inside one batch, `drainInRounds` for
// several batches side by side (src/db/locks.ts `alone` keeps a sweep to one runner per database).

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

/** How a drain ended: how many were handled, the last row of the work done, and whether time ran out. */
export interface Drained<T> {
  handled: number
  last: T | null
  outOfTime: boolean
}

/**
 * Drains a due queue in rounds until a round comes back short or `until` (a `performance.now()`
 * deadline) passes: one read takes up to `round` rows, cut into batches that `lanes` loops take in
 * turn; each batch re-checks that its rows are still due (locking them with SKIP LOCKED where
 * sweepers run side by side, as webhook delivery does). Batches that each scanned the due index from
 * the front would walk the dead entries every earlier batch left behind, which is quadratic over a
 * backlog.
 *
 * With `resumes`, each read continues after the last row of the previous round (a keyset), so rows
 * that stay in place are not read twice. Otherwise handled rows leave the due set and each read starts
 * from the front; a round that handled nothing then ends the drain, as the same rows would come back.
 * Batches start in order, so when time runs out the work done is a prefix, and `last` is its end.
 */
export async function drainRounds<T>(
  read: (after: T | null, limit: number) => Promise<T[]>,
  step: (batch: T[]) => Promise<number>,
  opts: { lanes: number; batch: number; until: number; round?: number; resumes?: boolean; stopping?: () => boolean },
): Promise<Drained<T>> {
  const round = opts.round ?? 20_000
  let handled = 0
  let last: T | null = null
  // A stopping process starts no new batch (the batches in flight finish): it ends as if out of time.
  const over = () => performance.now() >= opts.until || opts.stopping?.() === true
  for (;;) {
    if (over()) return { handled, last, outOfTime: true }
    const rows = await read(last, round)
    const batches = Array.from({ length: Math.ceil(rows.length / opts.batch) }, (_, i) => rows.slice(i * opts.batch, (i + 1) * opts.batch))
    let done = 0
    const counts = await mapLimit(batches, opts.lanes, async (b) => {
      if (over()) return 0
      const n = await step(b)
      done++
      return n
    })
    const now = counts.reduce((a, b) => a + b, 0)
    handled += now
    if (done < batches.length) return { handled, last: batches[done - 1]?.at(-1) ?? last, outOfTime: true }
    last = rows.at(-1) ?? last
    if (rows.length < round || (!opts.resumes && now === 0)) return { handled, last, outOfTime: false }
  }
}

/** `drainRounds` over a queue of ids read from the front, within a budget; returns how many were handled. */
export const drainInRounds = (
  dueIds: (limit: number) => Promise<string[]>,
  step: (ids: string[]) => Promise<number>,
  opts: { lanes: number; batch: number; round?: number; budgetMs?: number; stopping?: () => boolean },
): Promise<number> =>
  drainRounds((_, limit) => dueIds(limit), step, { ...opts, until: performance.now() + (opts.budgetMs ?? 55_000) }).then((d) => d.handled)
