// Queries of share links (src/domain/share.ts keeps the rules: the token is the capability, only its hash is stored).
import type { ConnectionRow } from './connections.ts'
import type { Sql } from './sql.ts'

export async function insertShareLink(
  sql: Sql,
  l: { id: string; tenant_id: string; application_id: string; connection_id: string; token_hash: string; created_by: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await sql`
    insert into share_links (id, tenant_id, application_id, connection_id, token_hash, created_by, created_at, expires_at)
    values (${l.id}, ${l.tenant_id}, ${l.application_id}, ${l.connection_id}, ${l.token_hash}, ${l.created_by}, ${l.created_at}, ${l.expires_at})`
}

/** The open connection behind a live share link's token hash, with the link's expiry. */
export async function sharedConnectionRow(sql: Sql, tokenHash: string, now: Date): Promise<(ConnectionRow & { share_expires_at: Date }) | undefined> {
  const [hit] = await sql`
    select c.*, s.expires_at as share_expires_at
    from share_links s join connections c on c.id = s.connection_id
    where s.token_hash = ${tokenHash} and s.expires_at > ${now} and c.disconnected_at is null`
  return hit as (ConnectionRow & { share_expires_at: Date }) | undefined
}
