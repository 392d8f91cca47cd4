// The verification sweep: leases the connections whose next check is due (SKIP LOCKED, so any number
// of workers can sweep side by side), verifies them with bounded concurrency against the configured
// resolvers, and records the results and lifecycle transitions in one transaction per batch.
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import type { ConnectionRow } from '../domain/connections.ts'
import { recordVerifications, type Verified } from '../domain/connect.ts'
import type { Dns } from '../domain/dns.ts'
import { verifyRecords } from '../domain/verify.ts'

const LEASE_MS = 120_000

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

/** Verifies one batch of due connections; returns how many were verified. */
export async function verifyDue(deps: SweepDeps, batch = 500, concurrency = 256): Promise<number> {
  const now = deps.clock.now()
  const leased = (await deps.db`
    update connections c set lease_until = ${new Date(now.getTime() + LEASE_MS)}
    where c.id in (
      select id from connections
      where disconnected_at is null and status in ('pending', 'propagating') and next_check_at <= ${now}
        and (lease_until is null or lease_until < ${now})
      order by next_check_at limit ${batch}
      for update skip locked)
    returning c.*`) as ConnectionRow[]
  if (leased.length === 0) return 0
  const items: Verified[] = await mapLimit(leased, concurrency, async (row) => ({
    row,
    verification: await verifyRecords(deps.dns, row.apex_domain, row.desired_records),
  }))
  await deps.db.begin((tx) => recordVerifications(tx, items, deps.clock.now()))
  return leased.length
}
