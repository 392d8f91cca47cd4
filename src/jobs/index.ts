// Background work on pg-boss, in the same PostgreSQL. Each kind of work is a queue; a worker process
// (PORTICO_ROLE=worker or all) handles it. Sweeps are `stately` queues (one queued, one running across
// every process) kicked by a cron schedule and by the operations that make work due; their handlers
// lock rows with SKIP LOCKED, so a crash or a second worker never loses or doubles work.
import { PgBoss } from 'pg-boss'
import { errorFields, log } from '../logger.ts'

export interface Sweep {
  queue: string
  /** Cron schedule (one-minute resolution). */
  cron: string
  /** Processes one batch; returns how many items it handled. Called until a batch comes back short. */
  run: () => Promise<number>
  batch: number
}

export interface Jobs {
  /** Asks for the verification sweep to run now (after a commit that made work due). */
  verifySoon(): void
  kick(queue: string): void
  stop(): Promise<void>
}

export const VERIFY_QUEUE = 'connect-verify'

export async function startJobs(databaseUrl: string, sweeps: Sweep[], opts: { work: boolean }): Promise<Jobs> {
  const boss = new PgBoss({ connectionString: databaseUrl, useListenNotify: true, max: 4 })
  boss.on('error', (err: unknown) => log.error('job system error', errorFields(err)))
  await boss.start()
  for (const s of sweeps) {
    await boss.createQueue(s.queue, { policy: 'stately', notify: true })
    await boss.schedule(s.queue, s.cron, {})
    if (opts.work) {
      await boss.work(s.queue, { pollingIntervalSeconds: 5 }, async () => {
        const started = Date.now()
        let handled = 0
        // Drain what is due, but hand the worker back within a minute.
        while (Date.now() - started < 55_000) {
          const n = await s.run()
          handled += n
          if (n < s.batch) break
        }
        if (handled > 0) log.info('sweep', { queue: s.queue, handled, ms: Date.now() - started })
      })
    }
  }
  const kick = (queue: string) => {
    boss.send(queue, {}).catch((err: unknown) => log.warn('could not queue work', { queue, ...errorFields(err) }))
  }
  return {
    kick,
    verifySoon: () => kick(VERIFY_QUEUE),
    async stop() {
      await boss.stop({ graceful: true, timeout: 10_000 })
    },
  }
}
