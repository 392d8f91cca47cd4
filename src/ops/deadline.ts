// Every request has a deadline (DESIGN.md, rules of the house). The face starts one when a request
// arrives (REQUEST_TIMEOUT_MS); the executor checks it before opening a transaction and again just
// before committing, so a request that has answered 503 commits nothing afterwards: a client that
// gave up never finds its create committed later. A commit already sent is waited for (a little past
// the deadline) and its real outcome answered, since it can no longer be taken back.
import type { Sql } from '../db/sql.ts'
import { ApiError } from '../errors.ts'

/** Seconds a client should wait before retrying a request Portico could not finish. */
export const RETRY_AFTER_S = 5

export const deadlineExceeded = () =>
  new ApiError('service_unavailable', 'The request did not finish in time; retry it', { reason: 'deadline_exceeded' }, { headers: { 'retry-after': String(RETRY_AFTER_S) } })

export class Deadline {
  readonly at: number
  private passed = false
  private commits = 0

  /** `ms` from now; `graceMs` is how long a commit in flight is waited for past it. */
  constructor(
    readonly ms: number,
    private readonly graceMs = 5000,
  ) {
    this.at = performance.now() + ms
  }

  get expired(): boolean {
    if (!this.passed && performance.now() >= this.at) this.passed = true
    return this.passed
  }

  /** Throws the 503 when the deadline has passed: before a transaction opens and before it commits. */
  check(): void {
    if (this.expired) throw deadlineExceeded()
  }

  /**
   * Runs `body` in a transaction on the pool (the handle named db) under this deadline: refused before it opens and again after
   * the body, just before COMMIT is sent; from then on the commit counts as in flight.
   */
  async transaction<T>(db: Sql, body: (tx: Sql) => Promise<T>): Promise<T> {
    this.check()
    let entered = false
    try {
      return await db.begin(async (tx) => {
        const out = await body(tx)
        this.check()
        this.commits++
        entered = true
        return out
      })
    } finally {
      if (entered) this.commits--
    }
  }

  /** Whether a transaction of this request is being committed now. */
  get inCommit(): boolean {
    return this.commits > 0
  }

  /**
   * `work`'s outcome, or the 503 once the deadline passes. A commit in flight at that moment is waited
   * for up to `graceMs` more, so its answer is the truth. `work` goes on in the background and may only
   * roll back from then on (every later `check()` throws).
   */
  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => {}) // an outcome nobody waits for any more is not an unhandled rejection
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const expire = () => {
        this.passed = true
        if (this.commits > 0) {
          timer = setTimeout(() => reject(deadlineExceeded()), this.graceMs)
          return
        }
        reject(deadlineExceeded())
      }
      timer = setTimeout(expire, Math.max(0, this.at - performance.now()))
      work.then(
        (v) => {
          clearTimeout(timer)
          resolve(v)
        },
        (e) => {
          clearTimeout(timer)
          reject(e)
        },
      )
    })
  }
}
