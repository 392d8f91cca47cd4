// What this process knows of its database, for requests (answer 503 at once instead of waiting) and
// for /healthz and /readyz (say which).
// - Unreachable (an external DATABASE_URL down, the embedded server between its death and its
//   restart) or not answering (frozen, its host gone silent): the watch marks it down, logs it once,
//   and probes it with a growing pause (100 ms doubling to 1 s); meanwhile requests are answered 503 at
//   once. The first probe that answers reopens the door and logs how long the database was away.
// - Not answering is found by asking: a request that has waited PATIENCE_MS has the watch probe the
//   database (one probe shared by every request asking within FRESH_MS, on a connection of its own so
//   a busy pool is not mistaken for a silent server); no answer within PROBE_TIMEOUT_MS marks it down.
//   A request costs nothing more until it has waited that long.
// - Read-only (a failover onto a replica) and full (no disk space) refuse writes only: reads go on.
//   The probe reads `transaction_read_only`; a write refused for lack of space is remembered for
//   REFUSAL_MEMORY_MS.
import { connect, type Sql } from './sql.ts'
import { errorFields, log } from '../logger.ts'
import { againOnEndedSession, databaseFailure, sessionEnded } from './unavailable.ts'

const FIRST_PROBE_MS = 100
const MAX_PROBE_MS = 1_000
/** A probe that has not answered in this long finds the database not answering. */
export const PROBE_TIMEOUT_MS = 2_000
/** How long a request waits before the watch asks whether the database answers at all. */
export const PATIENCE_MS = 3_000
/** A probe's answer stands for this long. */
const FRESH_MS = 1_000
/** A write refused for lack of space marks the database full for this long. */
const REFUSAL_MEMORY_MS = 60_000

/** What /healthz and /readyz say of the database. */
export type DatabaseState = 'ok' | 'read_only' | 'full' | 'unreachable' | 'not_answering'

export class DatabaseWatch {
  private down: { since: number; probes: number; why: 'unreachable' | 'not_answering' } | null = null
  private timer: ReturnType<typeof setTimeout> | null = null
  private stopped = false
  private probing: Promise<boolean> | null = null
  private probed: { at: number; answered: boolean } | null = null
  private readOnly = false
  private fullAt = -Infinity
  private readonly probeSql: Sql

  constructor(
    url: string,
    private readonly timeoutMs = PROBE_TIMEOUT_MS,
  ) {
    // One connection for probes, kept open: a pool busy with slow statements still lets it through,
    // and a server at its connection limit later does not refuse it (it is opened at start).
    this.probeSql = connect(url, 1, { connectMs: timeoutMs, idleS: 0 })
  }

  /** Whether requests should try the database (false while it is known to be unreachable or silent). */
  get reachable(): boolean {
    return this.down === null
  }

  /** Why requests are answered 503 at once, while they are. */
  get downBecause(): 'unreachable' | 'not_answering' | null {
    return this.down?.why ?? null
  }

  /**
   * A request found the database unreachable. A session the server ended (a failover ends them all)
   * says nothing of the database itself: the shared probe, on its own session, decides.
   */
  failed(err: unknown): void {
    if (sessionEnded(err)) void this.answering()
    else this.markDown('unreachable', err)
  }

  /** A write was refused: read-only (also seen by the probe) or out of space (remembered a while). */
  refused(kind: 'read_only' | 'full'): void {
    if (kind === 'full') this.fullAt = performance.now()
    else this.readOnly = true
  }

  /** A write committed: whatever a probe saw before, the database takes writes now. */
  wrote(): void {
    this.readOnly = false
  }

  private markDown(why: 'unreachable' | 'not_answering', err?: unknown): void {
    if (this.down || this.stopped) return
    this.down = { since: performance.now(), probes: 0, why }
    if (why === 'unreachable') log.error('database unreachable; reconnecting with backoff', errorFields(err))
    else log.error('database not answering; requests answered 503 until it does', { probe_timeout_ms: this.timeoutMs })
    this.schedule()
  }

  /**
   * Whether the database answers a probe within the bound: asked by a request that has waited
   * PATIENCE_MS. False at once while it is known down.
   */
  answering(): Promise<boolean> {
    if (this.down) return Promise.resolve(false)
    if (this.probed && performance.now() - this.probed.at < FRESH_MS) return Promise.resolve(this.probed.answered)
    this.probing ??= this.probe().then((ok) => {
      this.probing = null
      this.probed = { at: performance.now(), answered: ok }
      if (!ok) this.markDown('not_answering')
      return ok
    })
    return this.probing
  }

  /** The database as /healthz and /readyz report it (one probe, bounded). */
  async state(): Promise<DatabaseState> {
    if (this.down) return this.down.why
    const ok = await this.answering()
    if (!ok) return this.downBecause ?? 'not_answering'
    if (this.readOnly) return 'read_only'
    if (performance.now() - this.fullAt < REFUSAL_MEMORY_MS) return 'full'
    return 'ok'
  }

  /** One `transaction_read_only` read within the bound: true when it answered. */
  private async probe(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      const rows = (await Promise.race([
        // The probe's own session is ended by a failover too: a fresh one answers for the database.
        againOnEndedSession(() => this.probeSql`select current_setting('transaction_read_only') as ro`),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer')), this.timeoutMs)
        }),
      ])) as { ro: string }[]
      this.readOnly = rows[0]?.ro === 'on'
      return true
    } catch (err) {
      // The server answered, with a refusal of its own (too many connections, out of memory): it is
      // not silent, and requests meet that refusal themselves.
      return databaseFailure(err) === 'overloaded'
    } finally {
      clearTimeout(timer)
    }
  }

  private schedule(): void {
    const d = this.down!
    const wait = Math.min(FIRST_PROBE_MS * 2 ** d.probes, MAX_PROBE_MS)
    this.timer = setTimeout(() => void this.reprobe(), wait)
    this.timer.unref?.()
  }

  private async reprobe(): Promise<void> {
    const down = this.down
    if (this.stopped || !down) return
    if (await this.probe()) {
      log.info('database reachable again', { was: down.why, down_ms: Math.round(performance.now() - down.since), probes: down.probes + 1 })
      this.down = null
      this.probed = { at: performance.now(), answered: true }
    } else {
      down.probes++
      this.schedule()
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.probeSql.close({ timeout: 0 }).catch(() => {})
  }
}
