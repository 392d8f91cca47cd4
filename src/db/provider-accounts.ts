// Queries of provider accounts: the row, its reads and writes (creating one, its sealed credential,
// its status). Sealing, opening and judging accounts is src/domain/provider-accounts.ts.
import type { Sql } from './sql.ts'

export interface AccountRow {
  id: string
  tenant_id: string
  kind: 'api_key' | 'oauth'
  provider: string
  label: string | null
  access: 'continuous' | 'one_time'
  scope: string
  api_url: string | null
  credential_sealed: string | null
  status: 'active' | 'needs_reconnect'
  last_error: string | null
  created_by: string | null
  last_used_at: Date | null
  expires_at: Date | null
  created_at: Date
  updated_at: Date
  deleted_at: Date | null
}

export async function accountsOfTenant(sql: Sql, tenantId: string): Promise<AccountRow[]> {
  return (await sql`select * from provider_accounts where tenant_id = ${tenantId} and deleted_at is null order by id`) as AccountRow[]
}

/** Any tenant's live account by id (the monitor's repair, which knows the connection already). */
export async function accountById(db: Sql, id: string): Promise<AccountRow | undefined> {
  const [acc] = await db`select * from provider_accounts where id = ${id} and deleted_at is null`
  return acc as AccountRow | undefined
}

/** A write through the account worked: it is active again. */
export async function markAccountUsed(db: Sql, a: { id: string }, now: Date): Promise<void> {
  await db`update provider_accounts set last_used_at = ${now}, status = 'active', last_error = null, updated_at = ${now} where id = ${a.id}`
}

/** A one-time account did its write: its credential is deleted. */
export async function markOneTimeUsed(db: Sql, a: { id: string }, now: Date): Promise<void> {
  await db`update provider_accounts set credential_sealed = null, last_used_at = ${now}, updated_at = ${now} where id = ${a.id}`
}

/** Deletes the account and its credential; the connections it managed are no longer managed. */
export async function deleteAccount(sql: Sql, a: { id: string }, now: Date): Promise<void> {
  await sql`update connections set managed = false, updated_at = ${now} where provider_account_id = ${a.id} and disconnected_at is null`
  await sql`update provider_accounts set credential_sealed = null, deleted_at = ${now}, updated_at = ${now} where id = ${a.id}`
}

export async function insertAccount(
  sql: Sql,
  a: Pick<AccountRow, 'id' | 'tenant_id' | 'kind' | 'provider' | 'label' | 'access' | 'api_url' | 'credential_sealed' | 'created_by' | 'expires_at'>,
  now: Date,
): Promise<AccountRow> {
  const [row] = await sql`
    insert into provider_accounts (id, tenant_id, kind, provider, label, access, api_url, credential_sealed, created_by, expires_at, created_at, updated_at)
    values (${a.id}, ${a.tenant_id}, ${a.kind}, ${a.provider}, ${a.label}, ${a.access}, ${a.api_url},
      ${a.credential_sealed}, ${a.created_by}, ${a.expires_at}, ${now}, ${now})
    returning *`
  return row as AccountRow
}

/** A tenant's live account by id, locked with `lock`. */
export async function accountInTenant(sql: Sql, tenantId: string, id: string, lock: boolean): Promise<AccountRow | undefined> {
  const rows = lock
    ? await sql`select * from provider_accounts where id = ${id} and tenant_id = ${tenantId} and deleted_at is null for update`
    : await sql`select * from provider_accounts where id = ${id} and tenant_id = ${tenantId} and deleted_at is null`
  return rows[0] as AccountRow | undefined
}

/** The provider refused the credential: the account asks to be connected again. */
export async function setNeedsReconnect(sql: Sql, id: string, reason: string, now: Date): Promise<void> {
  await sql`update provider_accounts set status = 'needs_reconnect', last_error = ${reason}, updated_at = ${now} where id = ${id}`
}

/** The open connections the account manages, in id order. */
export async function connectionsOfAccount(sql: Sql, a: { id: string }) {
  return (await sql`
    select id, application_id, domain, status from connections
    where provider_account_id = ${a.id} and disconnected_at is null order by id`) as { id: string; application_id: string; domain: string; status: string }[]
}

/** The account's sealed credential, locked (a refresh that rotates its token holds it). */
export async function lockAccountCredential(tx: Sql, a: { id: string }): Promise<{ credential_sealed: string | null } | undefined> {
  const [row] = (await tx`select credential_sealed from provider_accounts where id = ${a.id} for update`) as { credential_sealed: string | null }[]
  return row
}

export async function setAccountCredential(tx: Sql, a: { id: string }, sealed: string, now: Date): Promise<void> {
  await tx`update provider_accounts set credential_sealed = ${sealed}, updated_at = ${now} where id = ${a.id}`
}
