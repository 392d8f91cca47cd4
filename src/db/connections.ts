// Queries of connections: the row, its lookups, and the writes of its lifecycle (creation, revival,
// disconnect; src/domain/connect.ts decides them). Verification's statements are in verification.ts,
// a write through a rail's in rail-writes.ts.
import { countsOfTenant } from './status-counts.ts'
import type { ApplicationRow } from './applications.ts'
import type { Sql } from './sql.ts'

/** Where a connection is in its lifecycle (src/domain/transitions.ts decides every change). */
export type ConnectionStatus = 'pending' | 'propagating' | 'live' | 'failed'

/** A record as stored in `desired_records` (src/domain/records.ts validates and plans them; its DnsRecord is this shape). */
export interface StoredRecord {
  type: 'A' | 'AAAA' | 'CNAME' | 'ALIAS' | 'ANAME' | 'CAA' | 'MX' | 'NS' | 'TXT' | 'SPFM' | 'REDIR301'
  host: string
  value: string
  ttl?: number
  priority?: number
  purpose?: string
}

export interface ConnectionRow {
  id: string
  tenant_id: string
  application_id: string
  domain: string
  apex_domain: string
  end_user_ref: string | null
  www_redirect: boolean
  status: ConnectionStatus
  rail: string
  managed: boolean
  provider_id: string | null
  desired_records: StoredRecord[]
  records_source: 'planned' | 'custom'
  planned_target: { cname_target: string; apex_ipv4: string[] }
  records_written_at: Date | null
  records_outdated_at: Date | null
  verification_token: string
  error_code: string | null
  error_message: string | null
  last_result: { records_propagated: unknown[]; records_non_propagated: unknown[] } | null
  check_count: number
  last_checked_at: Date | null
  next_check_at: Date | null
  propagating_since: Date | null
  live_at: Date | null
  failed_at: Date | null
  retried_at: Date | null
  created_at: Date
  updated_at: Date
  disconnected_at: Date | null
  disconnect_outcome: unknown
  /** The integrator's own keys and values (src/domain/resource-schemas.ts MetadataSchema), echoed in events. */
  metadata: Record<string, string>
  /** Its certificate's status (src/domain/certificates.ts keeps it); null when none is tracked. */
  certificate_status?: 'pending' | 'issued' | 'failed' | null
  /** When the edge accepted the certificate; null until then. */
  certificate_served_at?: Date | null
  /** `http` (the usual path: HTTP-01 once live) or `before_cutover` (pre-validation, src/domain/prevalidation.ts). */
  validation?: 'http' | 'before_cutover'
  /** Pre-validation's stage; null on the usual path. */
  validation_stage?: 'awaiting_records' | 'issuing' | 'awaiting_routing' | 'complete' | 'failed' | null
  /** What the stage waits on, in words (null when nothing holds it up). */
  validation_detail?: string | null
  /** The routing records, held back until the certificate is on every edge node. */
  held_records?: StoredRecord[] | null
  /** The connection's label in the DCV zone (its `_acme-challenge` CNAME points at `<label>.<DCV_ZONE>`). */
  dcv_label?: string | null
}

/**
 * A connection as the rails read it: with what they applied. `applied` is a JSON column whose shape
 * the rules own (src/domain/apply.ts `AppliedState`), so it is a parameter here.
 */
export type RailRow<Applied = unknown> = ConnectionRow & {
  applied: Applied | null
  applied_at: Date | null
  provider_account_id: string | null
  reauthorize_needed_at: Date | null
}


/** A tenant's connection by id (disconnected ones only with `closedToo`), locked with `lock`. */
export async function connectionInTenant(sql: Sql, id: string, tenantId: string, o: { closedToo: boolean; lock: boolean }): Promise<ConnectionRow | undefined> {
  const closedToo = o.closedToo
  const rows = o.lock
    ? await sql`select * from connections where id = ${id} and tenant_id = ${tenantId} and (${closedToo}::boolean or disconnected_at is null) for update`
    : await sql`select * from connections where id = ${id} and tenant_id = ${tenantId} and (${closedToo}::boolean or disconnected_at is null)`
  return rows[0] as ConnectionRow | undefined
}

/** An open connection's version (`xmin`) and what decides who may see it: what a read asks before its view (src/domain/connection-views.ts). */
export async function connectionHead(sql: Sql, id: string, tenantId: string): Promise<{ v: string; application_id: string; domain: string } | undefined> {
  const [row] = await sql`select xmin::text as v, application_id, domain from connections where id = ${id} and tenant_id = ${tenantId} and disconnected_at is null`
  return row as { v: string; application_id: string; domain: string } | undefined
}

