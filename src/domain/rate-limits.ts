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

type PolicyName = 'api_key' | 'application' | 'end_user' | 'agent_grant'

/** One limit a request is counted against: its policy, the key it is counted under (within the policy), its quota. */
interface Policy {
  name: PolicyName
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
  /** One map of counters per policy, keyed by what the policy counts (a key id, an application id, …). */
  private readonly counters: Record<PolicyName, Map<string, Counter>> = { api_key: new Map(), application: new Map(), end_user: new Map(), agent_grant: new Map() }
  private size = 0
  /** `RateLimit-Policy` per credential kind: the same on every answer, built once. */
  private readonly policyHeader: Record<'KEY' | 'WIDGET' | 'AGENT', string>

  constructor(
    private readonly limits: RateLimitSettings,
    /** Milliseconds now: the deployment's clock (movable in tests). */
    private readonly now: () => number,
  ) {
    const f = (name: PolicyName, q: number) => `"${name}";q=${q};w=${WINDOW_S}`
    this.policyHeader = {
      KEY: f('api_key', limits.apiKey),
      WIDGET: `${f('application', limits.application)}, ${f('end_user', limits.endUser)}`,
      AGENT: f('agent_grant', limits.agentGrant),
    }
  }

  /** Each principal's policies, for the principals the key cache hands out again and again. */
  private readonly known = new WeakMap<Principal, Policy[]>()

  private policies(p: Principal): Policy[] | null {
    let list = this.known.get(p)
    if (list === undefined) {
      const made = this.policiesOf(p)
      if (made === null) return null
      this.known.set(p, (list = made))
    }
    return list
  }

  private policiesOf(p: Principal): Policy[] | null {
    switch (p.kind) {
      case 'KEY':
        return [{ name: 'api_key', key: p.keyId, quota: this.limits.apiKey }]
      case 'WIDGET':
        return [
          { name: 'application', key: p.applicationId, quota: this.limits.application },
          { name: 'end_user', key: p.tokenId, quota: this.limits.endUser },
        ]
      case 'AGENT':
        // One grant per person and client in a workspace (oauth/consent.ts): these three name it.
        return [{ name: 'agent_grant', key: `${p.tenantId} ${p.clientId} ${p.subject}`, quota: this.limits.agentGrant }]
      default:
        return null
    }
  }

  /** Counts a request costing `cost` (the items of a bulk call, else 1) against every limit of its credential; null when none applies. */
  take(p: Principal, cost = 1): Taken | null {
    const policies = this.policies(p)
    if (policies === null) return null
    const nowS = this.now() / 1000
    const window = Math.floor(nowS / WINDOW_S)
    const reset = Math.max(1, Math.ceil((window + 1) * WINDOW_S - nowS))
    const counters: Counter[] = []
    let over = -1
    for (let i = 0; i < policies.length; i++) {
      const pol = policies[i]!
      const map = this.counters[pol.name]
      let c = map.get(pol.key)
      if (c === undefined) {
        c = { window, used: 0 }
        map.set(pol.key, c)
        if (++this.size > MAX_COUNTERS) this.prune(window)
      } else if (c.window !== window) {
        c.window = window
        c.used = 0
      }
      counters.push(c)
      if (over < 0 && c.used + cost > pol.quota) over = i
    }
    if (over < 0) for (const c of counters) c.used += cost
    let remaining = ''
    for (let i = 0; i < policies.length; i++) remaining += `${i ? ', ' : ''}"${policies[i]!.name}";r=${Math.max(0, policies[i]!.quota - counters[i]!.used)};t=${reset}`
    const headers = { 'ratelimit-policy': this.policyHeader[p.kind as 'KEY' | 'WIDGET' | 'AGENT'], ratelimit: remaining }
    if (over < 0) return { headers }
    const pol = policies[over]!
    const what = pol.name.replace('_', ' ')
    const title =
      cost > pol.quota
        ? `This call counts ${cost} items and the ${what} limit is ${pol.quota} a minute: send at most ${pol.quota} at a time`
        : `The ${what} limit of ${pol.quota} requests a minute is reached; retry after Retry-After`
    return { headers, refused: new ApiError('rate_limited', title, { reason: 'rate_limit', limit: pol.name, quota: pol.quota, window_seconds: WINDOW_S }, { headers: { ...headers, 'retry-after': String(reset) } }) }
  }

  /** Drops the counters of past windows (they equal no counter). */
  private prune(window: number): void {
    this.size = 0
    for (const map of Object.values(this.counters)) {
      for (const [key, c] of map) if (c.window !== window) map.delete(key)
      this.size += map.size
    }
  }
}

/**
 * What a request costs: the length of its `countsItems` array (a bulk call's domains), at least 1. A
 * call with more items than its schema's `maxItems` is refused as invalid (400) and costs 1: charged
 * whole, it answered 429 with a Retry-After that never helped.
 */
export function costOf(countsItems: string | undefined, body: unknown, maxItems?: number): number {
  if (!countsItems || !body || typeof body !== 'object') return 1
  const items = (body as Record<string, unknown>)[countsItems]
  if (!Array.isArray(items) || items.length === 0 || (maxItems !== undefined && items.length > maxItems)) return 1
  return items.length
}
