// Reconnecting with backoff (an external DATABASE_URL, or the embedded server between its death and
// its restart). When a request finds the database unreachable, the watch marks it down, logs it once,
// and probes it with a growing pause (100 ms doubling to 1 s); meanwhile requests are answered 503 at
// once instead of each waiting on a connection attempt. The first probe that answers reopens the door
// and logs how long the database was away. The pool itself opens fresh connections on demand.
import type { Sql } from './sql.ts'
import { errorFields, log } from '../logger.ts'

const FIRST_PROBE_MS = 100
const MAX_PROBE_MS = 1_000
const PROBE_TIMEOUT_MS = 2_000

export class DatabaseWatch {
  private down: { since: number; probes: number } | null = null
  private timer: ReturnType<typeof setTimeout> | null = null
  private stopped = false

  constructor(private readonly sql: Sql) {}

  /** Whether requests should try the database (false while it is known to be unreachable). */
  get reachable(): boolean {
    return this.down === null
  }

  /** A request found the database unreachable. */
  failed(err: unknown): void {
    if (this.down || this.stopped) return
    this.down = { since: Date.now(), probes: 0 }
    log.error('database unreachable; reconnecting with backoff', errorFields(err))
    this.schedule()
  }

  private schedule(): void {
    const d = this.down!
    const wait = Math.min(FIRST_PROBE_MS * 2 ** d.probes, MAX_PROBE_MS)
    this.timer = setTimeout(() => void this.probe(), wait)
    this.timer.unref?.()
  }

  private async probe(): Promise<void> {
    const down = this.down
    if (this.stopped || !down) return
    try {
      await Promise.race([this.sql`select 1`, Bun.sleep(PROBE_TIMEOUT_MS).then(() => Promise.reject(new Error('no answer')))])
      log.info('database reachable again', { down_ms: Date.now() - down.since, probes: down.probes + 1 })
      this.down = null
    } catch {
      down.probes++
      this.schedule()
    }
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }
}
