// Share links (the API contract, section 8: a share link expires after 30 days): a person hands the manual
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
import { insertShareLink, sharedConnectionRow } from '../db/share-links.ts'

export const SHARE_TTL_MS = 30 * DAY
/** The path of the page a share link opens (served with the widget bundle). */
export const SHARE_PAGE_PREFIX = '/share/'

export interface ShareLink {
  id: string
  token: string
  url: string
  expires_at: Date
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

export async function createShareLink(sql: Sql, c: ConnectionRow, createdBy: string, publicUrl: string, now: Date): Promise<ShareLink> {
  const token = `shr_${randomToken(32)}`
  const expires = new Date(now.getTime() + SHARE_TTL_MS)
  const id = newId('shl', now.getTime())
  await insertShareLink(sql, { id, tenant_id: c.tenant_id, application_id: c.application_id, connection_id: c.id, token_hash: hashOf(token), created_by: createdBy, created_at: now, expires_at: expires })
  return { id, token, url: `${publicUrl}${SHARE_PAGE_PREFIX}${token}`, expires_at: expires }
}

/** The connection behind a live share token, with the link's expiry; 404 for anything else. */
export async function sharedConnection(sql: Sql, token: string, now: Date): Promise<{ row: ConnectionRow; expiresAt: Date }> {
  const hit = await sharedConnectionRow(sql, hashOf(token), now)
  if (!hit) throw notFound('This share link is unknown or has expired')
  const { share_expires_at, ...row } = hit
  return { row: row as ConnectionRow, expiresAt: share_expires_at }
}
