// Background work on pg-boss, in the same PostgreSQL. Each kind of work is a queue; a worker process
// (PORTICO_ROLE=worker or all) handles it. Sweeps are `short` queues (at most one waiting, any number
// running) kicked by a cron schedule, by the operations and database triggers that make work due, and
// by every worker as it starts. Webhook delivery and order expiry lock rows with SKIP LOCKED, so sweeps
// running side by side take disjoint work; the verification and monitor sweeps run one at a time per
// database under an advisory lock (src/jobs/lanes.ts `alone`). Either way a worker that dies mid-sweep
// blocks nothing: its locks go with its connection and the next sweep takes the work.
import { PgBoss } from 'pg-boss'
import postgres from 'postgres'
import { errorFields, log } from '../logger.ts'
import { observeJob } from '../metrics.ts'
import { WORK_CHANNEL } from '../db/channels.ts'

export interface Sweep {
  queue: string
  /** Cron schedule (one-minute resolution). */
  cron: string
  /** Handles everything due (within about a minute); returns how many items it handled. */
  drain: () => Promise<number>
  /**
   * For work scheduled at a time: when the earliest item comes due (null: none). Each worker sleeps
   * until then and kicks the sweep; a `schedule:<queue>` notification re-arms the sleep.
   */
  nextDue?: () => Promise<Date | null>
}

export interface Jobs {
  /** Asks for the verification sweep to run now (after a commit that made work due). */
  verifySoon(): void
  kick(queue: string): void
  /** Stops: no new runs; runs in flight get `graceMs` to finish, then pg-boss hands their jobs back (failed, to be retried). */
  stop(graceMs?: number): Promise<void>
}

export const VERIFY_QUEUE = 'connect-verify'
export const WEBHOOK_QUEUE = 'webhook-deliver'

/** The longest a due timer sleeps before it looks again (a missed notification costs at most this). */
const MAX_SLEEP_MS = 60_000
/** A due time already fired for and still the earliest (the sweep is at it): the schedule is read again after this. */
const REFIRE_PAUSE_MS = 1000
/**
 * A due time still the earliest this long after it was fired for is fired for again: the sweep that
 * took it may have died with its process (SIGKILL, a lost machine), and its locks went with it, so
 * this worker takes the work over within about this bound instead of at the next cron minute.
 */
export const STALLED_MS = 10_000

/**
 * Sleeps until the earliest due time of one sweep, then kicks it. Re-armed by notifications that the
 * schedule changed (coalesced: one read of the earliest time per turn of the event loop, and none
 * while one is in flight), and after each firing.
 */
export class DueTimer {
  private timer: ReturnType<typeof setTimeout> | null = null
  /** The due time last fired for: until the sweep moves it, it is looked at again only after a pause. */
  private fired = Number.NaN
  /**
   * Monotonic time of the last firing. Due times are business time (the movable clock, wall-based);
   * how long ago something happened here is not: a wall-clock step back must not make the last firing
   * look an hour in the future (the timer then waited for the cron).
   */
  private firedAt = -Infinity
  private reading = false
  private again = false
  private stopped = false

  constructor(
    private readonly nextDue: () => Promise<Date | null>,
    private readonly fire: () => void,
    private readonly now: () => number,
  ) {}

  rearm(): void {
    if (this.stopped) return
    if (this.reading) {
      this.again = true
      return
    }
    this.reading = true
    this.nextDue()
      .then((at) => this.sleep(at), (err: unknown) => {
        log.warn('due timer: could not read the schedule', errorFields(err))
        this.sleep(null)
      })
      .finally(() => {
        this.reading = false
        if (this.again) {
          this.again = false
          this.rearm()
        }
      })
  }

  private sleep(at: Date | null): void {
    if (this.timer) clearTimeout(this.timer)
    const due = at?.getTime() ?? Infinity
    // The wait is measured once against the business clock and then slept on the monotonic one
    // (setTimeout), so a wall-clock step while it sleeps neither stalls nor hurries it.
    const wait = due === this.fired ? REFIRE_PAUSE_MS : Math.max(0, due - this.now())
    this.timer = setTimeout(() => {
      this.timer = null
      // Each due time is fired for once: one that stays the earliest (the sweep left it, or has not
      // run yet) is left to the kicked sweep, not kicked again every pause, until it has stalled. Any
      // other due time is new work (after a wall-clock step back it may be earlier than the last).
      if (due <= this.now() && (due !== this.fired || performance.now() - this.firedAt >= STALLED_MS)) {
        this.fired = due
        this.firedAt = performance.now()
        this.fire()
      }
      this.rearm()
    }, Math.min(wait, MAX_SLEEP_MS))
    this.timer.unref?.()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }
}

/**
 * One run of a sweep as its worker makes it. A drain that fails is logged with its queue name (pg-boss
 * records the job as failed without saying which sweep broke) and thrown on, so the job fails.
 */
export async function runSweep(s: Pick<Sweep, 'queue' | 'drain'>): Promise<number> {
  const started = performance.now()
  const ms = () => Math.round(performance.now() - started)
  let handled: number
  try {
    handled = await s.drain()
  } catch (err) {
    observeJob(s.queue, ms() / 1000, { failed: true })
    log.error('sweep failed', { queue: s.queue, ms: ms(), ...errorFields(err) })
    throw err
  }
  observeJob(s.queue, ms() / 1000, { handled })
  if (handled > 0) log.info('sweep', { queue: s.queue, handled, ms: ms() })
  return handled
}

export async function startJobs(databaseUrl: string, sweeps: Sweep[], opts: { work: boolean; now?: () => number }): Promise<Jobs> {
  const boss = new PgBoss({ connectionString: databaseUrl, useListenNotify: true, max: 4 })
  boss.on('error', (err: unknown) => log.error('job system error', errorFields(err)))
  await boss.start()
  for (const s of sweeps) {
    await boss.createQueue(s.queue, { policy: 'short', notify: true })
    await boss.schedule(s.queue, s.cron, {})
    if (opts.work) {
      await boss.work(s.queue, { pollingIntervalSeconds: 5 }, () => runSweep(s))
    }
  }
  const kick = (queue: string) => {
    boss.send(queue, {}).catch((err: unknown) => log.warn('could not queue work', { queue, ...errorFields(err) }))
  }
  // Work made due inside the database (an event fanned out to webhooks) wakes the workers at once;
  // the cron schedule above is the backstop if a notification is missed.
  const queues = new Set(sweeps.map((s) => s.queue))
  const timers = new Map(opts.work ? sweeps.flatMap((s) => (s.nextDue ? [[s.queue, new DueTimer(s.nextDue, () => kick(s.queue), opts.now ?? Date.now)] as const] : [])) : [])
  const listener = opts.work ? postgres(databaseUrl, { max: 1, onnotice: () => {} }) : null
  await listener?.listen(WORK_CHANNEL, (payload) => {
    // Work made due for a queue kicks it, and its due timer reads the schedule again (it may have been
    // sleeping on an empty queue).
    if (queues.has(payload)) {
      kick(payload)
      timers.get(payload)?.rearm()
    } else if (payload.startsWith('schedule:')) timers.get(payload.slice(9))?.rearm()
  })
  // A starting worker takes over whatever is already due (work a stopped process left behind).
  if (opts.work) for (const q of queues) kick(q)
  for (const t of timers.values()) t.rearm()
  return {
    kick,
    verifySoon: () => kick(VERIFY_QUEUE),
    async stop(graceMs = 10_000) {
      for (const t of timers.values()) t.stop()
      await listener?.end({ timeout: 1 })
      await boss.stop({ graceful: true, timeout: graceMs })
    },
  }
}
