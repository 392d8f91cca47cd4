// Throttling credential guessing (AUTH_FAILURE_BUDGET). Every failed credential check (a wrong API
// key, provision secret, management key, edge secret, widget or agent token; a wrong client secret at
// POST /tokens; an unknown share or invitation token; a wrong key at the consent sign-in) spends one
// token of two buckets: the caller's address and its network (/24 for IPv4, /64 for IPv6, as agent
// registration budgets them; behind TRUST_PROXY, the forwarded client address). A bucket holds
// `perMinute` tokens and refills at that rate, so guessing settles at a few dozen tries a minute.
// While a bucket is empty every credential check from there that is not known to be valid is answered
// 429 `rate_limited` with Retry-After *before* any verification (no database query, so a throttled
// guesser learns nothing); callers elsewhere are not affected. Expired but genuine widget tokens are
// not guesses and spend nothing.
//
// A valid credential is never refused for others' failures: every credential that verified (an API key,
// a widget or agent token, an operator secret, a client secret, a share link) is remembered by its
// SHA-256 in `known`, in memory, and a request presenting one passes the budget and is verified as
// usual. So is every credential valid now, before its first use: each process reads the live keys,
// client secrets (and a previous one in its overlap), pending invitations, unused sign-in links and share
// links at start (validCredentialHashes), and each one minted later, on any process, is announced on the keys
// channel as `+hash` (notifyValid). Signed tokens (widget, agent) are checked by signature alone, in
// memory, before the budget (src/http/auth.ts `signedByPortico`). A stale worker beside a working backend, or a /24 neighbour spending its budget, costs the
// working key nothing. A remembered credential that then fails verification (revoked) is forgotten and
// counts as a failure; a revoked API key is forgotten at once through the key cache's notification. The
// set only ever lets a request reach verification, so a stale entry can admit nothing by itself.
//
// The buckets live in each process's memory: with N api processes behind a balancer that spreads one
// address over all of them, an address gets at most N times the budget (a balancer with client
// affinity keeps it exact). No database round trip is spent on counting.
import { ApiError } from '../errors.ts'
import { addressPrefix } from '../client-address.ts'
import { sha256Hex } from '../crypto.ts'

export interface FailureBudget {
  /** Failed checks a minute from one address. */
  perAddress: number
  /** Failed checks a minute from one network (/24, /64). */
  perPrefix: number
}

export const DEFAULT_FAILURE_BUDGET: FailureBudget = { perAddress: 30, perPrefix: 120 }

/** Which of the caller's buckets is empty: its own address, or its network (shared with neighbours). */
export interface Wait {
  seconds: number
  scope: 'address' | 'network'
  prefix: string
}

/**
 * Credentials seen valid lately, by SHA-256 (hex), with when each stops being remembered. Bounded: the
 * longest unrefreshed go first. A hit is a Map read: no database query, whatever the throttle's state.
 */
export class KnownCredentials {
  private readonly entries = new Map<string, number>()

  constructor(
    private readonly ttlMs = 24 * 3600_000,
    private readonly max = 100_000,
  ) {}

  has(hash: string, nowMs: number): boolean {
    const until = this.entries.get(hash)
    if (until === undefined) return false
    if (until > nowMs) return true
    this.entries.delete(hash)
    return false
  }

  /** Remembers a credential that verified; refreshing one remembered recently costs one Map read. */
  add(hash: string, nowMs: number): void {
    const until = this.entries.get(hash)
    if (until !== undefined && until - nowMs > this.ttlMs / 2) return
    this.entries.delete(hash)
    this.entries.set(hash, nowMs + this.ttlMs)
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!)
  }

  forget(hash: string): void {
    this.entries.delete(hash)
  }

  get size(): number {
    return this.entries.size
  }
}

interface Bucket {
  tokens: number
  at: number
}

const MAX_BUCKETS = 100_000

