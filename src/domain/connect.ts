// The Connect verbs shared by the operations and the jobs: inspect a domain before connecting it,
// open (or resume) a connection, revive a failed one, record verifications, and disconnect one that
// was set up by hand. Each write and its outbox event go through the caller's transaction.
import { pack, packJson } from '../db/columns.ts'
import type { Sql } from '../db/sql.ts'
import { ApiError } from '../errors.ts'
import { newId, randomToken } from '../ids.ts'
import type { ConnectionRow } from '../db/connections.ts'
import type { Dns } from '../adapters/dns.ts'
import type { DnsHealth } from './dns-health.ts'
import { valuesOf } from '../adapters/dns.ts'
import { connectionEnvelope, emitForConnection } from './events.ts'
import type { ParsedDomain } from './hostnames.ts'
import { afterVerification } from './lifecycle.ts'
import { detectProvider, type Provider } from './providers.ts'
import { absoluteHost } from './hostnames.ts'
import { apexStrategy, planRecords, type ConnectTarget, type DnsRecord } from './records.ts'
import { lastResult, summary, type Verification } from './verify.ts'

export interface Inspection {
  provider: Provider | null
  nameservers: string[]
}

/**
 * Refuses what cannot be connected: hosting-platform subdomains, names that do not exist (NXDOMAIN)
 * or are not delegated. A resolver failure is a 503 to retry, never a verdict about the domain.
 */
export async function inspectDomain(dns: Dns, parsed: ParsedDomain, health?: DnsHealth): Promise<Inspection> {
  if (parsed.platform) {
    throw new ApiError('platform_subdomain', `${parsed.domain} is a subdomain of a hosting platform (${parsed.apex}); connect a domain you own`)
  }
  const ns = await dns.lookup(parsed.apex, 'NS')
  if (ns.status === 'error') {
    if (health) throw health.unavailable(ns.error)
    throw new ApiError('service_unavailable', 'DNS lookups failed; try again shortly', { detection_error: 'resolver' }, { headers: { 'retry-after': '5' } })
  }
  if (ns.status === 'nxdomain') throw new ApiError('InvalidNameservers', `${parsed.apex} is not registered`, { reason: 'not_registered', registered: false })
  const nameservers = valuesOf(ns)
  if (nameservers.length === 0) throw new ApiError('InvalidNameservers', `${parsed.apex} has no nameserver delegation`, { reason: 'not_delegated' })
  return { provider: detectProvider(nameservers), nameservers }
}

export async function findOpen(sql: Sql, applicationId: string, domain: string): Promise<ConnectionRow | undefined> {
  const [c] = await sql`select * from connections where application_id = ${applicationId} and domain = ${domain} and disconnected_at is null`
  return c as ConnectionRow | undefined
}

/** A failed connection re-enters verification: `propagating` again with a fresh 24 hours. */
export async function reviveConnection(sql: Sql, c: ConnectionRow, now: Date): Promise<ConnectionRow> {
  const [r] = await sql`
    update connections set status = 'propagating', retried_at = ${now}, propagating_since = ${now}, next_check_at = ${now},
      error_code = null, error_message = null, failed_at = null, updated_at = ${now}
    where id = ${c.id} and status = 'failed' returning *`
  return (r as ConnectionRow | undefined) ?? c
}

/** Someone says the records are in place: the 24-hour propagation clock starts. */
export async function markPropagating(sql: Sql, c: ConnectionRow, now: Date): Promise<ConnectionRow> {
  const [r] = await sql`
    update connections set status = 'propagating', propagating_since = ${now}, next_check_at = ${now}, updated_at = ${now}
    where id = ${c.id} and status = 'pending' returning *`
  return (r as ConnectionRow | undefined) ?? c
}

export interface OpenOptions {
  endUserRef: string | null
  wwwRedirect: boolean
  records: DnsRecord[] | null
}

/**
 * Creates the connection, or answers the open one for the same application and domain (a failed one
 * is revived: retrying a domain resumes it rather than creating a duplicate).
 */
