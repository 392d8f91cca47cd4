// Events are kept for the events API and for replays for EVENT_RETENTION_DAYS (at least 30), then
// leave the outbox in batches, hourly; an event a delivery still waits to send stays until it is sent.
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import { deleteEventsBefore } from '../db/events.ts'
import { idFloor } from '../ids.ts'
import type { Sweep } from './index.ts'

const BATCH = 5000
const DAY_MS = 86_400_000

/** Deletes every event older than `days` (by its time-ordered id); answers how many went. */
export async function deleteOldEvents(db: Sql, now: Date, days: number): Promise<number> {
  const before = idFloor('evt', now.getTime() - days * DAY_MS)
  let total = 0
  for (;;) {
    const n = await deleteEventsBefore(db, before, BATCH)
    total += n
    if (n < BATCH) return total
  }
}

export const eventRetentionSweep = (deps: { db: Sql; clock: Clock; days: number }): Sweep => ({
  queue: 'event-retention',
  cron: '37 * * * *',
  drain: () => deleteOldEvents(deps.db, deps.clock.now(), deps.days),
})
