// Webhook delivery (CONTRACT.md section 6): at least once, signed by the Standard Webhooks scheme,
// at most three automatic attempts with exponential backoff. Deliveries are fanned out from the outbox
// by a trigger (migrations/0003_webhooks.sql). Invariants:
// - Every send is in the attempt log: a delivery is claimed (a lease on the row) and its attempt row
//   written ('in flight') and committed before the request goes out, then completed with the outcome.
//   A process that dies mid-send leaves the lease to lapse: the delivery is sent again, its earlier
//   attempt marked interrupted (receivers deduplicate on `webhook-id`, the event id). An interrupted
//   attempt does not count against the three.
// - No transaction is open while a receiver is being called.
// - Fair: each claim takes due deliveries round-robin across endpoints (the first due of every
//   endpoint, then the second, ...), at most ENDPOINT_CONCURRENCY in flight per endpoint across all
//   processes (FAILING_ENDPOINT_CONCURRENCY once its sends fail), so a slow or hanging endpoint holds
//   some slots for ATTEMPT_TIMEOUT_MS and no more; the rest go to everyone else's events. An endpoint that keeps failing is paused for new events (5 s
//   doubling to 5 minutes after its last failure); retries keep the documented schedule.
// - Retries run when due: the sweep's due timer sleeps until the earliest next attempt.
import { observeWebhookAttempts } from '../metrics.ts'
import type { Clock } from '../clock.ts'
import { notify, WORK_CHANNEL } from '../db/channels.ts'
import { asyncCommit, type Sql } from '../db/sql.ts'
import {
  claimDue,
  completeSends,
  deliveryDueAt,
  disableGoneEndpoints,
  endFailureRuns,
  finishedSend,
  insertOpenAttempts,
  lastAttemptNumbers,
  leaseForRetry,
  lengthenFailureRuns,
  markInterrupted,
  queuedSend,
  type AttemptRecord,
  type ClaimedSend,
} from '../db/webhook-delivery.ts'
import { newId } from '../ids.ts'
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
 * Sends in flight per process, and per endpoint across processes: half of a worker's slots for an
 * endpoint that answers, 16 for one whose last send failed (a hanging receiver times out, and is then
 * held to 16), so everyone else always has slots.
 */
export const DELIVERY_CONCURRENCY = 128
export const ENDPOINT_CONCURRENCY = 64
export const FAILING_ENDPOINT_CONCURRENCY = 16
/** How long a drain gathers finished sends before claiming again. */
const CLAIM_GATHER_MS = 5
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
}

