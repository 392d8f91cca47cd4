// Webhook delivery (CONTRACT.md section 6): at least once, signed by the Standard Webhooks scheme,
// at most three automatic attempts with exponential backoff. Deliveries are fanned out from the outbox
// by a trigger (migrations/0003_webhooks.sql); this module sends the due ones and records one attempt
// row per try. The batch stays locked (SKIP LOCKED) while it is sent, so a crash after a send and
// before its record releases the rows and they are sent again: receivers deduplicate on
// `webhook-id`, which is the event id.
import { observeWebhookAttempts } from '../metrics.ts'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import { pack } from '../db/columns.ts'
import type { Sql } from '../db/sql.ts'
import { newId } from '../ids.ts'
import type { Dns } from './dns.ts'
import { decrypt } from './secrets.ts'
import { webhookHeaders } from '../adapters/webhook-signing.ts'
import { guardUrl } from '../adapters/ssrf.ts'
import { postPinned } from '../adapters/http-post.ts'
import { drainInRounds, mapLimit } from '../jobs/lanes.ts'

export const MAX_ATTEMPTS = 3
export const ATTEMPT_TIMEOUT_MS = 10_000
/** Backoff after attempt n (1-based): 10 s, then 60 s; a Retry-After answer overrides it (up to an hour). */
export const BACKOFF_MS = [10_000, 60_000]
const RETRY_AFTER_CAP_S = 3600

export interface DeliveryDeps {
  db: Sql
  clock: Clock
  config: Config
  dns: Dns
}

interface DueRow {
  id: string
  tenant_id: string
  application_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  attempts: number
  max_attempts: number
  url: string
  secret_sealed: string
  /** The secret a rotation replaced, still signing until `previous_secret_until`. */
  previous_secret_sealed: string | null
  previous_secret_until: Date | null
  endpoint_gone: boolean
  /** The envelope as PostgreSQL renders it: the exact bytes that are signed and sent. */
  body: string
  domain: string | null
}

export interface AttemptRecord {
  id: string
  delivery_id: string
  tenant_id: string
  application_id: string
  endpoint_id: string
  url: string
  event_id: string
  event_type: string
  domain: string | null
  attempt: number
  status_code: number | null
  delivered: boolean
  error: string | null
  duration_ms: number
  created_at: string
}

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
}

/** Per-batch memo: an endpoint's secret and its URL check are computed once for the whole batch. */
interface BatchMemo {
  secrets: Map<string, string[]>
  guards: Map<string, ReturnType<typeof guardUrl>>
}
const newMemo = (): BatchMemo => ({ secrets: new Map(), guards: new Map() })

