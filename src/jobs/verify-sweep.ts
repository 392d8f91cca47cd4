// The verification sweep: locks the connections whose next check is due (SKIP LOCKED, so any number
// of workers can sweep side by side), verifies them with bounded concurrency against the configured
// resolvers, and records the results and lifecycle transitions in one transaction per batch.
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import type { ConnectionRow } from '../domain/connections.ts'
import { recordVerifications, VERIFY_COLUMNS, type Verified } from '../domain/connect.ts'
import type { Dns } from '../domain/dns.ts'
import { verifyRecords } from '../domain/verify.ts'
import { drainInRounds, mapLimit } from './lanes.ts'

export interface SweepDeps {
  db: Sql
  dns: Dns
  clock: Clock
}

/**
 * Verifies the connections among `ids` that are still due (another sweeper may have taken some);
 * returns how many were verified. They are locked with SKIP LOCKED for the length of their lookups
 * (tens of milliseconds), so concurrent sweepers take disjoint sets, a crash releases the rows, and
 * each row is written once.
 */
export async function verifyIds(deps: SweepDeps, ids: string[], concurrency = 64): Promise<number> {
  return deps.db.begin(async (tx) => {
    // A commit lost in a crash loses the state change and its event together; the connection is
    // simply verified again, so the sweep need not wait for the WAL flush.
    await tx`set local synchronous_commit = off`
    const due = (await tx`
      select ${tx.unsafe(VERIFY_COLUMNS)} from connections
      where id = any(${ids}::text[]) and disconnected_at is null and status in ('pending', 'propagating') and next_check_at <= ${deps.clock.now()}
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

const dueIds = (deps: SweepDeps) => async (limit: number) =>
  ((await deps.db`
    select id from connections
    where disconnected_at is null and status in ('pending', 'propagating') and next_check_at <= ${deps.clock.now()}
    order by next_check_at limit ${limit}`) as { id: string }[]).map((r) => r.id)

/** Verifies everything due: rounds of up to 20,000, four lanes of 500. */
export const sweepDue = (deps: SweepDeps, budgetMs?: number) => drainInRounds(dueIds(deps), (ids) => verifyIds(deps, ids), { lanes: 4, batch: 500, budgetMs })
