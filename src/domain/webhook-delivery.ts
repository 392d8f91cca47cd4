// Webhook delivery (the API contract, section 6): at least once, signed by the Standard Webhooks scheme,
// at most three automatic attempts with exponential backoff. Deliveries are fanned out from the outbox
// by a trigger (migrations/0003_webhooks.sql). Invariants:
// - Every send is in the attempt log: a delivery is claimed (a lease on the row) and its attempt row
//   written ('in flight') and committed before the request goes out, then completed with the outcome.
//   A process that dies mid-send leaves the lease to lapse: the delivery is sent again, its earlier
//   attempt marked interrupted (receivers deduplicate on `webhook-id`, the event id). An interrupted
//   attempt does not count against the three.
// - No transaction is open while a receiver is being called.
// - Fair: each claim takes due deliveries round-robin across endpoints (the first due of every
//   endpoint, then the second, ...), at most ENDPOINT_CONCURRENCY of a worker's sends in flight per
//   endpoint (FAILING_ENDPOINT_CONCURRENCY once its sends fail), so a slow or hanging endpoint holds
//   some slots for ATTEMPT_TIMEOUT_MS and no more; the rest go to everyone else's events. An endpoint
//   that has just taken a send (a 2xx within a second, here) may also use idle slots, up to
//   ENDPOINT_BURST: the last FAILING_ENDPOINT_CONCURRENCY of a worker's slots stay for the others
//   even if it then hangs, and one that never answered (a hanging receiver) never bursts. An endpoint
//   that keeps failing is paused for new events (5 s doubling to 5 minutes after its last failure);
//   retries keep the documented schedule.
// - One round trip at a time, on a connection held for the drain: each completes the sends answered
//   since the last one and claims the free slots, in one statement (its commit waits for the disk, as
//   the log must hold a send before it goes out). A lease and an attempt's answer change no indexed
//   column, so they stay on their page (migrations/0100_webhook_hot_writes.sql).
// - Retries run when due: the sweep's due timer sleeps until the earliest next attempt.
import { observeWebhookAttempts } from '../metrics.ts'
import type { Clock } from '../clock.ts'
import { asyncCommit, type Sql } from '../db/sql.ts'
import {
  claimNext,
  stopDraining,
  completeSends,
  deliveryDueAt,
  finishedSend,
  holdForDrain,
  insertOpenAttempts,
  lastAttemptNumbers,
  leaseForRetry,
  markInterrupted,
  queuedSend,
  releaseStranded,
  type AttemptRecord,
  type ClaimedSend,
  type Completion,
} from '../db/webhook-delivery.ts'
import { idFloor, newId } from '../ids.ts'
import type { Dns } from '../adapters/dns.ts'
import { decrypt } from '../crypto.ts'
import { webhookHeaders } from '../adapters/webhook-signing.ts'
import { guardUrl } from '../adapters/ssrf.ts'
import { postPinned } from '../adapters/http-post.ts'

export const MAX_ATTEMPTS = 3
export const ATTEMPT_TIMEOUT_MS = 10_000
/** A claimed send not completed within this is taken to have died with its process: sent again. */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 5_000
/**
 * Sends in flight per worker process, and per endpoint in each worker: half of its slots for an
 * endpoint that answers, 16 for one whose last send failed (a hanging receiver times out, and is then
 * held to 16), so everyone else always has slots. An endpoint that took a send within the last
 * BURST_WINDOW_MS may fill idle slots up to ENDPOINT_BURST (all but 16 of a worker's).
 */
export const DELIVERY_CONCURRENCY = 128
export const ENDPOINT_CONCURRENCY = 64
export const FAILING_ENDPOINT_CONCURRENCY = 16
export const ENDPOINT_BURST = DELIVERY_CONCURRENCY - FAILING_ENDPOINT_CONCURRENCY
const BURST_WINDOW_MS = 1000
/** An endpoint's pause for new events after its n-th failure in a row: 5 s doubling, at most 5 minutes. */
export const endpointPauseMs = (failures: number) => Math.min(5_000 * 2 ** Math.max(0, failures - 1), 300_000)
/** What an attempt row says while its send is out, and after its process died during it. */
export const IN_FLIGHT = 'in flight'
export const INTERRUPTED = 'interrupted: the sending process stopped before the answer was recorded; sent again'
/** Backoff after attempt n (1-based): 10 s, then 60 s; a Retry-After answer overrides it (up to an hour). */
export const BACKOFF_MS = [10_000, 60_000]
const RETRY_AFTER_CAP_S = 3600