/** The person declined the consent or the sign-in at the provider. */
export async function markAccessDenied(sql: Sql, c: { id: string }, description: string, now: Date): Promise<void> {
  await sql`update connections set error_code = 'access_denied', error_message = ${description}, updated_at = ${now} where id = ${c.id}`
}

/**
 * A status change as src/domain/transitions.ts decided it, for a query to store: the status the row is
 * expected in (`from`, the statement's guard), the one it gets, and which columns the rule stamps.
 */
export interface StatusWrite {
  from: ConnectionStatus
  status: ConnectionStatus
  /** `propagating_since`: now, null, or as it is. */
  clock: 'start' | 'clear' | 'keep'
  /** `next_check_at` = now. */
  checkNow: boolean
  /** `retried_at` = now, `failed_at` cleared. */
  countRetry: boolean
  /** `error_code` and `error_message` cleared. */
  clearDiagnosis: boolean
}

/** The `set` list of a status write: each column written as decided, or left as it is. */
export function statusColumns(sql: Sql, w: StatusWrite, now: Date) {
  return sql`status = ${w.status},
    propagating_since = case ${w.clock}::text when 'start' then ${now}::timestamptz when 'clear' then null else propagating_since end,
    next_check_at = case when ${w.checkNow}::boolean then ${now}::timestamptz else next_check_at end,
    retried_at = case when ${w.countRetry}::boolean then ${now}::timestamptz else retried_at end,
    failed_at = case when ${w.countRetry}::boolean then null else failed_at end,
    error_code = case when ${w.clearDiagnosis}::boolean then null else error_code end,
    error_message = case when ${w.clearDiagnosis}::boolean then null else error_message end,
    updated_at = ${now}`
}

/** The open connection's status, its row locked until the transaction ends; undefined when it is closed. */
export async function lockStatus(sql: Sql, c: { id: string }): Promise<ConnectionStatus | undefined> {
  const [row] = (await sql`select status from connections where id = ${c.id} and disconnected_at is null for update`) as { status: ConnectionStatus }[]
  return row?.status
}

/** The provider applied the templates through the consent: the connection is managed, its status as decided. */
export async function markAppliedThroughConsent(sql: Sql, c: { id: string }, w: StatusWrite, now: Date): Promise<ConnectionRow | undefined> {
  const [updated] = await sql`
        update connections set rail = 'domain_connect', managed = true, records_written_at = ${now}, ${statusColumns(sql, w, now)}
        where id = ${c.id} and status = ${w.from} returning *`
  return updated as ConnectionRow | undefined
}

/** A connection as the rails read it (with what they applied), by id. */
export async function railConnection<A = unknown>(db: Sql, c: { id: string }): Promise<RailRow<A>> {
  const [row] = await db`select * from connections where id = ${c.id}`
  return row as RailRow<A>
}

/** An open connection by id (any tenant: the caller found it in its tenant already). */
export async function openRailConnection<A = unknown>(db: Sql, conn: { id: string }): Promise<RailRow<A> | undefined> {
  const [row] = await db`select * from connections where id = ${conn.id} and disconnected_at is null`
  return row as RailRow<A> | undefined
}

/** An open connection of a tenant (a provider sign-in's callback). */
export async function openRailConnectionInTenant<A = unknown>(db: Sql, s: { connection_id: string; tenant_id: string }): Promise<RailRow<A> | undefined> {
  const [row] = await db`select * from connections where id = ${s.connection_id} and tenant_id = ${s.tenant_id} and disconnected_at is null`
  return row as RailRow<A> | undefined
}

/** The provider refused the connection's grant: it asks for re-consent (src/domain/grants.ts `onRefusal`). */
export async function flagReauthorize(tx: Sql, c: { id: string }, now: Date): Promise<ConnectionRow | undefined> {
  const [row] = await tx`update connections set reauthorize_needed_at = ${now}, updated_at = ${now} where id = ${c.id} returning *`
  return row as ConnectionRow | undefined
}

/** A re-apply through a kept grant worked: the connection no longer needs re-authorizing. */
export async function clearReauthorize<A = unknown>(tx: Sql, c: { id: string }, now: Date): Promise<RailRow<A>> {
  const [fresh] = await tx`update connections set reauthorize_needed_at = null, updated_at = ${now} where id = ${c.id} returning *`
  return fresh as RailRow<A>
}

