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

export interface ShareLinkRow {
  id: string
  connection_id: string
  created_by: string
  created_at: Date
  expires_at: Date
}

/** The connection's links still open, newest first. */
export async function liveShareLinks(sql: Sql, connectionId: string, now: Date): Promise<ShareLinkRow[]> {
  return (await sql`
    select id, connection_id, created_by, created_at, expires_at from share_links
    where connection_id = ${connectionId} and expires_at > ${now} order by created_at desc, id desc`) as ShareLinkRow[]
}

/** Ends one of the connection's links (it answers 404 from now on); false when it has no such link. */
export async function deleteShareLink(sql: Sql, connectionId: string, id: string): Promise<boolean> {
  return (await sql`delete from share_links where id = ${id} and connection_id = ${connectionId} returning 1`).length === 1
}
