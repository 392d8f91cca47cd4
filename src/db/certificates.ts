// Queries of certificates: as the API lists them, and every statement of ordering, issuing, serving
// and removing one (the rules are src/domain/certificates.ts; the edge sweep's are here too).
import type { ConnectionRow } from './connections.ts'
import type { Sql } from './sql.ts'

export interface CertificateRow {
  id: string
  tenant_id: string
  application_id: string
  connection_id: string
  domain: string
  names: string[]
  status: 'pending' | 'issued' | 'failed' | 'removed'
  managed: boolean
  issuer: string | null
  not_before: Date | null
  not_after: Date | null
  renew_after: Date | null
  cert_pem: string | null
  key_sealed: string | null
  last_error: string | null
  /** How it was validated: renewals take the same path. */
  challenge?: 'http-01' | 'dns-01'
  /** Why the next renewal is at risk (a removed DCV delegation), said ahead of expiry; null when nothing is. */
  renewal_warning?: string | null
  attempts: number
  /** When a failed order, or one waiting for the DCV zone's server (pending), is tried again. */
  retry_at?: Date | null
  created_at: Date
  updated_at: Date
}

/** A tenant's certificates (one application's for a widget token), newest first, removed ones left out. */
export async function certificatesInScope(sql: Sql, p: { tenantId: string }, app: string | null): Promise<CertificateRow[]> {
  return (await sql`
      select * from certificates where tenant_id = ${p.tenantId} and status <> 'removed' and (${app}::text is null or application_id = ${app})
      order by id desc`) as CertificateRow[]
}

/** The connection's certificate, removed ones left out. */
export async function certificateOf(sql: Sql, connectionId: string): Promise<CertificateRow | undefined> {
  const [row] = await sql`select * from certificates where connection_id = ${connectionId} and status <> 'removed'`
  return row as CertificateRow | undefined
}

/** The connection's certificate (removed ones left out), locked. */
export async function lockCertificateOf(tx: Sql, connectionId: string): Promise<CertificateRow | undefined> {
  const [existing] = (await tx`select * from certificates where connection_id = ${connectionId} and status <> 'removed' for update`) as CertificateRow[]
  return existing
}

export async function certificateById(sql: Sql, id: string): Promise<CertificateRow | undefined> {
  const [row] = (await sql`select * from certificates where id = ${id}`) as CertificateRow[]
  return row
}

/** The connection carries its certificate's status; served only while issued. */
export async function setCertificateStatus(sql: Sql, c: { id: string }, status: CertificateRow['status'] | null): Promise<void> {
  await sql`
    update connections set certificate_status = ${status},
      certificate_served_at = case when ${status}::text is distinct from 'issued' then null else certificate_served_at end
    where id = ${c.id}`
}

/** The edge accepted the connection's certificate: from now on its HTTPS is served (`secure`). */
export async function markServed(sql: Sql, connectionId: string, now: Date): Promise<void> {
  await sql`update connections set certificate_served_at = ${now} where id = ${connectionId} and certificate_status = 'issued'`
}

/** An edge lacks the connection's certificate (restarted): not served until it is put back. */
export async function markUnserved(sql: Sql, connectionId: string): Promise<void> {
  await sql`update connections set certificate_served_at = null where id = ${connectionId}`
}

export async function setIssued(
  tx: Sql,
  id: string,
  i: Pick<CertificateRow, 'managed' | 'names' | 'issuer' | 'not_before' | 'not_after' | 'renew_after' | 'cert_pem' | 'key_sealed'> & { challenge?: 'http-01' | 'dns-01' },
  now: Date,
): Promise<CertificateRow> {
  const [row] = await tx`
      update certificates set status = 'issued', managed = ${i.managed}, names = ${i.names}::text[], issuer = ${i.issuer},
        challenge = ${i.challenge ?? 'http-01'}, renewal_warning = null,
        not_before = ${i.not_before}, not_after = ${i.not_after}, renew_after = ${i.renew_after}, cert_pem = ${i.cert_pem},
        key_sealed = ${i.key_sealed}, last_error = null, updated_at = ${now}
      where id = ${id} returning *`
  return row as CertificateRow
}

/** One more order for an existing certificate. */
export async function countAttempt(tx: Sql, c: { id: string }, now: Date, challenge: 'http-01' | 'dns-01' = 'http-01'): Promise<CertificateRow> {
  // An order waiting (pending with its retry time) is taken now: in flight, no retry time. A certificate
  // not issued yet says how this order validates.
  const [row] = await tx`
    update certificates set attempts = attempts + 1, updated_at = ${now},
      retry_at = case when status = 'pending' then null else retry_at end,
      challenge = case when status = 'issued' then challenge else ${challenge} end
    where id = ${c.id} returning *`
  return row as CertificateRow
}