export async function openConnection(
  sql: Sql,
  now: Date,
  app: { id: string; tenant_id: string },
  target: ConnectTarget,
  parsed: ParsedDomain,
  inspection: Inspection,
  opts: OpenOptions,
): Promise<{ row: ConnectionRow; outcome: 'created' | 'existing' | 'revived' }> {
  const existing = await findOpen(sql, app.id, parsed.domain)
  if (existing) {
    if (existing.status !== 'failed') return { row: existing, outcome: 'existing' }
    return { row: await reviveConnection(sql, existing, now), outcome: 'revived' }
  }
  const apex = inspection.provider?.capabilities.apex ?? null
  if (!opts.records && apexStrategy(parsed, target, apex) === 'unsupported') {
    throw new ApiError('apex_not_supported', `${inspection.provider?.name ?? 'This DNS provider'} cannot point the apex at a hostname, and the application has no apex_ipv4 addresses`)
  }
  const token = randomToken(18)
  const records = opts.records ?? planRecords(parsed, target, apex, opts.wwwRedirect, token)
  const rows = await sql`
    insert into connections (id, tenant_id, application_id, domain, apex_domain, end_user_ref, www_redirect, status, provider_id,
      desired_records, records_source, planned_target, verification_token, next_check_at, created_at, updated_at)
    values (${newId('con', now.getTime())}, ${app.tenant_id}, ${app.id}, ${parsed.domain}, ${parsed.apex}, ${opts.endUserRef}, ${opts.wwwRedirect},
      'pending', ${inspection.provider?.id ?? null}, ${records}::jsonb, ${opts.records ? 'custom' : 'planned'},
      ${target}::jsonb, ${token}, ${now}, ${now}, ${now})
    on conflict (application_id, domain) where disconnected_at is null do nothing
    returning *`
  const row = rows[0] as ConnectionRow | undefined
  if (!row) {
    // A concurrent request created it first: answer that one.
    const raced = await findOpen(sql, app.id, parsed.domain)
    if (!raced) throw new Error('connection insert conflicted but no open connection exists')
    return { row: raced, outcome: 'existing' }
  }
  await emitForConnection(sql, row, 'connection.created', now, { records: records.map(({ type, host, value }) => ({ type, host, value })) })
  return { row, outcome: 'created' }
}

/** What verification and its events read of a connection; the sweep selects no more than this. */
export const VERIFY_COLUMNS =
  'id, tenant_id, application_id, domain, apex_domain, end_user_ref, www_redirect, status, rail, provider_id, desired_records, ' +
  'created_at, propagating_since, error_code, error_message, xmin::text as version, ctid::text as tid'

export interface Verified {
  /**
   * With `version` and `tid` (the row version's xmin and place as read), the result lands only if
   * nothing wrote the row since, and the write finds the row by its place instead of its key.
   */
  row: ConnectionRow & { version?: string; tid?: string }
  verification: Verification
}

// A row read with its version is found at its place (a TID scan, no index descent); the id check
// keeps a place reused by another row from matching.
const PINNED_ROW = 'c.ctid = v.tid and c.id = v.id and c.xmin::text = v.version'
const KEYED_ROW = 'c.id = v.id and (v.version is null or c.xmin::text = v.version)'

/**
 * Records a batch of verifications in one statement: the lifecycle decides each row's next state, the
 * update only lands on rows still in the state they were verified in, or for rows read with their
 * version, on rows nobody wrote since (a concurrent disconnect, revival or new record set wins), and
 * transitions write their events in the same transaction. Returns how many results landed.
 */
