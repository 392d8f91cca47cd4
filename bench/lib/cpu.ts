// CPU seconds a process (and, for PostgreSQL, the backends it forked) spent, read from /proc: a figure
// that a busy machine moves far less than wall-clock rates, for comparing two builds' cost per request.
import { readFileSync, readdirSync } from 'node:fs'

const TICKS = 100 // USER_HZ on Linux

/** utime + stime of one process, in seconds. */
export function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[11]) + Number(f[12])) / TICKS
}

/** CPU seconds of every process whose command name is `comm` (all PostgreSQL backends: `postgres`). */
export function commandCpu(comm: string): number {
  let total = 0
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      if (name !== comm) continue
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      total += (Number(f[11]) + Number(f[12])) / TICKS
    } catch {
      // gone meanwhile
    }
  }
  return total
}

/**
 * CPU seconds of the PostgreSQL backends serving one database (their pids from pg_stat_activity; a
 * backend started later counts from its start): PostgreSQL's share of a bench, without the other
 * databases the same server serves.
 */
export async function databaseCpu(sql: { unsafe(q: string): Promise<unknown[]> }): Promise<Map<number, number>> {
  const rows = (await sql.unsafe('select pid from pg_stat_activity where datname = current_database()')) as { pid: number }[]
  const out = new Map<number, number>()
  for (const { pid } of rows) {
    try {
      out.set(pid, processCpu(pid))
    } catch {
      // ended meanwhile
    }
  }
  return out
}

/** Seconds spent between two `databaseCpu` readings. */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let s = 0
  for (const [pid, t] of after) s += t - (before.get(pid) ?? 0)
  return s
}