/** A memo of endpoints' secrets and URL checks, renewed every few seconds (a drain may run a minute). */
class Memo {
  private born = Date.now()
  secrets = new Map<string, string[]>()
  guards = new Map<string, ReturnType<typeof guardUrl>>()
  fresh(): this {
    if (Date.now() - this.born > 5_000) {
      this.born = Date.now()
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

/**
 * Claims up to `limit` due deliveries, fairly: round-robin across endpoints, none past its endpoint's
 * limit of sends in flight (counted across processes by their leases), first attempts held while the
 * endpoint is paused. Each is leased and its attempt row committed before it is sent.
 */
async function claim(deps: DeliveryDeps, limit: number, perEndpoint: number, perFailing: number): Promise<DueRow[]> {
  const now = deps.clock.now()
  const lease = new Date(now.getTime() + LEASE_MS)
  return deps.db.begin(async (tx) => {
    const rows = await claimDue(tx, { now, lease, limit, perEndpoint, perFailing })
    return openAttempts(tx, rows, now)
  })
}

async function record(tx: Sql, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return
  const attempts = outcomes.map((o) => o.attempt)
  // A delivery that is done (delivered, or out of attempts) leaves the queue; one still to be retried
  // waits for its next attempt. A replay by hand of a finished delivery only completes its attempt row.
  const done = outcomes.filter((o) => o.status !== 'pending').map((o) => o.attempt.delivery_id)
  const retries = outcomes.filter((o) => o.status === 'pending').map((o) => ({ id: o.attempt.delivery_id, next_attempt_at: o.next_attempt_at, at: o.attempt.created_at }))
  await completeSends(tx, attempts, retries, done)
  observeWebhookAttempts(outcomes.map((o) => o.status))
  const gone = [...new Set(outcomes.filter((o) => o.disable_endpoint).map((o) => o.attempt.endpoint_id))]
  if (gone.length) {
    // Stamped with the injected clock's time of the send that got the 410, not the database's.
    const at = outcomes.filter((o) => o.disable_endpoint).map((o) => o.attempt.created_at).sort().at(-1)!
    await disableGoneEndpoints(tx, gone, at)
  }
  // The endpoint's run of failures: a success ends it, each failure lengthens its pause for new events.
  const ok = [...new Set(outcomes.filter((o) => o.endpoint === 'ok').map((o) => o.attempt.endpoint_id))]
  const failed = [...new Set(outcomes.filter((o) => o.endpoint === 'failed').map((o) => o.attempt.endpoint_id))].filter((id) => !ok.includes(id))
  if (ok.length) await endFailureRuns(tx, ok)
  if (failed.length) {
    const at = new Date(Math.max(...outcomes.map((o) => Date.parse(o.attempt.created_at))))
    await lengthenFailureRuns(tx, failed, at)
  }
  if (retries.length) await notify(tx, WORK_CHANNEL, 'schedule:webhook-deliver')
}

/**
 * When the earliest queued delivery can be sent (a retry, a send whose lease lapses, a first attempt
 * whose endpoint's pause ends, one waiting for its endpoint's sends in flight to end): the sweep's due
 * timer sleeps until then. A due time nobody can take yet would otherwise hide the later ones.
 */
export async function nextDeliveryDue(db: Sql, now: Date, perEndpoint = ENDPOINT_CONCURRENCY, perFailing = FAILING_ENDPOINT_CONCURRENCY): Promise<Date | null> {
  return deliveryDueAt(db, now, perEndpoint, perFailing)
}

/** Completes sends: their attempt rows and deliveries, in one transaction per flush. */
class Recorder {
  private buffer: Outcome[] = []
  private running: Promise<void> | null = null
  recorded = 0
  constructor(private readonly db: Sql) {}

  add(o: Outcome): void {
    this.buffer.push(o)
    this.running ??= this.flush()
  }

  private async flush(): Promise<void> {
    try {
      while (this.buffer.length) {
        const batch = this.buffer.splice(0)
        await this.db.begin(async (tx) => {
          // A commit lost in a crash leaves the leases to lapse: those deliveries are sent again.
          await asyncCommit(tx)
          await record(tx, batch)
        })
        this.recorded += batch.length
      }
    } finally {
      this.running = null
    }
  }

  get busy(): boolean {
    return this.running !== null
  }

  async idle(): Promise<void> {
    while (this.running) await this.running
  }
}

/**
 * Sends what is due until nothing is (or `budgetMs` passes): up to DELIVERY_CONCURRENCY sends in
 * flight, claimed fairly as slots free up and looked for again every 250 ms while any send is out,
 * so new events and due retries are taken while a slow endpoint's sends wait on their timeout.
 * Answers how many sends were completed.
 */
export async function deliverAll(deps: DeliveryDeps, budgetMs = 55_000, opts: { concurrency?: number; perEndpoint?: number; perFailing?: number } = {}): Promise<number> {
  const concurrency = opts.concurrency ?? DELIVERY_CONCURRENCY
  const perEndpoint = opts.perEndpoint ?? ENDPOINT_CONCURRENCY
  const perFailing = opts.perFailing ?? FAILING_ENDPOINT_CONCURRENCY
  const until = performance.now() + budgetMs
  const recorder = new Recorder(deps.db)
  const memo = new Memo()
  let inFlight = 0
  let wake: (() => void) | null = null
  let failure: unknown = null
  try {
    for (;;) {
      const free = concurrency - inFlight
      let claimed = 0
      const recordedBefore = recorder.recorded
      if (free > 0 && performance.now() < until) {
        const rows = await claim(deps, free, perEndpoint, perFailing)
        claimed = rows.length
        for (const d of rows) {
          inFlight++
          void sendOne(deps, d, d.max_attempts, memo.fresh())
            .then((o) => recorder.add(o))
            .catch((err: unknown) => (failure ??= err))
            .finally(() => {
              inFlight--
              wake?.()
            })
        }
      }
      if (failure) throw failure
      if (inFlight === 0 && (claimed === 0 || performance.now() >= until)) {
        // Sends just answered hold their endpoint's slots until recorded: when a record was being
        // written meanwhile, the claim may not have seen it; look once more after it.
        if ((recorder.busy || recorder.recorded !== recordedBefore) && performance.now() < until) {
          await recorder.idle()
          continue
        }
        break
      }
      if (claimed > 0 && claimed === free) continue
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 250)
        wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
      wake = null
      // Completions are gathered for a few milliseconds: one claim for many freed slots.
      if (inFlight > 0) await Bun.sleep(CLAIM_GATHER_MS)
    }
  } finally {
    while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve))
    await recorder.idle()
  }
  return recorder.recorded
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
