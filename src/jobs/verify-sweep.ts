// The verification sweep: takes the connections whose next check is due from the verification queue,
// verifies them with bounded concurrency against the configured resolvers, and records the results
// and lifecycle transitions in one transaction per batch.
//
// One sweeper runs at a time per database (a session advisory lock; another worker's sweep returns at
// once, and a crashed one releases the lock with its connection). Rows are read without locks: each
// result lands only if the row is still the version that was verified (`recordVerifications`), so a
// disconnect, revival or new record set made meanwhile wins, and no check writes twice.
import type { Clock } from '../clock.ts'
import { notify, WORK_CHANNEL } from '../db/channels.ts'
import type { Sql } from '../db/sql.ts'
import { recordVerifications, type Verified } from '../domain/connect.ts'
import { dropFinished, dueVerifyIds, sweepTransaction, toVerify } from '../db/verification.ts'
import { alone } from '../db/locks.ts'
import type { Dns } from '../adapters/dns.ts'
import { verifyConnections } from '../domain/verify.ts'
import { statusesFrom } from '../domain/transitions.ts'
import { drainInRounds } from './lanes.ts'

export interface SweepDeps {
  db: Sql
  dns: Dns
  clock: Clock
  /** True once the process is stopping: no new batch starts. */
  stopping?: () => boolean
}

const SWEEP_LOCK = 0x76657269 // "veri"

/** The statuses a check may still move: those the records resolving takes to `live`. */
const VERIFYING = statusesFrom('records_resolved')

/**
 * Verifies the connections among `ids` that are still due; returns how many results landed.
 * `seen.live` turns true when a check found every record of one (it is going live).
 */
export async function verifyIds(deps: SweepDeps, ids: string[], seen: { live: boolean } = { live: false }): Promise<number> {
  // Read by primary key only, whether each row is still due judged in the select list: with
  // `disconnected_at is null` in the where clause, a planner with stale statistics scans a partial
  // index of every open connection per batch.
  const due = (await toVerify(deps.db, ids, deps.clock.now(), VERIFYING)).filter((c) => c.due)
  if (due.length < ids.length) {
    const seen = new Set(due.map((r) => r.id))
    await dropFinished(deps.db, ids.filter((id) => !seen.has(id)), VERIFYING)
  }
  if (due.length === 0) return 0
  // Every lookup of the batch is asked at once; the resolver keeps a bounded number on the wire.
  const verifications = await verifyConnections(deps.dns, due, deps.clock.now())
  const items: Verified[] = due.map((row, i) => ({ row, verification: verifications[i]! }))
  if (verifications.some((v) => v.outcome === 'all')) seen.live = true
  return deps.db.begin(async (tx) => {
    // A commit lost in a crash loses the state change and its event together; the connection is
    // simply verified again, so the sweep need not wait for the WAL flush.
    // The statement's parameters are whole columns, opaque to the planner: a plan made for one batch
    // serves every batch. Planned afresh, as PostgreSQL does for the first five runs on each pooled
    // connection (inlining unpack_column thirteen times each), the bench's sweep spent 84-98 µs of
    // PostgreSQL CPU per connection; with the cached plan, 62-65 in the same hour.
    // The sweep's schedule writes do not wake the workers' due timers (migration 0017): they re-read it after each firing.
    await sweepTransaction(tx)
    return recordVerifications(tx, items, deps.clock.now())
  })
}

const dueIds = (deps: SweepDeps) => (limit: number) => dueVerifyIds(deps.db, deps.clock.now(), limit)

/**
 * Verifies everything due: rounds of up to 20,000, four lanes of 500. Returns how many connections it
 * verified, or 0 at once when another sweep holds the lock.
 */
export const sweepDue = (deps: SweepDeps, budgetMs?: number): Promise<number> =>
  alone(deps.db, SWEEP_LOCK, async () => {
    const seen = { live: false }
    const handled = await drainInRounds(dueIds(deps), (ids) => verifyIds(deps, ids, seen), { lanes: 4, batch: 500, budgetMs, stopping: deps.stopping })
    // Connections that went live wake certificate orders, once per sweep.
    if (seen.live) await notify(deps.db, WORK_CHANNEL, 'certificate-issue')
    return handled
  })
