// Queries of provider OAuth states: one per sign-in started at a DNS provider, taken once by its
// callback (src/domain/provider-oauth.ts signs and checks them).
import type { Sql } from './sql.ts'

export interface StateRow {
  id: string
  tenant_id: string
  connection_id: string
  provider: string
  code_verifier: string
  return_url: string | null
  expires_at: Date
  used_at: Date | null
}

export async function insertOAuthState(sql: Sql, s: Omit<StateRow, 'used_at'>, now: Date): Promise<void> {
  await sql`
    insert into provider_oauth_states (id, tenant_id, connection_id, provider, code_verifier, return_url, expires_at, created_at)
    values (${s.id}, ${s.tenant_id}, ${s.connection_id}, ${s.provider}, ${s.code_verifier}, ${s.return_url}, ${s.expires_at}, ${now})`
}

/** Takes the state once: undefined when it is unknown or was used already. */
export async function useOAuthState(sql: Sql, id: string, now: Date): Promise<StateRow | undefined> {
  const [row] = await sql`update provider_oauth_states set used_at = ${now} where id = ${id} and used_at is null returning *`
  return row as StateRow | undefined
}
