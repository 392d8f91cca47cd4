// Bounded concurrency for the sweeps: `mapLimit` for the I/O inside one batch, `drainInLanes` for
// several batches side by side.

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
 * Runs `step` (one batch; returns how many it handled) until a batch comes back short or `budgetMs`
 * runs out, in `lanes` independent loops: each takes its own batch, so one waiting on a slow or lost
 * answer never holds the others back, and one lane's database writes overlap another's network I/O.
 */
export async function drainInLanes(step: () => Promise<number>, opts: { lanes: number; batch: number; budgetMs?: number }): Promise<number> {
  const until = performance.now() + (opts.budgetMs ?? 55_000)
  let total = 0
  await Promise.all(
    Array.from({ length: opts.lanes }, async () => {
      while (performance.now() < until) {
        const n = await step()
        total += n
        if (n < opts.batch) return
      }
    }),
  )
  return total
}

