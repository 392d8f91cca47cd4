// What a user sees of the configured DNS resolvers: whether they answer (a probe /healthz reads,
// cached a few seconds), the 503 a lookup failure becomes (naming the resolvers and the setting),
// and a warning logged at most once a minute however many requests fail.
import { Resolver } from '../adapters/resolver.ts'
import { ApiError } from '../errors.ts'
import { log } from '../logger.ts'

const PROBE_TTL_MS = 5_000
const LOG_EVERY_MS = 60_000

export type DnsState = 'ok' | 'failing' | 'unreachable'

export class DnsHealth {
  private probed: { at: number; state: DnsState } | null = null
  private probing: Promise<DnsState> | null = null
  private lastLogged = -Infinity
  private suppressed = 0

  /** `from` is where the list came from: `DNS_RESOLVERS`, a resolv.conf path, or `fallback`. */
  constructor(
    readonly resolvers: string[],
    readonly from: string,
    private readonly timeoutMs: number,
  ) {}

  /** What a 503 and /healthz say about the resolvers. */
  describe(): { resolvers: string[]; setting: 'DNS_RESOLVERS'; resolvers_from: string } {
    return { resolvers: this.resolvers, setting: 'DNS_RESOLVERS', resolvers_from: this.from }
  }

  /**
   * Whether any resolver answers: one query for `invalid.` (RFC 6761: answered NXDOMAIN without
   * recursion) to each server in turn. Any reply counts as reachable (a refusal too: an authoritative
   * server named as resolver refuses names outside its zones), except SERVFAIL, which is a resolver
   * that answers but cannot resolve (`failing`). Kept PROBE_TTL_MS; callers meanwhile share one probe.
   */
  async state(now = performance.now()): Promise<DnsState> {
    if (this.probed && now - this.probed.at < PROBE_TTL_MS) return this.probed.state
    this.probing ??= this.probe().then((state) => {
      this.probed = { at: performance.now(), state }
      this.probing = null
      return state
    })
    return this.probing
  }

  private async probe(): Promise<DnsState> {
    const r = new Resolver({ servers: this.resolvers, timeoutMs: Math.min(this.timeoutMs, 1500), tries: this.resolvers.length })
    try {
      const l = await r.lookup('invalid', 'SOA')
      if (l.status !== 'error') return 'ok'
      if (l.error === 'rcode 2') return 'failing' // SERVFAIL
      return l.error.startsWith('rcode') ? 'ok' : 'unreachable'
    } finally {
      await r.close()
    }
  }

  /** A lookup failed: warn, at most once a minute, with how many failures the last minute held. */
  failed(error: string, now = performance.now()): void {
    if (now - this.lastLogged < LOG_EVERY_MS) {
      this.suppressed++
      return
    }
    log.warn('dns.resolver_failed', { ...this.describe(), error, failures_since_last_warning: this.suppressed })
    this.lastLogged = now
    this.suppressed = 0
  }

  /** The 503 of an operation that cannot go on without DNS. */
  unavailable(error: string): ApiError {
    this.failed(error)
    return new ApiError(
      'service_unavailable',
      `DNS lookups failed at ${this.resolvers.join(', ')} (DNS_RESOLVERS); try again shortly`,
      { detection_error: 'resolver', error, ...this.describe() },
      { headers: { 'retry-after': '5' } },
    )
  }
}
