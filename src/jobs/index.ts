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

export interface Sweep {
  queue: string
  /** Cron schedule (one-minute resolution). */
  cron: string
  /** Handles everything due (within about a minute); returns how many items it handled. */
  drain: () => Promise<number>
}

export interface Jobs {
  /** Asks for the verification sweep to run now (after a commit that made work due). */
  verifySoon(): void
  kick(queue: string): void
  stop(): Promise<void>
}

export const VERIFY_QUEUE = 'connect-verify'
export const WEBHOOK_QUEUE = 'webhook-deliver'
/** Database triggers NOTIFY this channel with a queue name when they make work due. */
export const WORK_CHANNEL = 'portico_work'

export async function startJobs(databaseUrl: string, sweeps: Sweep[], opts: { work: boolean }): Promise<Jobs> {
  const boss = new PgBoss({ connectionString: databaseUrl, useListenNotify: true, max: 4 })
  boss.on('error', (err: unknown) => log.error('job system error', errorFields(err)))
  await boss.start()
  for (const s of sweeps) {
    await boss.createQueue(s.queue, { policy: 'short', notify: true })
    await boss.schedule(s.queue, s.cron, {})
    if (opts.work) {
      await boss.work(s.queue, { pollingIntervalSeconds: 5 }, async () => {
        const started = Date.now()
        const handled = await s.drain()
        if (handled > 0) log.info('sweep', { queue: s.queue, handled, ms: Date.now() - started })
      })
    }
  }
  const kick = (queue: string) => {
    boss.send(queue, {}).catch((err: unknown) => log.warn('could not queue work', { queue, ...errorFields(err) }))
  }
  // Work made due inside the database (an event fanned out to webhooks) wakes the workers at once;
  // the cron schedule above is the backstop if a notification is missed.
  const queues = new Set(sweeps.map((s) => s.queue))
  const listener = opts.work ? postgres(databaseUrl, { max: 1, onnotice: () => {} }) : null
  await listener?.listen(WORK_CHANNEL, (queue) => {
    if (queues.has(queue)) kick(queue)
  })
  // A starting worker takes over whatever is already due (work a stopped process left behind).
  if (opts.work) for (const q of queues) kick(q)
  return {
    kick,
    verifySoon: () => kick(VERIFY_QUEUE),
    async stop() {
      await listener?.end({ timeout: 1 })
      await boss.stop({ graceful: true, timeout: 10_000 })
    },
  }
}
