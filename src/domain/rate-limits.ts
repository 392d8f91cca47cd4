// Rate limits per credential (DESIGN.md: limits are per credential, announced with RateLimit headers).
// What is counted, per what, and the default a minute (RATE_LIMITS):
// - an API key's requests, per key (`api_key`, 1200);
// - widget tokens' requests, per application (`application`, 2400: all its end users together) and per
//   token, which the integrator mints for one end user (`end_user`, 120);
// - an agent's requests, per grant: one person's approval of one client in one workspace (`agent_grant`, 300).
// A bulk operation counts each item (`countsItems` in the registry: the domains of a bulk create).
// Windows are the clock's minutes; the counts live in each process's memory (with N api processes
// behind a balancer that spreads one credential over all of them, a credential gets at most N times
// the limit). Every answer to a counted request carries the IETF fields (draft-ietf-httpapi-ratelimit-
// headers): `RateLimit-Policy: "api_key";q=1200;w=60` and `RateLimit: "api_key";r=1187;t=42`; past a
// limit the answer is 429 `rate_limited` with `Retry-After` (the seconds until the window ends).
// Operator credentials (the management key, the provision secret, the edge secret) are not counted.
import { ApiError } from '../errors.ts'
import type { Principal } from './principal.ts'

export interface RateLimitSettings {
  /** Requests a minute per API key. */
  apiKey: number
  /** Widget-token requests a minute per application. */
  application: number
  /** Requests a minute per widget token (one end user). */
  endUser: number
  /** Requests a minute per agent grant. */
  agentGrant: number
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = { apiKey: 1200, application: 2400, endUser: 120, agentGrant: 300 }

const WINDOW_S = 60
const MAX_COUNTERS = 200_000

interface Counter {
  window: number
  used: number
}

/** One limit a request is counted against: its policy name, the key it is counted under, and its quota. */
interface Policy {
  name: 'api_key' | 'application' | 'end_user' | 'agent_grant'
  key: string
  quota: number
}

export interface Taken {
  /** `RateLimit` and `RateLimit-Policy`, for the answer whatever it is. */
  headers: Record<string, string>
  /** Set when a limit was reached: the 429 to answer (its headers include the two above and Retry-After). */
  refused?: ApiError
}

export class RateLimits {
  private readonly counters = new Map<string, Counter>()

  constructor(
    private readonly limits: RateLimitSettings,
    /** Milliseconds now: the deployment's clock (movable in tests). */
    private readonly now: () => number,
  ) {}

  private policies(p: Principal): Policy[] {
    switch (p.kind) {
      case 'KEY':
        return [{ name: 'api_key', key: `k:${p.keyId}`, quota: this.limits.apiKey }]
      case 'WIDGET':
        return [
          { name: 'application', key: `a:${p.applicationId}`, quota: this.limits.application },
          { name: 'end_user', key: `u:${p.tokenId}`, quota: this.limits.endUser },
        ]
      case 'AGENT':
        // One grant per person and client in a workspace (oauth/consent.ts): these three name it.
        return [{ name: 'agent_grant', key: `g:${p.tenantId}:${p.clientId}:${p.subject}`, quota: this.limits.agentGrant }]
      default:
        return []
    }
  }

  /** Counts a request costing `cost` (the items of a bulk call, else 1) against every limit of its credential; null when none applies. */
  take(p: Principal, cost = 1): Taken | null {
    const policies = this.policies(p)
    if (policies.length === 0) return null
    const nowS = this.now() / 1000
    const window = Math.floor(nowS / WINDOW_S)
    const reset = Math.max(1, Math.ceil((window + 1) * WINDOW_S - nowS))
    const counters = policies.map((pol) => {
      const c = this.counters.get(pol.key)
      return c && c.window === window ? c : { window, used: 0 }
    })
    const over = policies.findIndex((pol, i) => counters[i]!.used + cost > pol.quota)
    if (over < 0) {
      policies.forEach((pol, i) => {
        counters[i]!.used += cost
        this.counters.set(pol.key, counters[i]!)
      })
      if (this.counters.size > MAX_COUNTERS) this.prune(window)
    }
    const headers = {
      'ratelimit-policy': policies.map((pol) => `"${pol.name}";q=${pol.quota};w=${WINDOW_S}`).join(', '),
      ratelimit: policies.map((pol, i) => `"${pol.name}";r=${Math.max(0, pol.quota - counters[i]!.used)};t=${reset}`).join(', '),
    }
    if (over < 0) return { headers }
    const pol = policies[over]!
    const title =
      cost > pol.quota
        ? `This call counts ${cost} items and the ${pol.name.replace('_', ' ')} limit is ${pol.quota} a minute: send at most ${pol.quota} at a time`
        : `The ${pol.name.replace('_', ' ')} limit of ${pol.quota} requests a minute is reached; retry after Retry-After`
    return { headers, refused: new ApiError('rate_limited', title, { reason: 'rate_limit', limit: pol.name, quota: pol.quota, window_seconds: WINDOW_S }, { headers: { ...headers, 'retry-after': String(reset) } }) }
  }

  private prune(window: number): void {
    for (const [key, c] of this.counters) if (c.window !== window) this.counters.delete(key)
  }
}

/** What a request costs: the length of its `countsItems` array (a bulk call's domains), at least 1. */
export function costOf(countsItems: string | undefined, body: unknown): number {
  if (!countsItems || !body || typeof body !== 'object') return 1
  const items = (body as Record<string, unknown>)[countsItems]
  return Array.isArray(items) && items.length > 0 ? items.length : 1
}