/** WEBHOOK_ALLOW_LOOPBACK (tests send to loopback receivers), and SECRETS_KEY that seals endpoints' secrets. */
export interface DeliverySettings {
  webhookAllowLoopback: boolean
  secretsKey: Buffer
}

export interface DeliveryDeps {
  db: Sql
  clock: Clock
  config: DeliverySettings
  dns: Dns
  /** True once the process is stopping: no more claims; sends on the wire finish and are recorded (their leases cleared). */
  stopping?: () => boolean
}

type DueRow = ClaimedSend

/** Resolves a hostname to every address it has, through the configured resolvers. */
export function addressResolver(dns: Dns) {
  return async (host: string): Promise<string[]> => {
    const [a, aaaa] = await Promise.all([dns.lookup(host, 'A'), dns.lookup(host, 'AAAA')])
    const err = [a, aaaa].find((l) => l.status === 'error')
    const out = [...(a.status === 'ok' ? a.values : []), ...(aaaa.status === 'ok' ? aaaa.values : [])]
    if (out.length === 0 && err && err.status === 'error') throw new Error(`could not resolve ${host}: ${err.error}`)
    return out
  }
}

interface Outcome {
  attempt: AttemptRecord
  /** Next state of the delivery. */
  status: 'pending' | 'delivered' | 'failed'
  next_attempt_at: string | null
  disable_endpoint: boolean
  /** Whether the receiver took it (resets the endpoint's failures) or failed it (one more), or neither (refused before sending). */
  endpoint: 'ok' | 'failed' | null
  manual: boolean
  /** A delivery of a connection's event: when it leaves the queue, the next one of the connection is released. */
  ordered: boolean
}

/** A memo of endpoints' secrets and URL checks, renewed every few seconds (a drain may run a minute). */
class Memo {
  private born = performance.now()
  secrets = new Map<string, string[]>()
  guards = new Map<string, ReturnType<typeof guardUrl>>()
  fresh(): this {
    if (performance.now() - this.born > 5_000) {
      this.born = performance.now()
      this.secrets.clear()
      this.guards.clear()
    }
    return this
  }
}