export class FailureThrottle {
  private readonly buckets = new Map<string, Bucket>()
  /** Credentials that verified lately: they pass the budget (see the header). */
  readonly known = new KnownCredentials()

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
    // A clock stepped back (NTP, a test moving time back) refills nothing rather than emptying the bucket.
    return Math.min(limit, b.tokens + (Math.max(0, now - b.at) * limit) / 60_000)
  }

  /** Seconds until this address may try again; 0 when it may now. */
  retryAfter(address: string | null): number {
    return this.wait(address)?.seconds ?? 0
  }

  /** No failure anywhere lately (every bucket full): no address needs weighing. */
  get quiet(): boolean {
    return this.buckets.size === 0
  }

  /** Whether this address must wait, how long, and whose failures emptied the bucket; null when it may try now. */
  wait(address: string | null): Wait | null {
    // No failure anywhere lately (every bucket full): nothing to look up.
    if (this.buckets.size === 0) return null
    const now = this.now()
    let seconds = 0
    let scope: Wait['scope'] | null = null
    for (const [key, limit] of this.keys(address)) {
      const level = this.level(key, limit, now)
      if (level >= 1) continue
      seconds = Math.max(seconds, Math.ceil(((1 - level) * 60) / limit))
      // An address that spent its own budget is told so; the network is named only when the address did not.
      scope ??= key.startsWith('a:') ? 'address' : 'network'
    }
    return scope === null ? null : { seconds, scope, prefix: addressPrefix(address ?? 'unknown') }
  }

  /**
   * Throws 429 `rate_limited` (with Retry-After) while this address or its network has spent its
   * failures, unless the credential presented (its SHA-256, hex) verified lately: it goes on to be verified.
   */
  check(address: string | null, credentialHash?: string | readonly string[] | null): void {
    const wait = this.wait(address)
    if (!wait) return
    if (this.isKnown(credentialHash)) return
    throw refusal(wait)
  }

  /** Whether any of these hashes (one credential's possible names) is known valid. */
  isKnown(credentialHash?: string | readonly string[] | null): boolean {
    const now = Date.now()
    const hashes = typeof credentialHash === 'string' ? [credentialHash] : (credentialHash ?? [])
    return hashes.some((h) => this.known.has(h, now))
  }

  /** A credential verified: remembered, so its holder's neighbours' failures never refuse it. */
  vouch(credentialHash: string): void {
    this.known.add(credentialHash, Date.now())
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

/** The 429 of a spent budget, naming whose failures spent it: the caller's own address, or its network's. */
export function refusal(wait: Wait): ApiError {
  const detail =
    wait.scope === 'address'
      ? 'Too many failed credential checks from this address; retry after Retry-After'
      : `Too many failed credential checks from the network ${wait.prefix} (its addresses together, not this one alone); retry after Retry-After, or send a valid credential`
  return new ApiError('rate_limited', detail, undefined, { headers: { 'retry-after': String(wait.seconds) } })
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
export async function guarded<T>(throttle: FailureThrottle | undefined, ip: string | null, fn: () => Promise<T>, secretHash: string | null = null, valueHashes: readonly string[] = []): Promise<T> {
  if (!throttle) return fn()
  throttle.check(ip, secretHash ? [secretHash, ...valueHashes] : valueHashes)
  try {
    const out = await fn()
    if (secretHash) throttle.vouch(secretHash)
    return out
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 404)) {
      if (secretHash) throttle.known.forget(secretHash)
      throttle.fail(ip)
    }
    throw err
  }
}

/**
 * What identifies the secret a `guessable` operation's input carries, for `known`: its path
 * parameters (a share token, a consent request id) and the body's `application_id` with any string
 * field whose name ends in `secret` or `token` (a client secret, an invitation token). Null when the
 * input carries none of them.
 */
export function guessedSecret(params: Record<string, string>, body: unknown): string | null {
  const parts: string[] = []
  for (const k of Object.keys(params).sort()) parts.push(`${k}=${params[k]}`)
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>
    const secretish = Object.keys(b).filter((k) => typeof b[k] === 'string' && /(secret|token)$/.test(k))
    if (secretish.length === 0 && parts.length === 0) return null
    for (const k of [...secretish, 'application_id'].sort()) if (typeof b[k] === 'string') parts.push(`${k}=${b[k]}`)
  }
  // Not keyed by operation: a share token that opened the page is as valid for its re-check.
  return parts.length === 0 ? null : sha256Hex(`guessable\n${parts.join('\n')}`)
}

/**
 * The SHA-256 (hex) of each secret a `guessable` operation's input carries (a client secret or an
 * invitation token in the body, a share token in the path): what Portico stores of them, so a secret
 * minted on any process, or valid when this one started, is known before it is first used here
 * (src/ops/tenancy/shared.ts `publishValid`, src/db/api-keys.ts `validCredentialHashes`).
 */
export function secretValueHashes(params: Record<string, string>, body: unknown): string[] {
  const secretish = (k: string) => /(secret|token)$/.test(k)
  const out = Object.keys(params).filter(secretish).map((k) => sha256Hex(params[k]!))
  if (!body || typeof body !== 'object' || Array.isArray(body)) return out
  const b = body as Record<string, unknown>
  for (const k of Object.keys(b)) if (typeof b[k] === 'string' && secretish(k)) out.push(sha256Hex(b[k] as string))
  return out
}

