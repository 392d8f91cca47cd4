// Queries of webhook delivery (src/domain/webhook-delivery.ts decides what is sent, when, and what an
// answer means): the fair claim of due sends, the attempt log, the endpoints' runs of failures, and
// when the next send is due.
import { notify, WORK_CHANNEL } from './channels.ts'
import { pack } from './columns.ts'
import type { Sql } from './sql.ts'

export interface ClaimedSend {
  id: string
  tenant_id: string
  application_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  /** The connection the event is about: its deliveries to the endpoint go one at a time, in sequence (migration 0120). */
  connection_id: string | null
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

const DUE_COLUMNS = `d.id, d.tenant_id, d.application_id, d.endpoint_id, d.event_id, d.event_type, d.connection_id, d.attempts, d.max_attempts,
  w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_until, (w.deleted_at is not null or w.disabled_at is not null) as endpoint_gone,
  e.payload::text as body, e.payload->>'domain' as domain`

/** The answers of sends and what they mean for their deliveries and endpoints, completed by `claimNext`. */
export interface Completion {
  attempts: Pick<AttemptRecord, 'id' | 'status_code' | 'delivered' | 'error' | 'duration_ms'>[]
  /** Deliveries waiting for their next attempt. */
  retries: { id: string; next_attempt_at: string | null; at: string }[]
  /** Deliveries that leave the queue (delivered, or out of attempts). */
  done: string[]
  /** Endpoints whose receiver answered 410 Gone: disabled, stamped `goneAt`. */
  gone: string[]
  goneAt: string | null
  /** Endpoints whose run of failures a success ends. */
  ok: string[]
  /** Endpoints that failed once more: their pause for new events grows from `failedAt`. */
  failed: string[]
  failedAt: string | null
}

export interface NextClaim {
  now: Date
  lease: Date
  limit: number
  perEndpoint: number
  perFailing: number
  /** Endpoints that may fill idle slots, up to `burst` in flight. */
  bursting: string[]
  burst: number
  /** The claiming worker's sends out, by endpoint: each endpoint's limit less these is what it may take. */
  open: Map<string, number>
  /** The attempt rows' ids begin with this (`idFloor('wha', now)`: the prefix and the time part). */
  idPrefix: string
  /** The attempt row's text while its send is out, and after its process stopped during it. */
  inFlight: string
  interrupted: string
}

/** The planner settings of a drain's session (see `holdForDrain`). */
const DRAIN_SETTINGS: [string, string][] = [
  ['enable_seqscan', 'off'], ['enable_bitmapscan', 'off'], ['enable_hashjoin', 'off'], ['enable_mergejoin', 'off'],
  ['plan_cache_mode', 'force_generic_plan'], ['jit', 'off'],
  // A delivery this drain completes releases the next one of its connection (migration 0120); the drain
  // claims it on its next round trip, so the release need not notify.
  ['portico.draining', 'on'],
]

/**
 * A connection held for one drain of the delivery sweep: each of its round trips is one statement
 * (`claimNext`), committed on its own, so a round trip is one exchange with the server. Its session
 * stays on index paths with one plan for the drain: the delivery queue's statistics lag its bursts
 * (10,000 deliveries fanned out since the last analyze), and planned from them a claim was seen
 * scanning the whole attempt log and bitmap-ANDing the due index, where every part of it is a few rows
 * by key; planning it each time cost about a millisecond a round trip. `release` resets those
 * settings and returns the connection to the pool.
 */
export async function holdForDrain(db: Sql): Promise<{ conn: Sql; release: () => Promise<void> }> {
  const conn = (await db.reserve()) as Sql & { release(): void }
  try {
    await conn.unsafe(DRAIN_SETTINGS.map(([n, v]) => `set ${n} = ${v}`).join('; '))
  } catch (err) {
    conn.release()
    throw err
  }
  return {
    conn,
    release: async () => {
      // Back to the session's defaults; a connection that cannot take this is broken, and the pool drops it.
      await conn.unsafe(DRAIN_SETTINGS.map(([n]) => `reset ${n}`).join('; ')).catch(() => {})
      conn.release()
    },
  }
}

/** In this transaction, deliveries released by completions notify the workers (a drain's own claims would not follow). */
export async function stopDraining(tx: Sql): Promise<void> {
  await tx`select set_config('portico.draining', 'off', true)`
}

/**
 * One statement: completes the sends in `done` (`null`: none) and claims up to `q.limit` due
 * deliveries, fairly: round-robin across endpoints, none past its endpoint's limit of this worker's
 * sends in flight (`q.open`), first attempts held while the endpoint is paused; deliveries leased by
 * any process are passed over until their lease lapses. Each claimed delivery is leased until
 * `q.lease`, an earlier send of it that never got its answer recorded is marked interrupted, and its
 * attempt row is written (`q.inFlight`), numbered after its earlier attempts. Deliveries to retry notify the sweep's due timer.
 */
export async function claimNext(tx: Sql, done: Completion | null, q: NextClaim): Promise<ClaimedSend[]> {
  const { now } = q
  const completing = done ? completion(tx, done) : tx.unsafe('')
  return (await tx`
    with ${completing} eps as (
      select w.id, w.paused_until, (w.deleted_at is not null or w.disabled_at is not null) as gone,
             case when w.failures > 0 then ${q.perFailing}::int
                  when w.id = any(unpack_column(${pack(q.bursting)})) then ${q.burst}::int
                  else ${q.perEndpoint}::int end as cap,
             coalesce((select o.n from unnest(unpack_column(${pack([...q.open.keys()])}), unpack_column(${pack([...q.open.values()])})::int[]) as o(id, n)
                       where o.id = w.id), 0) as busy
      -- The endpoints that have deliveries queued, one index descent each (a skip scan), so a claim
      -- never reads the endpoints with nothing queued, however many there are. (One with none due
      -- finds nothing in cand: one index descent, as testing it for a due delivery cost.)
      from webhooks w
      where w.id = any(array(
        with recursive queued(id) as (
          (select endpoint_id from webhook_deliveries order by endpoint_id limit 1)
          union all
          select (select s.endpoint_id from webhook_deliveries s where s.endpoint_id > q.id order by s.endpoint_id limit 1)
          from queued q where q.id is not null
        )
        select id from queued where id is not null))
    ), cand as (
      -- Each endpoint's due deliveries in its index's order, so the scan stops at its free slots. Rows
      -- another claim holds are passed over as the scan meets them (so claims running side by side
      -- take the next rows, not nothing), and one leased meanwhile is checked again once locked.
      select x.id, x.next_attempt_at, x.lapsed, row_number() over (partition by e.id order by x.next_attempt_at) as rn
      from eps e cross join lateral (
        select d.id, d.next_attempt_at, d.sending_until is not null as lapsed from webhook_deliveries d
        where d.endpoint_id = e.id and d.next_attempt_at <= ${now} and (d.sending_until is null or d.sending_until <= ${now})
          and (d.attempts > 0 or e.gone or e.paused_until is null or e.paused_until <= ${now})
        order by d.next_attempt_at
        limit greatest(0, e.cap - e.busy)
        for update of d skip locked
      ) x
    ), pick as (
      select id, lapsed from cand order by rn, next_attempt_at limit ${q.limit}
    ), d as (
      -- Every row picked is locked above, so each is leased here.
      update webhook_deliveries x set sending_until = ${q.lease}
      where x.id = any(array(select id from pick)) returning x.*
    ), interrupted as (
      update webhook_attempts set error = ${q.interrupted}
      where delivery_id = any(array(select id from pick where lapsed)) and error = ${q.inFlight} and status_code is null
    ), due as (
      -- The attempt's id: the prefix and time part given, then 64 bits drawn from the delivery and
      -- the attempt's number, which no other attempt shares.
      select ${tx.unsafe(DUE_COLUMNS)}, n.attempt_no, ${q.idPrefix}::text || substr(md5(d.id || ':' || n.attempt_no), 1, 16) as attempt_id
      -- Its endpoint and event, each looked up by key from the delivery (offset 0: not a join the
      -- planner may turn around, walking a table once for each delivery).
      from d cross join lateral (select * from webhooks w where w.id = d.endpoint_id offset 0) w
      cross join lateral (select e.payload from events e where e.id = d.event_id offset 0) e
      -- (offset 0: looked up once a delivery, where pulled up into both columns it was twice)
      cross join lateral (select coalesce((select max(a.attempt) from webhook_attempts a where a.delivery_id = d.id), 0) + 1 as attempt_no offset 0) n
    ), opened as (
      insert into webhook_attempts (id, delivery_id, tenant_id, application_id, endpoint_id, url, event_id, event_type, domain,
        attempt, status_code, delivered, error, duration_ms, created_at)
      select attempt_id, id, tenant_id, application_id, endpoint_id, url, event_id, event_type, domain, attempt_no, null, false, ${q.inFlight}, 0, ${now}
      from due
    )
    select * from due ${done ? tx`where (select count(*) from notified) >= 0` : tx.unsafe('')} order by id`) as ClaimedSend[]
}

/**
 * The CTEs of `claimNext` that complete sends (each followed by a comma). Each updates the rows named
 * by key (`= any`), taking their new values from a JSON object keyed by id (`byId`, parsed once): an
 * update joined to the list of rows could be planned the other way round, the table walked once for
 * each entry.
 */
function completion(tx: Sql, c: Completion) {
  const endpoints = [...new Set([...c.gone, ...c.ok, ...c.failed])]
  return tx`
    answers as materialized (
      select ${byId(c.attempts, (a) => [a.status_code, a.delivered, a.error, a.duration_ms])}::text::jsonb as v
    ), a as (
      update webhook_attempts t set status_code = (a.v -> t.id ->> 0)::int, delivered = (a.v -> t.id ->> 1)::boolean,
        error = a.v -> t.id ->> 2, duration_ms = (a.v -> t.id ->> 3)::int
      from answers a
      where t.id = any(unpack_column(${pack(c.attempts.map((a) => a.id))}))
    ), retried as materialized (
      select ${byId(c.retries, (r) => [r.next_attempt_at, r.at])}::text::jsonb as v
    ), r as (
      update webhook_deliveries d set attempts = d.attempts + 1, next_attempt_at = (u.v -> d.id ->> 0)::timestamptz, sending_until = null,
        updated_at = (u.v -> d.id ->> 1)::timestamptz
      from retried u
      where d.id = any(unpack_column(${pack(c.retries.map((r) => r.id))}))
    ), x as (
      delete from webhook_deliveries where id = any(unpack_column(${pack(c.done)}))
    ), e as (
      update webhooks w set
        disabled_at = case when w.id = any(e.gone) and w.disabled_at is null then ${c.goneAt}::timestamptz else w.disabled_at end,
        disabled_reason = case when w.id = any(e.gone) and w.disabled_at is null then 'the receiver answered 410 Gone' else w.disabled_reason end,
        failures = case when w.id = any(e.ok) then 0 when w.id = any(e.failed) then w.failures + 1 else w.failures end,
        paused_until = case when w.id = any(e.ok) then null
                            when w.id = any(e.failed) then ${c.failedAt}::timestamptz + make_interval(secs => least(5 * power(2, w.failures), 300))
                            else w.paused_until end
      from (select unpack_column(${pack(c.gone)}) as gone, unpack_column(${pack(c.ok)}) as ok, unpack_column(${pack(c.failed)}) as failed) e
      where w.id = any(unpack_column(${pack(endpoints)}))
        and ((w.id = any(e.gone) and w.disabled_at is null) or (w.id = any(e.ok) and w.failures > 0) or w.id = any(e.failed))
    ), notified as (
      select pg_notify(${WORK_CHANNEL}, 'schedule:webhook-deliver') where ${c.retries.length > 0}::boolean
    ),`
}

/**
 * JSON text of an object of `rows`' values by id. Written as text: an object built with a new set of
 * keys each round trip (Object.fromEntries) cost this process about three times as much.
 */
function byId<T extends { id: string }>(rows: T[], values: (r: T) => unknown[]): string {
  let out = ''
  for (const r of rows) out += `${out ? ',' : ''}${JSON.stringify(r.id)}:${JSON.stringify(values(r))}`
  return `{${out}}`
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
 * Completes sends in one statement, as a round trip of \`claimNext\` does without claiming (a replay
 * by hand, and a drain's last answers).
 */
export async function completeSends(tx: Sql, c: Completion): Promise<void> {
  // (The notification, a plain select, runs only when read.)
  await tx`with ${completion(tx, c)} notifications as (select count(*) from notified) select * from notifications`
}

/**
 * Releases held deliveries that nothing is ahead of any more: of each connection and endpoint whose
 * deliveries are all held, the earliest by sequence. A delivery leaving the queue releases the next one
 * (migration 0120), but an event written at that very moment is held behind the leaving one by a
 * transaction the release cannot see yet, and would stay held for good. Such a pair ends with two
 * commits, and the later of the two is followed by the end of a drain (the fan-out's notification
 * starts one; the delete is a drain's own), which calls this. Wakes the workers when it released
 * something; answers how many.
 *
 * A connection's queued deliveries are held but for its earliest (a new one is held while any is
 * queued, and a release frees the earliest), so "all held" is "the earliest is held": one descent of
 * webhook_deliveries_order a connection with held deliveries. Planned without sorts, so that no plan
 * made from statistics that say the queue is empty reads the endpoint's whole queue by its due index
 * for each held delivery instead (measured with 4,000 held: 2.5 s a call; now 6-8 ms).
 */
export async function releaseStranded(db: Sql): Promise<number> {
  const n = await db.begin(async (tx) => {
    await tx`set local enable_sort = off`
    const rows = await tx`
      with released as (
        update webhook_deliveries d set next_attempt_at = d.created_at
        where d.id = any(array(
            select f.id
            from (select distinct h.endpoint_id, h.connection_id from webhook_deliveries h where h.next_attempt_at = 'infinity') h
            cross join lateral (select n.id, n.next_attempt_at from webhook_deliveries n
                                where n.endpoint_id = h.endpoint_id and n.connection_id = h.connection_id
                                order by n.sequence limit 1) f
            where f.next_attempt_at = 'infinity'))
          -- (held, tested where no index answers it: not a walk of every held delivery by the due index)
          and not isfinite(d.next_attempt_at)
        returning d.id
      )
      select count(*)::int as n from released`
    return (rows as { n: number }[])[0]?.n ?? 0
  })
  if (n > 0) await notify(db, WORK_CHANNEL, 'webhook-deliver')
  return n
}

/** When the earliest queued delivery can be sent (its retry, its lease lapsing, its endpoint's pause ending). */
export async function deliveryDueAt(db: Sql, now: Date): Promise<Date | null> {
  const [row] = (await db`
    select min(greatest(
      d.next_attempt_at,
      case when d.sending_until > ${now} then d.sending_until end,
      case when d.attempts = 0 and w.deleted_at is null and w.disabled_at is null then w.paused_until end)) as at
    from webhook_deliveries d join webhooks w on w.id = d.endpoint_id
    -- A delivery held behind an earlier one of its connection is due when that one leaves the queue.
    where d.next_attempt_at < 'infinity'`) as { at: Date | null }[]
  return row?.at ?? null
}

/** Leases a queued delivery for a send by hand until `until`; false when it is not queued (finished). */
export async function leaseForRetry(tx: Sql, deliveryId: string, until: Date): Promise<boolean> {
  const [queued] = (await tx`
      update webhook_deliveries x set sending_until = ${until}
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
          from (select delivery_id as id, tenant_id, application_id, endpoint_id, event_id, event_type, null::text as connection_id, attempt as attempts, ${maxAttempts}::int as max_attempts
                from webhook_attempts where delivery_id = ${deliveryId} order by attempt desc limit 1) d
          join webhooks w on w.id = d.endpoint_id join events e on e.id = d.event_id`) as Unclaimed[]
  return row
}