async function sendOne(deps: DeliveryDeps, d: DueRow, budget: number, memo: Memo): Promise<Outcome> {
  const now = deps.clock.now()
  const n = d.attempts + 1
  const started = performance.now()
  let status_code: number | null = null
  let error: string | null = null
  let retryAfter: number | undefined
  let reached = false
  if (d.endpoint_gone) {
    error = 'endpoint removed or disabled'
  } else {
    // Resolved and checked at delivery time, once per URL every few seconds.
    let pending = memo.guards.get(d.url)
    if (!pending) {
      pending = guardUrl(d.url, { allowLoopback: deps.config.webhookAllowLoopback, resolve: addressResolver(deps.dns), requireHttps: !deps.config.webhookAllowLoopback })
      memo.guards.set(d.url, pending)
    }
    const guard = await pending
    if (!guard.ok) {
      error = `refused: ${guard.reason}`
    } else {
      reached = true
      const body = d.body
      let secret = memo.secrets.get(d.endpoint_id)
      if (secret === undefined) memo.secrets.set(d.endpoint_id, (secret = signingSecrets(deps.config.secretsKey, d, now)))
      const headers = { ...webhookHeaders(secret, d.event_id, Math.floor(now.getTime() / 1000), body), 'user-agent': 'Portico-Webhooks/1' }
      const res = await postPinned({ url: guard.url, address: guard.address, headers, body, timeoutMs: ATTEMPT_TIMEOUT_MS })
      if (res.error !== undefined) error = res.error
      else {
        status_code = res.status
        retryAfter = res.retryAfterSeconds
        if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`
      }
    }
  }
  const delivered = status_code !== null && status_code >= 200 && status_code < 300
  const gone = status_code === 410
  const final = delivered || gone || d.endpoint_gone || n >= budget
  let next: string | null = null
  if (!final) {
    // From when the answer came (a hanging receiver costs its timeout, not the interval).
    const at = deps.clock.now().getTime()
    const wait = (status_code === 429 || status_code === 503) && retryAfter !== undefined ? Math.min(retryAfter, RETRY_AFTER_CAP_S) * 1000 : BACKOFF_MS[Math.min(n - 1, BACKOFF_MS.length - 1)]!
    next = new Date(at + wait).toISOString()
  }
  const attempt: AttemptRecord = {
    id: d.attempt_id,
    delivery_id: d.id,
    tenant_id: d.tenant_id,
    application_id: d.application_id,
    endpoint_id: d.endpoint_id,
    url: d.url,
    event_id: d.event_id,
    event_type: d.event_type,
    domain: d.domain,
    attempt: d.attempt_no,
    status_code,
    delivered,
    error: gone ? 'HTTP 410: endpoint disabled' : error,
    duration_ms: Math.round(performance.now() - started),
    created_at: now.toISOString(),
  }
  return {
    attempt,
    status: delivered ? 'delivered' : final ? 'failed' : 'pending',
    next_attempt_at: next,
    disable_endpoint: gone,
    endpoint: !reached ? null : delivered ? 'ok' : 'failed',
    manual: d.manual === true,
    ordered: d.connection_id !== null,
  }
}

/** The endpoint's secret, and the one a rotation replaced while it still signs. */
function signingSecrets(key: Buffer, d: Pick<DueRow, 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_until'>, now: Date): string[] {
  const secrets = [decrypt(key, d.secret_sealed, 'webhook-secret')]
  if (d.previous_secret_sealed && d.previous_secret_until && new Date(d.previous_secret_until) > now) secrets.push(decrypt(key, d.previous_secret_sealed, 'webhook-secret'))
  return secrets
}

/**
 * Writes the attempt rows of claimed sends ('in flight'), numbered after the delivery's earlier
 * attempts, and marks an earlier send that never got its answer recorded as interrupted.
 */
async function openAttempts(tx: Sql, rows: Omit<DueRow, 'attempt_id' | 'attempt_no'>[], now: Date): Promise<DueRow[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  await markInterrupted(tx, ids, IN_FLIGHT, INTERRUPTED)
  const last = await lastAttemptNumbers(tx, ids)
  const out = rows.map((r) => ({ ...r, attempt_id: newId('wha', now.getTime()), attempt_no: (last.get(r.id) ?? 0) + 1 }))
  const attempts = out.map((r) => ({
    id: r.attempt_id, delivery_id: r.id, tenant_id: r.tenant_id, application_id: r.application_id, endpoint_id: r.endpoint_id, url: r.url,
    event_id: r.event_id, event_type: r.event_type, domain: r.domain, attempt: r.attempt_no, error: IN_FLIGHT, created_at: now.toISOString(),
  }))
  await insertOpenAttempts(tx, attempts)
  return out
}

/** Completes sends in one statement (a replay by hand, and a drain's last answers). */
async function record(tx: Sql, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return
  await completeSends(tx, completionOf(outcomes))
  observeWebhookAttempts(outcomes.map((o) => o.status))
}

/**
 * When the earliest queued delivery can be sent (a retry, a send whose lease lapses, a first attempt
 * whose endpoint's pause ends): the sweep's due timer sleeps until then. A due time nobody can take yet
 * would otherwise hide the later ones. Sends in flight are not counted against an endpoint here: the
 * limits are each worker's own, and a drain ends with none of its sends out.
 */
export async function nextDeliveryDue(db: Sql, now: Date): Promise<Date | null> {
  return deliveryDueAt(db, now)
}

interface Limits {
  /** Sends this worker may start now. */
  free: number
  perEndpoint: number
  perFailing: number
  /** Endpoints taking sends fast (a 2xx in the last second here) may use idle slots, up to `burst`. */
  bursting: string[]
  burst: number
  /** This worker's sends out, by endpoint: they count against the endpoint's limit. */
  open: Map<string, number>
}

/** What the answers in `outcomes` mean for their deliveries and endpoints. */
function completionOf(outcomes: Outcome[]): Completion {
  const latest = (os: Outcome[]) => os.reduce<string | null>((at, o) => (at === null || o.attempt.created_at > at ? o.attempt.created_at : at), null)
  const gone = outcomes.filter((o) => o.disable_endpoint)
  const ok = [...new Set(outcomes.filter((o) => o.endpoint === 'ok').map((o) => o.attempt.endpoint_id))]
  return {
    attempts: outcomes.map((o) => o.attempt),
    // A delivery that is done (delivered, or out of attempts) leaves the queue; one still to be retried
    // waits for its next attempt. A replay by hand of a finished delivery only completes its attempt row.
    retries: outcomes.filter((o) => o.status === 'pending').map((o) => ({ id: o.attempt.delivery_id, next_attempt_at: o.next_attempt_at, at: o.attempt.created_at })),
    done: outcomes.filter((o) => o.status !== 'pending').map((o) => o.attempt.delivery_id),
    // Stamped with the injected clock's time of the send that got the 410, not the database's.
    gone: [...new Set(gone.map((o) => o.attempt.endpoint_id))],
    goneAt: latest(gone),
    // The endpoint's run of failures: a success ends it, each failure lengthens its pause for new events.
    ok,
    failed: [...new Set(outcomes.filter((o) => o.endpoint === 'failed').map((o) => o.attempt.endpoint_id))].filter((id) => !ok.includes(id)),
    failedAt: latest(outcomes),
  }
}

/**
 * One round trip of the delivery sweep: completes the answered sends in `outcomes` and, when `limits`
 * are given, claims up to `limits.free` due deliveries fairly, each leased and its attempt row
 * committed before it is sent. One that only completes sends commits without waiting for the disk:
 * a commit lost in a crash leaves the leases to lapse, and those deliveries are sent again (their
 * attempts marked interrupted).
 */
async function step(deps: DeliveryDeps, conn: Sql, outcomes: Outcome[], limits: Limits | null): Promise<DueRow[]> {
  if (!limits) {
    await conn.begin(async (tx) => {
      await asyncCommit(tx)
      // No claim follows: a delivery these answers release wakes a worker (migration 0120).
      await stopDraining(tx)
      await record(tx, outcomes)
    })
    return []
  }
  const now = deps.clock.now()
  const lease = new Date(now.getTime() + LEASE_MS)
  const rows = await claimNext(conn, outcomes.length ? completionOf(outcomes) : null, {
    now, lease, limit: limits.free, perEndpoint: limits.perEndpoint, perFailing: limits.perFailing, bursting: limits.bursting, burst: limits.burst,
    open: limits.open, idPrefix: idFloor('wha', now.getTime()), inFlight: IN_FLIGHT, interrupted: INTERRUPTED,
  })
  if (outcomes.length) observeWebhookAttempts(outcomes.map((o) => o.status))
  return rows
}

/**
 * This worker's sends in flight by endpoint (each worker keeps to the limits on its own), and when
 * each endpoint last took a send (a 2xx, by this process's clock): kept across drains, so an endpoint
 * taking sends fast may burst in the next drain too.
 */
const sendsOut = new Map<string, number>()
const lastTaken = new Map<string, number>()

/**
 * Sends what is due until nothing is (or `budgetMs` passes): up to `concurrency` sends in flight,
 * one round trip at a time to the database, each completing the sends answered since the last one
 * and claiming, fairly, as many as there are free slots. Round trips follow each other while they
 * find work or sends end meanwhile; otherwise the next waits for a send to end, or 250 ms while
 * sends are out (new events and due retries are taken while a slow endpoint's sends wait on their
 * timeout). Answers how many sends were completed.
 */
export async function deliverAll(deps: DeliveryDeps, budgetMs = 55_000, opts: { concurrency?: number; perEndpoint?: number; perFailing?: number; burst?: number } = {}): Promise<number> {
  const run = new DeliveryRun(deps, performance.now() + budgetMs, {
    concurrency: opts.concurrency ?? DELIVERY_CONCURRENCY,
    perEndpoint: opts.perEndpoint ?? ENDPOINT_CONCURRENCY,
    perFailing: opts.perFailing ?? FAILING_ENDPOINT_CONCURRENCY,
    burst: opts.burst ?? ENDPOINT_BURST,
  })
  const drain = await holdForDrain(deps.db)
  try {
    await run.loop(drain.conn)
  } finally {
    await run.finish(drain)
  }
  if (run.failure) throw run.failure
  return run.recorded
}

/** One drain of the delivery sweep (`deliverAll`): its sends in flight, their answers not yet recorded, and its round trips. */
class DeliveryRun {
  readonly memo = new Memo()
  outcomes: Outcome[] = []
  inFlight = 0
  ended = 0
  recorded = 0
  /** The last claim found nothing and no send has ended since it began. */
  idle = false
  wake: (() => void) | null = null
  failure: unknown = null

  constructor(
    readonly deps: DeliveryDeps,
    readonly until: number,
    readonly limits: { concurrency: number; perEndpoint: number; perFailing: number; burst: number },
  ) {}

  /** Round trips until nothing is due and nothing is out (or the budget, a stop or a failure ends them). */
  async loop(conn: Sql): Promise<void> {
    for (;;) {
      const open = !this.failure && performance.now() < this.until && !this.deps.stopping?.()
      const free = this.limits.concurrency - this.inFlight
      const claiming = open && !this.idle && free > 0
      if (!claiming && this.outcomes.length === 0) {
        if (this.failure) throw this.failure
        if (this.inFlight === 0 && (this.idle || !open)) return
        await this.nextEvent(this.idle && open)
        continue
      }
      await this.roundTrip(conn, claiming, free)
    }
  }

  /** Waits for a send to end, or 250 ms at most when `timed` (new events and due retries are then looked for). */
  private async nextEvent(timed: boolean): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = timed ? setTimeout(() => ((this.idle = false), resolve()), 250) : undefined
      this.wake = () => {
        clearTimeout(t)
        resolve()
      }
    })
    this.wake = null
  }

  /** Records the answers in hand and, when `claiming`, claims up to `free` more and sends them. */
  private async roundTrip(conn: Sql, claiming: boolean, free: number): Promise<void> {
    const batch = this.outcomes
    this.outcomes = []
    const endedBefore = this.ended
    const recent = performance.now() - BURST_WINDOW_MS
    const bursting: string[] = []
    for (const [id, at] of lastTaken) {
      if (at <= recent) lastTaken.delete(id)
      else if (claiming) bursting.push(id)
    }
    const { perEndpoint, perFailing, burst } = this.limits
    const rows = await step(this.deps, conn, batch, claiming ? { free, perEndpoint, perFailing, bursting, burst, open: sendsOut } : null)
    this.recorded += batch.length
    this.sendAll(rows)
    // A connection's delivery that left the queue released the next one of its connection, which the
    // claim in the same statement could not see yet: the next round trip looks.
    const released = batch.some((o) => o.ordered && o.status !== 'pending')
    if (claiming) this.idle = rows.length === 0 && this.ended === endedBefore && !released
  }

  // A claimed send starts on the next turn of the event loop, so the next round trip is on its way to
  // the database before this worker spends its time signing and opening requests (measured: a round
  // trip of 50 sends took 6 ms started after them, 4.5 ms before).
  private sendAll(rows: DueRow[]): void {
    for (const d of rows) {
      this.inFlight++
      sendsOut.set(d.endpoint_id, (sendsOut.get(d.endpoint_id) ?? 0) + 1)
    }
    if (rows.length) setImmediate(() => rows.forEach((d) => this.send(d)))
  }

  private send(d: DueRow): void {
    void sendOne(this.deps, d, d.max_attempts, this.memo.fresh())
      .then((o) => {
        if (o.attempt.delivered) lastTaken.set(o.attempt.endpoint_id, performance.now())
        this.outcomes.push(o)
      })
      .catch((err: unknown) => (this.failure ??= err))
      .finally(() => {
        this.inFlight--
        const n = sendsOut.get(d.endpoint_id)! - 1
        if (n > 0) sendsOut.set(d.endpoint_id, n)
        else sendsOut.delete(d.endpoint_id)
        this.ended++
        this.idle = false
        this.wake?.()
      })
  }

  /** Whatever happened, the sends out are awaited and their answers recorded where possible. */
  async finish(drain: { conn: Sql; release(): Promise<void> }): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => (this.wake = resolve))
    if (this.outcomes.length) {
      // The last answers; a delivery they release is sent by the next drain (this one notifies the workers).
      const rest = this.outcomes
      this.outcomes = []
      await step(this.deps, drain.conn, rest, null).then(
        () => (this.recorded += rest.length),
        (err: unknown) => (this.failure ??= err),
      )
    }
    // Held deliveries whose predecessor left while they were being written (see `releaseStranded`).
    if (!this.failure) await releaseStranded(drain.conn).catch((err: unknown) => (this.failure ??= err))
    await drain.release()
  }
}

/**
 * Replays one delivery by hand, now, whatever its state: one more attempt, in the log before it is
 * sent, recorded like the others. A delivery still queued is taken from the queue for it (and leaves
 * the queue if this attempt ends it); a finished one, delivered too (the receiver asked for it), is
 * rebuilt from its last attempt.
 */
export async function retryDelivery(deps: DeliveryDeps, deliveryId: string): Promise<AttemptRecord> {
  const now = deps.clock.now()
  const d = await deps.db.begin(async (tx) => {
    const queued = await leaseForRetry(tx, deliveryId, new Date(now.getTime() + LEASE_MS))
    const row = queued ? await queuedSend(tx, deliveryId) : await finishedSend(tx, deliveryId, MAX_ATTEMPTS)
    if (!row) throw new Error(`delivery ${deliveryId} vanished`)
    const [opened] = await openAttempts(tx, [row], now)
    return { ...opened!, manual: !queued }
  })
  const o = await sendOne(deps, d, d.attempts + 1, new Memo())
  await deps.db.begin((tx) => record(tx, [o]))
  return o.attempt
}