export async function recordVerifications(sql: Sql, items: Verified[], now: Date): Promise<number> {
  if (items.length === 0) return 0
  const plans = items.map(({ row, verification }) => {
    const t = afterVerification(row, verification, now)
    const last_result = lastResult(verification)
    const env = t.event ? connectionEnvelope({ ...row, status: t.status, error_code: t.error_code, error_message: t.error_message }, t.event, now, summary(verification)) : null
    return { row, t, last_result, env }
  })
  const col = <T>(f: (p: (typeof plans)[number]) => T) => plans.map(f)
  const pinned = items.every(({ row }) => row.version && row.tid)
  // One statement: the update lands only on rows still in the state they were verified in (a
  // concurrent disconnect or revival wins), and only those rows get their event.
  const updated = (await sql`
    with v as (
      select * from unnest(
        unpack_column(${pack(col((p) => p.row.id))}),
        unpack_column(${pack(col((p) => p.row.status))}),
        unpack_column(${pack(col((p) => p.row.version ?? null))}),
        unpack_column(${pack(col((p) => p.row.tid ?? null))})::tid[],
        unpack_column(${pack(col((p) => p.t.status))}),
        unpack_column(${pack(col((p) => p.t.next_check_at?.toISOString()))})::timestamptz[],
        unpack_column(${pack(col((p) => p.t.error_code))}),
        unpack_column(${pack(col((p) => p.t.error_message))}),
        unpack_column(${packJson(col((p) => p.last_result))})::json[],
        unpack_column(${pack(col((p) => p.t.event))}),
        unpack_column(${pack(col((p) => p.env?.id))}),
        unpack_column(${packJson(col((p) => p.env))})::json[]
      ) as v(id, expect, version, tid, status, next_check_at, error_code, error_message, last_result, event, event_id, payload)
    ), u as (
      update connections c set
        status = v.status, next_check_at = v.next_check_at, error_code = v.error_code, error_message = v.error_message,
        last_result = v.last_result, last_checked_at = ${now}, check_count = c.check_count + 1,
        live_at = case when v.event = 'connection.live' then ${now}::timestamptz else c.live_at end,
        failed_at = case when v.event = 'connection.failed' then ${now}::timestamptz else c.failed_at end,
        updated_at = ${now}
      from v
      where ${sql.unsafe(pinned ? PINNED_ROW : KEYED_ROW)} and c.status = v.expect and c.disconnected_at is null
      returning c.id, c.next_check_at, c.tenant_id, c.application_id, v.event, v.event_id, v.payload
    ), q as (
      -- Checks are over for these: their entries leave the verification queue.
      delete from verify_queue q using u where q.connection_id = u.id and u.next_check_at is null
    ), m as (
      -- One that was live before (its records changed since) starts over against its new baseline. A
      -- connection going live is enrolled by the next monitor sweep, from this event (enrolAnnounced).
      update monitor_state s set
        result = null, drift = '[]', drift_since = null, attention = null, action = null, repair_detail = null, error = null,
        last_checked_at = null, enrolled_at = ${now}, updated_at = ${now},
        rank_log = monitor_rank_log(s.rank_log, s.rank, 3::smallint),
        rank = 3
      from u where s.connection_id = u.id and u.event = 'connection.live'
    ), e as (
      insert into events (id, tenant_id, application_id, connection_id, type, payload, created_at)
      select u.event_id, u.tenant_id, u.application_id, u.id, u.event, u.payload, ${now} from u where u.event is not null
    )
    -- A connection going live wakes certificate orders (one notification, on commit). The sweep
    -- (portico.sweep) notifies once when it is done instead: a notifying commit takes a global lock,
    -- and a notification per batch cost its lanes about a fifth of their rate.
    select count(*)::int as landed,
      (select count(pg_notify('portico_work', 'certificate-issue')) from (
        select from u where u.event = 'connection.live' and current_setting('portico.sweep', true) is distinct from 'on' limit 1) l) as woke
    from u`) as { landed: number }[]
  return updated[0]!.landed
}

export interface DisconnectOutcome {
  connection_id: string
  domain: string
  disconnected: true
  records: {
    choice: 'remove'
    outcome: 'removed' | 'manual'
    via: string
    removed: RecordNote[]
    restored: RecordNote[]
    left_in_place: RecordNote[]
    failed: RecordNote[]
    manual_steps: string[]
  }
  serving: 'stopped'
  certificate: 'removed'
  monitoring: 'stopped'
}

interface RecordNote {
  type: string
  name: string
  value: string
  note: string
}

/**
 * Disconnects a connection whose records were put in place by hand: Portico cannot remove them, so
 * the outcome lists them as left in place with the steps a person takes. Serving, certificate and
 * monitoring stop with the connection.
 */
export async function disconnectManual(sql: Sql, c: ConnectionRow, now: Date): Promise<DisconnectOutcome> {
  const left = c.desired_records.map((r) => ({
    type: r.type,
    name: absoluteHost(r.host, c.apex_domain),
    value: r.value,
    note: 'added by hand; remove it at your DNS provider',
  }))
  const outcome: DisconnectOutcome = {
    connection_id: c.id,
    domain: c.domain,
    disconnected: true,
    records: {
      choice: 'remove',
      outcome: left.length ? 'manual' : 'removed',
      via: 'manual',
      removed: [],
      restored: [],
      left_in_place: left,
      failed: [],
      manual_steps: left.map((r) => `At your DNS provider, delete the ${r.type} record ${r.name} → ${r.value}`),
    },
    serving: 'stopped',
    certificate: 'removed',
    monitoring: 'stopped',
  }
  await markDisconnected(sql, c, outcome, now)
  return outcome
}

/**
 * Closes a connection with its disconnect outcome: no more checks, no more watching, and
 * `connection.disconnected` in the outbox. A connection closed already is left as it is.
 */
export async function markDisconnected(sql: Sql, c: ConnectionRow, outcome: { records: unknown }, now: Date): Promise<void> {
  const [row] = await sql`
    update connections set disconnected_at = ${now}, disconnect_outcome = ${outcome}::jsonb, next_check_at = null, updated_at = ${now}
    where id = ${c.id} and disconnected_at is null returning *`
  if (!row) return
  await sql`delete from monitor_state where connection_id = ${c.id}`
  await emitForConnection(sql, row as ConnectionRow, 'connection.disconnected', now, { records: outcome.records })
}

