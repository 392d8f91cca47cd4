// Every request has a deadline (DESIGN.md, rules of the house). The face starts one when a request
// arrives (REQUEST_TIMEOUT_MS); the executor checks it before opening a transaction and again just
// before committing, so a request that has answered 503 commits nothing afterwards: a client that
// gave up never finds its create committed later. A commit already sent is waited for (a little past
// the deadline) and its real outcome answered, since it can no longer be taken back.
//
// A database that does not answer at all (frozen, its host silent) is found sooner: a request that has
// waited PATIENCE_MS asks the database watch (src/db/watch.ts) whether it answers a probe, and is
// answered 503 `database_not_answering` when it does not, about PATIENCE_MS + PROBE_TIMEOUT_MS (5 s)
// after it arrived, whatever its deadline. A commit in flight then is not waited for: its outcome is
// unknown, and a retry with the same Idempotency-Key finds it.
import type { Sql } from '../db/sql.ts'
import { ENDED_SESSION_TRIES, sessionEnded, type DatabaseFailure } from '../db/unavailable.ts'
import { PATIENCE_MS } from '../db/watch.ts'
import { ApiError } from '../errors.ts'

/** Seconds a client should wait before retrying a request Portico could not finish. */
export const RETRY_AFTER_S = 5

export const deadlineExceeded = () =>
  new ApiError('service_unavailable', 'The request did not finish in time; retry it', { reason: 'deadline_exceeded' }, { headers: { 'retry-after': String(RETRY_AFTER_S) } })

/** The 503 of a database that cannot do what a request needs, by what is wrong with it. */
export function databaseRefusal(kind: DatabaseFailure | 'not_answering'): ApiError {
  const [title, reason, retryAfter] =
    kind === 'read_only'
      ? (['The database accepts no writes right now (read-only, as during a failover); reads still work. Retry shortly', 'database_read_only', 15] as const)
      : kind === 'full'
        ? (['The database has no space left for writes; reads still work. Retry later', 'database_full', 60] as const)
        : kind === 'not_answering'
          ? (['The database did not answer in time; retry shortly', 'database_not_answering', RETRY_AFTER_S] as const)
          : (['The database cannot be reached; retry shortly', 'database_unavailable', RETRY_AFTER_S] as const)
  return new ApiError('service_unavailable', title, { reason }, { headers: { 'retry-after': String(retryAfter) } })
}

/** Whether the database answers at all (src/db/watch.ts), asked by a request that has waited a while. */
export interface Patience {
  answering(): Promise<boolean>
}

export class Deadline {
  readonly at: number
  private passed = false
  private commits = 0

  /** `ms` from now; `graceMs` is how long a commit in flight is waited for past it. */
  constructor(
    readonly ms: number,
    private readonly graceMs = 5000,
    readonly patience?: Patience,
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
    let begun = false
    const attempt = () =>
      db.begin(async (tx) => {
        begun = true
        const out = await body(tx)
        this.check()
        this.commits++
        entered = true
        return out
      })
    try {
      // A BEGIN that met a session the server had ended ran nothing: again, on a fresh session.
      for (let tries = 1; ; tries++) {
        try {
          return await attempt()
        } catch (err) {
          if (begun || tries >= ENDED_SESSION_TRIES || !sessionEnded(err)) throw err
          this.check()
        }
      }
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
    const { promise, resolve, reject } = Promise.withResolvers<T>()
    const r: Race = { deadline: this, reject: reject as (err: unknown) => void, timer: undefined, settled: false }
    arm(r)
    // Either outcome of `work` is handled here, so one that comes after the 503 is not an unhandled rejection.
    work.then(
      (v) => {
        settle(r)
        resolve(v)
      },
      (e) => {
        settle(r)
        reject(e)
      },
    )
    return promise
  }

  /** Counts as passed from now on: every later `check()` throws. */
  pass(): void {
    this.passed = true
  }

  /** The deadline has passed: the 503, unless a commit is in flight (then it is waited for up to `graceMs`). */
  expire(r: Race): void {
    this.passed = true
    if (this.commits > 0) r.timer = setTimeout(refuse, this.graceMs, r, deadlineExceeded)
    else r.reject(deadlineExceeded())
  }
}

/**
 * One race's state, handed to its timer callbacks as an argument: a request costs two closures (its
 * outcome's), not one per step. One timer at a time: at each PATIENCE_MS the database is asked whether
 * it answers (a probe shared by every request asking), and the last stretch runs to the deadline.
 */
interface Race {
  deadline: Deadline
  reject: (err: unknown) => void
  timer: ReturnType<typeof setTimeout> | undefined
  settled: boolean
}

function arm(r: Race): void {
  const d = r.deadline
  const left = d.at - performance.now()
  r.timer = d.patience && left > PATIENCE_MS ? setTimeout(ask, PATIENCE_MS, r) : setTimeout(expireRace, Math.max(0, left), r)
}

function expireRace(r: Race): void {
  r.deadline.expire(r)
}

function ask(r: Race): void {
  void r.deadline.patience!.answering().then((ok) => {
    if (r.settled) return
    if (ok) return arm(r)
    r.deadline.pass()
    r.reject(databaseRefusal('not_answering'))
  })
}

function refuse(r: Race, err: () => ApiError): void {
  r.reject(err())
}

function settle(r: Race): void {
  r.settled = true
  clearTimeout(r.timer)
}