type Filter = { app_id?: string; status?: string }
type PageFilter = Filter & { domain?: string; end_user_ref?: string }

/**
 * One page's window of a tenant's open connections in id order after the cursor's id: each id with its
 * row version (`xmin`, new with every change of the row), one more than `limit` telling a next page.
 * Only the filters given are in the statement: with `($2 is null or application_id = $2)` the generic
 * plan PostgreSQL settles on for a prepared statement guessed a single row, and read and sorted the
 * workspace's every connection for each page (bench/scale.ts: 43 ms a page for a workspace of 10,000
 * connections, against 0.3 ms along the workspace's index). Two columns, not the row: what a page
 * costs PostgreSQL and Portico is mostly writing and reading the rows' columns, and the rows a process
 * has seen at this version it has already (src/domain/connection-views.ts).
 *
 * The id is compared and ordered bytewise (`collate "C"`), as only connections_tenant_page (migration
 * 0250) holds it, so every plan walks that index from (tenant, cursor) and reads 51 entries however deep
 * the page: the primary key cannot give this order (with `id > $2`, PostgreSQL's plan for a workspace of
 * a tenth of the rows walked it and skipped the others' rows: ten rows read for one shown, and on a
 * last page on to the table's end), and a (tenant_id, id) row compare started at the workspace's first
 * entry and read every index page before the cursor (a page half-way through a workspace of 9,500: 159
 * buffers, 0.8 ms; at a million connections 145 ms; now 53 buffers, 0.25 ms). Ids after their prefix
 * are lowercase letters and digits, ordered alike by every collation: the order is the one documented.
 */
export async function connectionVersionsPage(sql: Sql, p: { tenantId: string }, input: PageFilter, after: string, limit: number): Promise<{ id: string; v: string }[]> {
  return (await sql`
      select id, xmin::text as v from connections
      where tenant_id = ${p.tenantId} and id collate "C" > ${after} and disconnected_at is null
        ${input.app_id ? sql`and application_id = ${input.app_id}` : sql``}
        ${input.status ? sql`and status = ${input.status}` : sql``}
        ${input.domain ? sql`and domain = ${input.domain}` : sql``}
        ${input.end_user_ref ? sql`and end_user_ref = ${input.end_user_ref}` : sql``}
      order by id collate "C" limit ${limit + 1}`) as { id: string; v: string }[]
}

/** A tenant's open connections by id, each with its row version (`xmin`). */
export async function openConnectionsByIds(sql: Sql, tenantId: string, ids: string[]): Promise<(ConnectionRow & { v: string })[]> {
  return (await sql`
      select xmin::text as v, * from connections
      where tenant_id = ${tenantId} and id = any(${ids}::text[]) and disconnected_at is null`) as (ConnectionRow & { v: string })[]
}

/** Open connections counted per application and status, from the cached counts (migration 0090). */
export const connectionCounts = (sql: Sql, p: { tenantId: string }, input: Filter) => countsOfTenant(sql, 'connection', p.tenantId, input)

/** Custom records replace the planned ones, with the status change decided; undefined when it is no longer in `w.from`. */
export async function setCustomRecords(sql: Sql, c: { id: string }, input: { records: unknown[] }, w: StatusWrite, now: Date): Promise<ConnectionRow | undefined> {
  const [row] = await sql`
      update connections set desired_records = ${input.records}::jsonb, records_source = 'custom', records_outdated_at = null, ${statusColumns(sql, w, now)}
      where id = ${c.id} and status = ${w.from} returning *`
  return row as ConnectionRow | undefined
}

/** The application's own connect target (CNAME target, apex addresses). */
export async function setConnectTarget(sql: Sql, app: { id: string }, cname: string | null, ips: string[], now: Date): Promise<ApplicationRow> {
  const [updated] = await sql`
      update applications set cname_target = ${cname}, apex_ipv4 = ${ips}::text[], updated_at = ${now}
      where id = ${app.id} returning id, tenant_id, name, environment, cname_target, apex_ipv4, branding, created_at, updated_at`
  return updated as ApplicationRow
}

/** The application's planned, unmanaged open connections planned for another target, locked. */
export async function plannedConnectionsOffTarget(sql: Sql, app: { id: string }, targetJson: unknown): Promise<ConnectionRow[]> {
  return (await sql`
      select * from connections
      where application_id = ${app.id} and disconnected_at is null and records_source = 'planned' and not managed
        and planned_target <> ${targetJson}::jsonb
      for update`) as ConnectionRow[]
}

