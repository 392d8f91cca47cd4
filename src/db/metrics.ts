// The database's side of /metrics: the figures an operator watches, read at scrape time. Each query
// here must stay cheap on a database of a million connections (bench/scale.ts measures the scrape).
import type { Sql } from './sql.ts'
import { countsByStatus } from './status-counts.ts'

export interface DbFigures {
  /** Now minus the oldest due check, in seconds (0 when nothing is due). */
  verificationLagSeconds: number
  queues: Record<string, number>
  connections: Record<string, number>
  certificates: Record<string, number>
  certificatesExpiring: number
}

const DAY_MS = 86_400_000

export async function readDbFigures(db: Sql, now: Date): Promise<DbFigures> {
  const [[lag], queues, jobs, connections, certificates, [expiring]] = await Promise.all([
    db`select min(next_check_at) as at from verify_queue` as Promise<{ at: Date | null }[]>,
    db`
      select (select count(*) from verify_queue where next_check_at <= ${now})::int as verify_due,
             (select count(*) from webhook_deliveries)::int as webhook_pending,
             (select count(*) from webhook_deliveries where next_attempt_at <= ${now} and (sending_until is null or sending_until <= ${now}))::int as webhook_due` as Promise<Record<string, number>[]>,
    // pg-boss keeps its own counts per queue (refreshed by its monitor); absent before it first ran.
    db`select name, queued_count::int + active_count::int as n from pgboss.queue`.catch(() => []) as Promise<{ name: string; n: number }[]>,
    // Cached counts (migration 0090): a few rows per workspace, not a row per connection.
    countsByStatus(db, 'connection'),
    countsByStatus(db, 'certificate'),
    // Along certificates_expiry: only the certificates close to expiry are read.
    db`select count(*)::int as n from certificates where status = 'issued' and not_after < ${new Date(now.getTime() + 14 * DAY_MS)}` as Promise<{ n: number }[]>,
  ])
  const at = lag?.at ? new Date(lag.at).getTime() : null
  return {
    verificationLagSeconds: at !== null && at < now.getTime() ? (now.getTime() - at) / 1000 : 0,
    queues: { ...queues[0], certificate_orders: certificates.pending ?? 0, ...Object.fromEntries(jobs.map((j) => [`job:${j.name}`, j.n])) },
    connections,
    certificates,
    certificatesExpiring: expiring?.n ?? 0,
  }
}
