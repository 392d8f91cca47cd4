// Whether this process is stopping (SIGTERM or SIGINT, src/main.ts), and the waits that end early when
// it starts to: a long poll answers at once with the current state, so the widget polls again through
// another process; a worker's delivery run takes no new work. Waits here are on the monotonic clock
// (setTimeout): a wall-clock step neither stalls nor hurries them.

export class Lifecycle {
  private stoppingSince: number | null = null
  private readonly wakers = new Set<() => void>()

  /** True from the moment the process began to stop: readiness fails, long polls answer, work is not taken. */
  get stopping(): boolean {
    return this.stoppingSince !== null
  }

  /** Sleeps `ms`, or until the process starts stopping, whichever is first. */
  sleep(ms: number): Promise<void> {
    if (this.stoppingSince !== null || ms <= 0) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.wakers.add(done)
    })
  }

  /** Begins the stop: every sleeper wakes now. */
  stop(): void {
    if (this.stoppingSince !== null) return
    this.stoppingSince = performance.now()
    for (const wake of [...this.wakers]) wake()
  }

  /** Sleepers waiting now (the stop's log says how many long polls it answered). */
  get sleepers(): number {
    return this.wakers.size
  }
}
