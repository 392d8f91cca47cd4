// Share links (CONTRACT.md section 8: a share link expires after 30 days): a person hands the manual
// setup of one connection to whoever controls its DNS. Invariants:
// - the token is the capability; only its SHA-256 is stored, so a database read cannot replay a link;
// - a link answers only while unexpired (by the service clock) and while its connection is not
//   disconnected; otherwise it is "not found", exactly like an unknown token;
// - a shared flow sees the connection's domain, status, reason and records, never its tenant or ids
//   beyond the connection's own.
import { createHash } from 'node:crypto'
import type { Sql } from '../db/sql.ts'
import { notFound } from '../errors.ts'
import { newId, randomToken } from '../ids.ts'
import { DAY } from '../clock.ts'
import type { ConnectionRow } from '../db/connections.ts'

export const SHARE_TTL_MS = 30 * DAY
/** The path of the page a share link opens (served with the widget bundle). */
export const SHARE_PAGE_PREFIX = '/share/'

export interface ShareLink {
  token: string
  url: string
  expires_at: Date
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

export async function createShareLink(sql: Sql, c: ConnectionRow, createdBy: string, publicUrl: string, now: Date): Promise<ShareLink> {
  const token = `shr_${randomToken(32)}`
  const expires = new Date(now.getTime() + SHARE_TTL_MS)
  await sql`
    insert into share_links (id, tenant_id, application_id, connection_id, token_hash, created_by, created_at, expires_at)
    values (${newId('shl', now.getTime())}, ${c.tenant_id}, ${c.application_id}, ${c.id}, ${hashOf(token)}, ${createdBy}, ${now}, ${expires})`
  return { token, url: `${publicUrl}${SHARE_PAGE_PREFIX}${token}`, expires_at: expires }
}

/** The connection behind a live share token, with the link's expiry; 404 for anything else. */
export async function sharedConnection(sql: Sql, token: string, now: Date): Promise<{ row: ConnectionRow; expiresAt: Date }> {
  const [hit] = await sql`
    select c.*, s.expires_at as share_expires_at
    from share_links s join connections c on c.id = s.connection_id
    where s.token_hash = ${hashOf(token)} and s.expires_at > ${now} and c.disconnected_at is null`
  if (!hit) throw notFound('This share link is unknown or has expired')
  const { share_expires_at, ...row } = hit as ConnectionRow & { share_expires_at: Date }
  return { row: row as ConnectionRow, expiresAt: share_expires_at }
}
