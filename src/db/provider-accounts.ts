// Queries of provider accounts as operations use them. Statements moved from the provider-account operations
// verbatim; creating, sealing and opening accounts is src/domain/provider-accounts.ts.
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
