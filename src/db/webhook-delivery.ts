// Queries of webhook delivery (src/domain/webhook-delivery.ts decides what is sent, when, and what an
// answer means): the fair claim of due sends, the attempt log, the endpoints' runs of failures, and
// when the next send is due.
import { pack } from './columns.ts'
import type { Sql } from './sql.ts'

export interface ClaimedSend {
  id: string
  tenant_id: string
  application_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  /** Attempts completed (an interrupted one is not counted). */
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
  /** The attempt row written for this send, and its number in the log. */
  attempt_id: string
  attempt_no: number
  /** A replay by hand: the delivery may already be finished and is not re-queued by its outcome. */
  manual?: boolean
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

/** A claimed send before its attempt row is written. */
type Unclaimed = Omit<ClaimedSend, 'attempt_id' | 'attempt_no'>

const DUE_COLUMNS = `d.id, d.tenant_id, d.application_id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.max_attempts,
  w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_until, (w.deleted_at is not null or w.disabled_at is not null) as endpoint_gone,
  e.payload::text as body, e.payload->>'domain' as domain`

/**
 * Claims up to `limit` due deliveries, fairly: round-robin across endpoints, none past its endpoint's
 * limit of sends in flight (`perEndpoint`, `perFailing` for an endpoint whose last send failed; counted
 * across processes by their leases), first attempts held while the endpoint is paused. Each is leased
 * until `lease`.
 */
export async function claimDue(tx: Sql, q: { now: Date; lease: Date; limit: number; perEndpoint: number; perFailing: number }): Promise<Unclaimed[]> {
  const { now, lease, limit, perEndpoint, perFailing } = q
  return (await tx`
      with busy as (
        select endpoint_id, count(*)::int as n from webhook_deliveries where sending_until > ${now} group by endpoint_id
      ), eps as (
        select w.id, w.paused_until, (w.deleted_at is not null or w.disabled_at is not null) as gone,
               case when w.failures > 0 then ${perFailing}::int else ${perEndpoint}::int end as cap
        from webhooks w
        where exists (select 1 from webhook_deliveries d where d.endpoint_id = w.id and d.next_attempt_at <= ${now})
      ), cand as (
        select x.id, x.next_attempt_at, x.rn from eps e
        left join busy b on b.endpoint_id = e.id
        cross join lateral (
          select d.id, d.next_attempt_at, row_number() over (order by d.next_attempt_at, d.id) as rn
          from webhook_deliveries d
          where d.endpoint_id = e.id and d.next_attempt_at <= ${now}
            and (d.attempts > 0 or e.gone or e.paused_until is null or e.paused_until <= ${now})
          order by d.next_attempt_at, d.id
          limit greatest(0, e.cap - coalesce(b.n, 0))
        ) x
      ), pick as (
        select id from cand order by rn, next_attempt_at limit ${limit}
      ), locked as (
        select id from webhook_deliveries where id in (select id from pick) and next_attempt_at <= ${now} for update skip locked
      ), d as (
        update webhook_deliveries x set sending_until = ${lease}, next_attempt_at = ${lease}
        from locked l where x.id = l.id returning x.*
      )
      select ${tx.unsafe(DUE_COLUMNS)}
      from d join webhooks w on w.id = d.endpoint_id join events e on e.id = d.event_id
      order by d.id`) as Unclaimed[]
}

/** An earlier send of these deliveries that never got its answer recorded is marked `interrupted`. */
export async function markInterrupted(tx: Sql, ids: string[], inFlight: string, interrupted: string): Promise<void> {
  await tx`update webhook_attempts set error = ${interrupted} where delivery_id = any(unpack_column(${pack(ids)})) and error = ${inFlight} and status_code is null`
}

/** The number of each delivery's last attempt (none: not in the map). */
export async function lastAttemptNumbers(tx: Sql, ids: string[]): Promise<Map<string, number>> {
  const numbers = (await tx`
    select delivery_id, max(attempt)::int as n from webhook_attempts where delivery_id = any(unpack_column(${pack(ids)})) group by delivery_id`) as { delivery_id: string; n: number }[]
  return new Map(numbers.map((r) => [r.delivery_id, r.n]))
}

/** Attempt rows of sends going out (no answer yet). */
export async function insertOpenAttempts(
  tx: Sql,
  attempts: Pick<AttemptRecord, 'id' | 'delivery_id' | 'tenant_id' | 'application_id' | 'endpoint_id' | 'url' | 'event_id' | 'event_type' | 'domain' | 'attempt' | 'error' | 'created_at'>[],
): Promise<void> {
  await tx`
    insert into webhook_attempts (id, delivery_id, tenant_id, application_id, endpoint_id, url, event_id, event_type, domain,
      attempt, status_code, delivered, error, duration_ms, created_at)
    select id, delivery_id, tenant_id, application_id, endpoint_id, url, event_id, event_type, domain, attempt, null, false, error, 0, created_at
    from json_to_recordset(${attempts}::json) as a(id text, delivery_id text, tenant_id text, application_id text,
      endpoint_id text, url text, event_id text, event_type text, domain text, attempt int, error text, created_at timestamptz)`
}

/**
 * Completes sends in one statement: their attempt rows get the answer, deliveries to retry wait for
 * their next attempt, and those in `done` leave the queue.
 */
export async function completeSends(
  tx: Sql,
  attempts: Pick<AttemptRecord, 'id' | 'status_code' | 'delivered' | 'error' | 'duration_ms'>[],
  retries: { id: string; next_attempt_at: string | null; at: string }[],
  done: string[],
): Promise<void> {
  await tx`
    with a as (
      update webhook_attempts t set status_code = a.status_code, delivered = a.delivered, error = a.error, duration_ms = a.duration_ms
      from json_to_recordset(${attempts}::json) as a(id text, status_code int, delivered boolean, error text, duration_ms int)
      where t.id = a.id
    ), r as (
      update webhook_deliveries d set attempts = d.attempts + 1, next_attempt_at = u.next_attempt_at, sending_until = null, updated_at = u.at
      from json_to_recordset(${retries}::json) as u(id text, next_attempt_at timestamptz, at timestamptz)
      where d.id = u.id
    )
    delete from webhook_deliveries where id = any(unpack_column(${pack(done)}))`
}

/** Endpoints whose receiver answered 410 Gone are disabled, stamped `at`. */
export async function disableGoneEndpoints(tx: Sql, ids: string[], at: string): Promise<void> {
  await tx`update webhooks set disabled_at = ${at}::timestamptz, disabled_reason = 'the receiver answered 410 Gone' where id = any(${ids}::text[]) and disabled_at is null`
}

/** A success ends the endpoints' runs of failures. */
export async function endFailureRuns(tx: Sql, ids: string[]): Promise<void> {
  await tx`update webhooks set failures = 0, paused_until = null where id = any(${ids}::text[]) and failures > 0`
}

/** One more failure in a row: the endpoint's pause for new events grows (5 s doubling, at most 5 minutes) from `at`. */
export async function lengthenFailureRuns(tx: Sql, ids: string[], at: Date): Promise<void> {
  await tx`
      update webhooks set failures = failures + 1,
        paused_until = ${at}::timestamptz + make_interval(secs => least(5 * power(2, failures), 300))
      where id = any(${ids}::text[])`
}

/** When the earliest queued delivery can be sent (its retry, its lease lapsing, its endpoint's pause or sends in flight ending). */
export async function deliveryDueAt(db: Sql, now: Date, perEndpoint: number, perFailing: number): Promise<Date | null> {
  const [row] = (await db`
    with busy as (
      select endpoint_id, count(*)::int as n, min(sending_until) as free_at from webhook_deliveries
      where sending_until > ${now} group by endpoint_id
    )
    select min(greatest(
      d.next_attempt_at,
      case when d.attempts = 0 and w.deleted_at is null and w.disabled_at is null then w.paused_until end,
      case when b.n >= (case when w.failures > 0 then ${perFailing}::int else ${perEndpoint}::int end) then b.free_at end)) as at
    from webhook_deliveries d join webhooks w on w.id = d.endpoint_id left join busy b on b.endpoint_id = d.endpoint_id`) as { at: Date | null }[]
  return row?.at ?? null
}

/** Leases a queued delivery for a send by hand until `until`; false when it is not queued (finished). */
export async function leaseForRetry(tx: Sql, deliveryId: string, until: Date): Promise<boolean> {
  const [queued] = (await tx`
      update webhook_deliveries x set sending_until = ${until}, next_attempt_at = ${until}
      where x.id = ${deliveryId} returning x.id`) as { id: string }[]
  return !!queued
}

/** A queued delivery, as a send. */
export async function queuedSend(tx: Sql, deliveryId: string): Promise<Unclaimed | undefined> {
  const [row] = (await tx`
          select ${tx.unsafe(DUE_COLUMNS)}
          from webhook_deliveries d join webhooks w on w.id = d.endpoint_id join events e on e.id = d.event_id
          where d.id = ${deliveryId}`) as Unclaimed[]
  return row
}

/** A finished delivery, rebuilt as a send from its last attempt. */
export async function finishedSend(tx: Sql, deliveryId: string, maxAttempts: number): Promise<Unclaimed | undefined> {
  const [row] = (await tx`
          select ${tx.unsafe(DUE_COLUMNS)}
          from (select delivery_id as id, tenant_id, application_id, endpoint_id, event_id, event_type, attempt as attempts, ${maxAttempts}::int as max_attempts
                from webhook_attempts where delivery_id = ${deliveryId} order by attempt desc limit 1) d
          join webhooks w on w.id = d.endpoint_id join events e on e.id = d.event_id`) as Unclaimed[]
  return row
}
