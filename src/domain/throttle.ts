// Throttling credential guessing (AUTH_FAILURE_BUDGET). Every failed credential check (a wrong API
// key, provision secret, management key, edge secret, widget or agent token; a wrong client secret at
// POST /tokens; an unknown share or invitation token; a wrong key at the consent sign-in) spends one
// token of two buckets: the caller's address and its network (/24 for IPv4, /64 for IPv6, as agent
// registration budgets them; behind TRUST_PROXY, the forwarded client address). A bucket holds
// `perMinute` tokens and refills at that rate, so guessing settles at a few dozen tries a minute.
// While a bucket is empty every credential check from there is answered 429 `rate_limited` with
// Retry-After *before* any verification (no database query, right or wrong key alike, so a throttled
// guesser learns nothing); callers elsewhere are not affected. Expired but genuine widget tokens are
// not guesses and spend nothing.
//
// The buckets live in each process's memory: with N api processes behind a balancer that spreads one
// address over all of them, an address gets at most N times the budget (a balancer with client
// affinity keeps it exact). No database round trip is spent on counting.
import { ApiError } from '../errors.ts'
import { addressPrefix } from '../client-address.ts'

export interface FailureBudget {
  /** Failed checks a minute from one address. */
  perAddress: number
  /** Failed checks a minute from one network (/24, /64). */
  perPrefix: number
}

export const DEFAULT_FAILURE_BUDGET: FailureBudget = { perAddress: 30, perPrefix: 120 }

interface Bucket {
  tokens: number
  at: number
}

const MAX_BUCKETS = 100_000

export class FailureThrottle {
  private readonly buckets = new Map<string, Bucket>()

  constructor(
    private readonly budget: FailureBudget,
    /** Milliseconds now: the deployment's clock (movable in tests). */
    private readonly now: () => number,
  ) {}

  private keys(address: string | null): [string, number][] {
    const a = address ?? 'unknown'
    return [
      [`a:${a}`, this.budget.perAddress],
      [`p:${addressPrefix(a)}`, this.budget.perPrefix],
    ]
  }

  /** The bucket's tokens as of now (refilled at `limit` a minute), without storing anything. */
  private level(key: string, limit: number, now: number): number {
    const b = this.buckets.get(key)
    if (!b) return limit
    return Math.min(limit, b.tokens + ((now - b.at) * limit) / 60_000)
  }

  /** Seconds until this address may try again; 0 when it may now. */
  retryAfter(address: string | null): number {
    const now = this.now()
    let wait = 0
    for (const [key, limit] of this.keys(address)) {
      const level = this.level(key, limit, now)
      if (level < 1) wait = Math.max(wait, Math.ceil(((1 - level) * 60) / limit))
    }
    return wait
  }

  /** Throws 429 `rate_limited` (with Retry-After) while this address or its network has spent its failures. */
  check(address: string | null): void {
    // No failure anywhere lately (every bucket full): nothing to look up.
    if (this.buckets.size === 0) return
    const wait = this.retryAfter(address)
    if (wait > 0) {
      throw new ApiError('rate_limited', 'Too many failed credential checks from this address; retry after Retry-After', undefined, {
        headers: { 'retry-after': String(wait) },
      })
    }
  }

  /** Records one failed credential check from this address. */
  fail(address: string | null): void {
    const now = this.now()
    for (const [key, limit] of this.keys(address)) {
      const tokens = this.level(key, limit, now) - 1
      this.buckets.delete(key)
      this.buckets.set(key, { tokens, at: now })
    }
    if (this.buckets.size > MAX_BUCKETS) this.prune(now)
  }

  /** Drops buckets that have refilled (they equal no bucket), then the longest untouched ones. */
  private prune(now: number): void {
    for (const [key, b] of this.buckets) {
      const limit = key.startsWith('a:') ? this.budget.perAddress : this.budget.perPrefix
      if (b.tokens + ((now - b.at) * limit) / 60_000 >= limit) this.buckets.delete(key)
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= MAX_BUCKETS * 0.9) break
      this.buckets.delete(key)
    }
  }
}

/**
 * Recently refused secrets (by hash), so the same wrong API key sent again costs no database query.
 * A key is random, so one refused now cannot become valid later (revocation only ever removes keys).
 */
export class RecentMisses {
  private readonly misses = new Map<string, number>()

  constructor(
    private readonly ttlMs = 60_000,
    private readonly max = 10_000,
  ) {}

  has(hash: string, nowMs: number): boolean {
    const until = this.misses.get(hash)
    if (until === undefined) return false
    if (until > nowMs) return true
    this.misses.delete(hash)
    return false
  }

  add(hash: string, nowMs: number): void {
    this.misses.delete(hash)
    this.misses.set(hash, nowMs + this.ttlMs)
    if (this.misses.size > this.max) this.misses.delete(this.misses.keys().next().value!)
  }
}

/**
 * Runs an operation whose input carries a secret instead of a bearer (`guessable` in the registry: a
 * client secret, a share or invitation token): refused while the address is throttled, and a wrong
 * secret (answered 401 or 404) counts as a failed check.
 */
export async function guarded<T>(throttle: FailureThrottle | undefined, ip: string | null, fn: () => Promise<T>): Promise<T> {
  if (!throttle) return fn()
  throttle.check(ip)
  try {
    return await fn()
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 404)) throttle.fail(ip)
    throw err
  }
}