async function sendOne(deps: DeliveryDeps, d: DueRow, budget: number, memo: BatchMemo): Promise<Outcome> {
  const now = deps.clock.now()
  const n = d.attempts + 1
  const started = performance.now()
  let status_code: number | null = null
  let error: string | null = null
  let retryAfter: number | undefined
  if (d.endpoint_gone) {
    error = 'endpoint removed or disabled'
  } else {
    // Resolved and checked at delivery time, once per batch per URL (a batch takes milliseconds).
    let pending = memo.guards.get(d.url)
    if (!pending) {
      pending = guardUrl(d.url, { allowLoopback: deps.config.webhookAllowLoopback, resolve: addressResolver(deps.dns), requireHttps: !deps.config.webhookAllowLoopback })
      memo.guards.set(d.url, pending)
    }
    const guard = await pending
    if (!guard.ok) {
      error = `refused: ${guard.reason}`
    } else {
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
    const wait = (status_code === 429 || status_code === 503) && retryAfter !== undefined ? Math.min(retryAfter, RETRY_AFTER_CAP_S) * 1000 : BACKOFF_MS[Math.min(n - 1, BACKOFF_MS.length - 1)]!
    next = new Date(now.getTime() + wait).toISOString()
  }
  const attempt: AttemptRecord = {
    id: newId('wha', now.getTime()),
    delivery_id: d.id,
    tenant_id: d.tenant_id,
    application_id: d.application_id,
    endpoint_id: d.endpoint_id,
    url: d.url,
    event_id: d.event_id,
    event_type: d.event_type,
    domain: d.domain,
    attempt: n,
    status_code,
    delivered,
    error: gone ? 'HTTP 410: endpoint disabled' : error,
    duration_ms: Math.round(performance.now() - started),
    created_at: now.toISOString(),
  }
  return { attempt, status: delivered ? 'delivered' : final ? 'failed' : 'pending', next_attempt_at: next, disable_endpoint: gone }
}

/** The endpoint's secret, and the one a rotation replaced while it still signs. */
function signingSecrets(key: Buffer, d: Pick<DueRow, 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_until'>, now: Date): string[] {
  const secrets = [decrypt(key, d.secret_sealed, 'webhook-secret')]
  if (d.previous_secret_sealed && d.previous_secret_until && new Date(d.previous_secret_until) > now) secrets.push(decrypt(key, d.previous_secret_sealed, 'webhook-secret'))
  return secrets
}

const DUE_COLUMNS = `d.id, d.tenant_id, d.application_id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.max_attempts,
  w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_until, (w.deleted_at is not null or w.disabled_at is not null) as endpoint_gone,
  e.payload::text as body, e.payload->>'domain' as domain`

async function record(tx: Sql, outcomes: Outcome[], now: Date): Promise<void> {
  if (outcomes.length === 0) return
  const attempts = outcomes.map((o) => o.attempt)
  // A delivery that is done (delivered, or out of attempts) leaves the queue; one still to be retried
  // waits for its next attempt.
  const done = outcomes.filter((o) => o.status !== 'pending').map((o) => o.attempt.delivery_id)
  const retries = outcomes.filter((o) => o.status === 'pending').map((o) => ({ id: o.attempt.delivery_id, attempts: o.attempt.attempt, next_attempt_at: o.next_attempt_at, at: o.attempt.created_at }))
  await tx`
    with a as (
      insert into webhook_attempts (id, delivery_id, tenant_id, application_id, endpoint_id, url, event_id, event_type, domain,
        attempt, status_code, delivered, error, duration_ms, created_at)
      select * from json_to_recordset(${attempts}::json) as a(id text, delivery_id text, tenant_id text, application_id text,
        endpoint_id text, url text, event_id text, event_type text, domain text, attempt int, status_code int, delivered boolean,
        error text, duration_ms int, created_at timestamptz)
    ), r as (
      update webhook_deliveries d set attempts = u.attempts, next_attempt_at = u.next_attempt_at, updated_at = u.at
      from json_to_recordset(${retries}::json) as u(id text, attempts int, next_attempt_at timestamptz, at timestamptz)
      where d.id = u.id
    )
    delete from webhook_deliveries where id = any(unpack_column(${pack(done)}))`
  observeWebhookAttempts(outcomes.map((o) => o.status))
  const gone = [...new Set(outcomes.filter((o) => o.disable_endpoint).map((o) => o.attempt.endpoint_id))]
  if (gone.length) {
    await tx`update webhooks set disabled_at = ${now}, disabled_reason = 'the receiver answered 410 Gone' where id = any(${gone}::text[]) and disabled_at is null`
  }
}

/** Sends the deliveries among `ids` that are still due (another sender may have taken some); returns how many were attempted. */
export async function deliverIds(deps: DeliveryDeps, ids: string[], concurrency = 16): Promise<number> {
  return deps.db.begin(async (tx) => {
    // A commit lost in a crash loses the attempt records with it: those deliveries are sent again,
    // which at-least-once allows (receivers deduplicate on the event id).
    await tx`set local synchronous_commit = off`
    const due = (await tx`
      with d as materialized (
        select * from webhook_deliveries
        where id = any(unpack_column(${pack(ids)})) and next_attempt_at <= ${deps.clock.now()}
        for update skip locked
      )
      select ${tx.unsafe(DUE_COLUMNS)}
      from d join webhooks w on w.id = d.endpoint_id join events e on e.id = d.event_id
      order by d.next_attempt_at`) as DueRow[]
    if (due.length === 0) return 0
    const memo = newMemo()
    const outcomes = await mapLimit(due, concurrency, (d) => sendOne(deps, d, d.max_attempts, memo))
    await record(tx, outcomes, deps.clock.now())
    return due.length
  })
}

/**
 * Replays one delivery by hand, now, whatever its state: one more attempt, recorded like the others.
 * A delivery still queued is taken from the queue for it (and leaves the queue if this attempt ends
 * it); a finished one, delivered too (the receiver asked for it), is rebuilt from its last attempt.
 */
export async function retryDelivery(deps: DeliveryDeps, deliveryId: string): Promise<AttemptRecord> {
  return deps.db.begin(async (tx) => {
    const [queued] = (await tx`
      select ${tx.unsafe(DUE_COLUMNS)}
      from webhook_deliveries d join webhooks w on w.id = d.endpoint_id join events e on e.id = d.event_id
      where d.id = ${deliveryId} for update of d`) as DueRow[]
    const [d] = queued
      ? [queued]
      : ((await tx`
          select ${tx.unsafe(DUE_COLUMNS)}
          from (select delivery_id as id, tenant_id, application_id, endpoint_id, event_id, event_type, attempt as attempts, ${MAX_ATTEMPTS}::int as max_attempts
                from webhook_attempts where delivery_id = ${deliveryId} order by attempt desc limit 1) d
          join webhooks w on w.id = d.endpoint_id join events e on e.id = d.event_id`) as DueRow[])
    if (!d) throw new Error(`delivery ${deliveryId} vanished`)
    const o = await sendOne(deps, d, d.attempts + 1, newMemo())
    await record(tx, [o], deps.clock.now())
    return o.attempt
  })
}

const dueIds = (deps: DeliveryDeps) => async (limit: number) =>
  ((await deps.db`
    select id from webhook_deliveries where next_attempt_at <= ${deps.clock.now()}
    order by next_attempt_at limit ${limit}`) as { id: string }[]).map((r) => r.id)

/** Sends everything due: rounds of up to 20,000, eight lanes of 400, 16 requests in flight per lane. */
export const deliverAll = (deps: DeliveryDeps, budgetMs?: number) => drainInRounds(dueIds(deps), (ids) => deliverIds(deps, ids), { lanes: 8, batch: 400, budgetMs })
