// Folds the cached status counts (migration 0090) every minute, one folder at a time per database, so
// each workspace's counts stay a handful of rows however many statements changed them.
import type { Sql } from '../db/sql.ts'
import { foldStatusCounts } from '../db/status-counts.ts'
import type { Sweep } from './index.ts'
import { alone } from '../db/locks.ts'

const FOLD_LOCK = 0x636e7473 // "cnts"

export const statusCountsSweep = (db: Sql): Sweep => ({
  queue: 'status-counts',
  cron: '* * * * *',
  drain: () => alone(db, FOLD_LOCK, () => foldStatusCounts(db)),
})
