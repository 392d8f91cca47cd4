// A per-process cache of API-key lookups. Every authenticated request would otherwise pay a database
// round trip before its own work; with this it pays one only on a miss.
//
// Revocation stays immediate: the revoking transaction NOTIFYs `portico_keys` with the key hash, and
// every process LISTENs and evicts on delivery (at commit, before the revoke response leaves). The
// revoking process also evicts after its own commit. While the listening connection is down the cache
// is bypassed and emptied, so a missed notification can never keep a revoked key alive; entries also
// expire after `ttlMs` as a backstop. The same channel carries a revoked widget token's id (`wtk_…`);
// `onRevoked` hears every payload (and `+hash`, a credential made valid: notifyValid), `onListening` every (re)start, so a revocation list can be read again.
import postgres from 'postgres'
import { KEYS_CHANNEL, VALID_PREFIX } from '../db/channels.ts'
import { log } from '../logger.ts'

/** `P` is what a lookup found for a key (the caller's principal): the cache keeps it as given. */
export class KeyCache<P> {
  private readonly entries = new Map<string, { p: P; expires: number }>()
  private listening = false
  /** Bumped by every eviction; a lookup that raced one must not be cached. */
  private generation = 0
  private listener: ReturnType<typeof postgres> | null = null

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
    /** Told of every revocation notified (a key's hash, hex; or a widget token's id): the failure throttle forgets it, the widget tokens refuse it. */
    private readonly onRevoked: (payload: string) => void = () => {},
    /** Told each time the notifications (re)start: what was revoked meanwhile is read again. */
    private readonly onListening: () => void = () => {},
  ) {}

  async start(databaseUrl: string): Promise<void> {
    this.listener = postgres(databaseUrl, {
      max: 1,
      onnotice: () => {},
      onclose: () => this.pause(),
    })
    await this.listener.listen(
      KEYS_CHANNEL,
      // A payload naming a credential made valid (`+…`) evicts nothing: it is only told on.
      (payload) => (payload.startsWith(VALID_PREFIX) ? this.onRevoked(payload) : this.evict(payload)),
      () => {
        // (Re)subscribed: anything cached before may have missed a notification.
        this.generation++
        this.entries.clear()
        this.listening = true
        this.onListening()
      },
    )
  }

  private pause(): void {
    if (this.listening) log.warn('key cache paused: notification connection closed')
    this.listening = false
    this.generation++
    this.entries.clear()
  }

  /** Take before the database lookup; hand back to `set`. */
  mark(): number {
    return this.generation
  }

  get(hashHex: string, nowMs: number): P | undefined {
    if (!this.listening) return undefined
    const e = this.entries.get(hashHex)
    if (!e) return undefined
    if (e.expires <= nowMs) {
      this.entries.delete(hashHex)
      return undefined
    }
    return e.p
  }

  set(hashHex: string, p: P, nowMs: number, mark: number): void {
    if (!this.listening || mark !== this.generation) return
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(hashHex, { p, expires: nowMs + this.ttlMs })
  }

  evict(hashHex: string): void {
    this.generation++
    this.entries.delete(hashHex)
    this.onRevoked(hashHex)
  }

  async close(): Promise<void> {
    this.listening = false
    this.entries.clear()
    await this.listener?.end({ timeout: 1 })
  }
}