/** Records not in place yet follow the new target. */
export async function replanConnection(sql: Sql, c: { id: string }, records: StoredRecord[], targetJson: unknown, now: Date): Promise<void> {
  await sql`update connections set desired_records = ${records}::jsonb, planned_target = ${targetJson}::jsonb, updated_at = ${now} where id = ${c.id}`
}

/** Records in place point at the old target: the connection says its records are outdated. */
export async function markRecordsOutdated(sql: Sql, c: { id: string }, now: Date): Promise<ConnectionRow> {
  const [row] = await sql`update connections set records_outdated_at = ${now}, updated_at = ${now} where id = ${c.id} returning *`
  return row as ConnectionRow
}

/** The open connection of an application for a domain. */
export async function findOpen(sql: Sql, applicationId: string, domain: string): Promise<ConnectionRow | undefined> {
  const [c] = await sql`select * from connections where application_id = ${applicationId} and domain = ${domain} and disconnected_at is null`
  return c as ConnectionRow | undefined
}

/** A new connection in `status` (the table's `created`); undefined when the application has the domain open already (a concurrent create). */
export async function insertConnection(
  sql: Sql,
  c: Pick<ConnectionRow, 'id' | 'tenant_id' | 'application_id' | 'domain' | 'apex_domain' | 'end_user_ref' | 'www_redirect' | 'provider_id' | 'desired_records' | 'records_source' | 'planned_target' | 'verification_token' | 'metadata'> &
    Partial<Pick<ConnectionRow, 'validation' | 'validation_stage' | 'held_records' | 'dcv_label'>>,
  status: ConnectionStatus,
  now: Date,
): Promise<ConnectionRow | undefined> {
  const rows = await sql`
    insert into connections (id, tenant_id, application_id, domain, apex_domain, end_user_ref, www_redirect, status, provider_id,
      desired_records, records_source, planned_target, verification_token, metadata, next_check_at, created_at, updated_at,
      validation, validation_stage, held_records, dcv_label)
    values (${c.id}, ${c.tenant_id}, ${c.application_id}, ${c.domain}, ${c.apex_domain}, ${c.end_user_ref}, ${c.www_redirect},
      ${status}, ${c.provider_id}, ${c.desired_records}::jsonb, ${c.records_source},
      ${c.planned_target}::jsonb, ${c.verification_token}, ${c.metadata}::jsonb, ${now}, ${now}, ${now},
      ${c.validation ?? 'http'}, ${c.validation_stage ?? null}, ${c.held_records ?? null}::jsonb, ${c.dcv_label ?? null})
    on conflict (application_id, domain) where disconnected_at is null do nothing
    returning *`
  return rows[0] as ConnectionRow | undefined
}

/**
 * A failed connection's revival, as decided; undefined when it is no longer in `w.from`. Before cutover
 * it takes up the stage it failed in: the first (its routing records still held back) or routing.
 */
export async function setRevived(sql: Sql, c: { id: string }, w: StatusWrite, now: Date): Promise<ConnectionRow | undefined> {
  const [r] = await sql`
    update connections set ${statusColumns(sql, w, now)},
      validation_stage = case when validation_stage = 'failed'
        then case when held_records is not null then 'awaiting_records' else 'awaiting_routing' end
        else validation_stage end
    where id = ${c.id} and status = ${w.from} returning *`
  return r as ConnectionRow | undefined
}

/** A status change with nothing else written, as decided; undefined when the row is no longer in `w.from`. */
export async function setStatus(sql: Sql, c: { id: string }, w: StatusWrite, now: Date): Promise<ConnectionRow | undefined> {
  const [r] = await sql`update connections set ${statusColumns(sql, w, now)} where id = ${c.id} and status = ${w.from} returning *`
  return r as ConnectionRow | undefined
}

/** Closes an open connection with its outcome; undefined when it was closed already. */
export async function setDisconnected(sql: Sql, c: { id: string }, outcome: object, now: Date): Promise<ConnectionRow | undefined> {
  const [row] = await sql`
    update connections set disconnected_at = ${now}, disconnect_outcome = ${outcome}::jsonb, next_check_at = null, updated_at = ${now}
    where id = ${c.id} and disconnected_at is null returning *`
  return row as ConnectionRow | undefined
}
