// The verification sweep: locks the connections whose next check is due (SKIP LOCKED, so any number
// of workers can sweep side by side), verifies them with bounded concurrency against the configured
// resolvers, and records the results and lifecycle transitions in one transaction per batch.
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import type { ConnectionRow } from '../domain/connections.ts'
import { recordVerifications, VERIFY_COLUMNS, type Verified } from '../domain/connect.ts'
import type { Dns } from '../domain/dns.ts'
import { verifyRecords } from '../domain/verify.ts'

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

export interface SweepDeps {
  db: Sql
  dns: Dns
  clock: Clock
}

/**
 * Verifies one batch of due connections; returns how many were verified. The batch is locked with
 * SKIP LOCKED for the length of its lookups (tens of milliseconds), so concurrent sweepers take
 * disjoint batches, a crash releases the rows, and each row is written once.
 */
export async function verifyDue(deps: SweepDeps, batch = 500, concurrency = 64): Promise<number> {
  return deps.db.begin(async (tx) => {
    const now = deps.clock.now()
    const due = (await tx`
      select ${tx.unsafe(VERIFY_COLUMNS)} from connections
      where disconnected_at is null and status in ('pending', 'propagating') and next_check_at <= ${now}
      order by next_check_at limit ${batch}
      for update skip locked`) as ConnectionRow[]
    if (due.length === 0) return 0
    const items: Verified[] = await mapLimit(due, concurrency, async (row) => ({
      row,
      verification: await verifyRecords(deps.dns, row.apex_domain, row.desired_records),
    }))
    await recordVerifications(tx, items, deps.clock.now())
    return due.length
  })
}

/**
 * Sweeps until nothing is due (or `budgetMs` runs out), in `lanes` independent loops: each locks its
 * own batch, so a batch waiting on a slow or lost answer never holds the others back, and one lane's
 * database writes overlap another's lookups. Returns how many connections were verified.
 */
export async function sweepDue(deps: SweepDeps, opts: { lanes?: number; batch?: number; concurrency?: number; budgetMs?: number } = {}): Promise<number> {
  const { lanes = 4, batch = 500, concurrency = 64, budgetMs = 55_000 } = opts
  const until = performance.now() + budgetMs
  let total = 0
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (performance.now() < until) {
        const n = await verifyDue(deps, batch, concurrency)
        total += n
        if (n < batch) return
      }
    }),
  )
  return total
}