export async function insertPendingCertificate(
  tx: Sql,
  c: Pick<CertificateRow, 'id' | 'tenant_id' | 'application_id' | 'connection_id' | 'domain' | 'names' | 'managed'> & { challenge?: 'http-01' | 'dns-01' },
  now: Date,
): Promise<CertificateRow> {
  const [row] = await tx`
          insert into certificates (id, tenant_id, application_id, connection_id, domain, names, status, managed, created_at, updated_at, challenge)
          values (${c.id}, ${c.tenant_id}, ${c.application_id}, ${c.connection_id}, ${c.domain}, ${c.names}::text[], 'pending', ${c.managed}, ${now}, ${now}, ${c.challenge ?? 'http-01'})
          returning *`
  return row as CertificateRow
}

/** An order that failed, to be tried again at `retryAt`. */
export async function setOrderFailed(tx: Sql, c: { id: string }, status: 'issued' | 'failed' | 'pending', error: string, retryAt: Date, now: Date): Promise<CertificateRow> {
  const [failed] = await tx`
        update certificates set status = ${status}, last_error = ${error}, retry_at = ${retryAt}, updated_at = ${now}
        where id = ${c.id} returning *`
  return failed as CertificateRow
}

/** Says why the next renewal is at risk (null: nothing is); the row when that changed, else undefined. */
export async function setRenewalWarning(tx: Sql, connectionId: string, warning: string | null, now: Date): Promise<CertificateRow | undefined> {
  const [row] = await tx`
    update certificates set renewal_warning = ${warning}, updated_at = ${now}
    where connection_id = ${connectionId} and status = 'issued' and renewal_warning is distinct from ${warning} returning *`
  return row as CertificateRow | undefined
}

/** Marks the connection's certificate removed; undefined when it has none. */
export async function setCertificateRemoved(sql: Sql, c: { id: string }, now: Date): Promise<CertificateRow | undefined> {
  const [row] = await sql`update certificates set status = 'removed', updated_at = ${now} where connection_id = ${c.id} and status <> 'removed' returning *`
  return row as CertificateRow | undefined
}

/** Issued certificates Portico holds the key of (one the edge obtained on demand lives in its own storage). */
export async function issuedCertificates(db: Sql): Promise<CertificateRow[]> {
  return (await db`select * from certificates where status = 'issued' and cert_pem is not null and key_sealed is not null`) as CertificateRow[]
}

/**
 * Live connections pointed at the platform edge (`cnameTarget`) whose certificate is due: none yet, a
 * failed order past its retry time, a pending order older than `staleBefore`, a managed one past
 * `renew_after`; not while the edge orders one on demand (since `ondemandBefore`). First live first.
 */
export async function connectionsDueForIssue(db: Sql, q: { cnameTarget: string; now: Date; ondemandBefore: Date; staleBefore: Date; limit: number }) {
  return (await db`
    select c.*, coalesce(p.redirect_to_www, false) as redirect_to_www from connections c
    left join certificates k on k.connection_id = c.id and k.status <> 'removed'
    left join power_settings p on p.connection_id = c.id and p.status <> 'removed'
    where c.status = 'live' and c.disconnected_at is null and c.planned_target->>'cname_target' = ${q.cnameTarget}
      and (c.ondemand_at is null or c.ondemand_at < ${q.ondemandBefore})
      and (k.id is null
        or (k.status = 'failed' and k.retry_at <= ${q.now})
        or (k.status = 'pending' and k.updated_at < ${q.staleBefore})
        or (k.status = 'issued' and k.managed and k.renew_after <= ${q.now}))
    order by c.live_at limit ${q.limit}`) as (ConnectionRow & { redirect_to_www: boolean })[]
}

/** When the earliest failed order of a live connection may be tried again. */
export async function nextCertificateRetry(db: Sql): Promise<Date | null> {
  const [row] = (await db`
    select min(k.retry_at) as at from certificates k join connections c on c.id = k.connection_id
    where k.status = 'failed' and c.status = 'live' and c.disconnected_at is null`) as { at: Date | null }[]
  return row?.at ?? null
}

/** Orders that failed since `since` are due now; how many. */
export async function retryFailedNow(tx: Sql, since: Date, now: Date): Promise<number> {
  return (await tx`update certificates set retry_at = ${now} where status = 'failed' and retry_at > ${now} and updated_at >= ${since} returning id`).length
}
