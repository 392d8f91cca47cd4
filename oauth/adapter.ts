// PostgreSQL storage for oidc-provider (its adapter interface: upsert, find, findByUid,
// findByUserCode, consume, destroy, revokeByGrantId). Every model lives in one table keyed by model
// and id, so all processes share flows, grants and clients; nothing is kept in memory. Expiry is the
// provider's own (`expiresIn` seconds from now, real time): an expired row is never returned, and
// `purgeExpired` deletes them.
//
// Refresh rotation with a reuse grace: a rotated (consumed) refresh token still reads as unused for
// REFRESH_REUSE_GRACE_S after its first use, or until a token of the same grant is used after it
// (the successor's first use), whichever comes first. Two racing refreshes, or a retry after a lost
// response, then both get working tokens. Outside the grace the provider sees the reuse and revokes
// the grant (revokeByGrantId), which ends the grant row with reason `token_reuse`.
import type { Sql } from '../src/db/sql.ts'
import { revokeGrant, REVOKE_REASONS } from './grants.ts'
import { isClientIdUrl } from './client-id.ts'

export const REFRESH_REUSE_GRACE_S = 60

export interface StoredPayload {
  grantId?: string
  uid?: string
  userCode?: string
  [key: string]: unknown
}

export interface Adapter {
  upsert(id: string, payload: StoredPayload, expiresIn?: number): Promise<void>
  find(id: string): Promise<StoredPayload | undefined>
  findByUid(uid: string): Promise<StoredPayload | undefined>
  findByUserCode(userCode: string): Promise<StoredPayload | undefined>
  consume(id: string): Promise<void>
  destroy(id: string): Promise<void>
  revokeByGrantId(grantId: string): Promise<void>
}

type Row = { payload: StoredPayload; consumed_at: Date | null }

function out(row: Row | undefined): StoredPayload | undefined {
  if (!row) return undefined
  const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as StoredPayload) : row.payload
  // The provider reads `consumed` (epoch seconds) to refuse a second use of a code or rotated token.
  return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload
}

/**
 * The adapter class oidc-provider instantiates once per model name. `clientDocument`, when given,
 * answers Client lookups for URL client ids (client ID metadata documents, client-metadata.ts).
 */
export function postgresAdapter(db: Sql, clientDocument?: (url: string) => Promise<StoredPayload | null>): new (model: string) => Adapter {
  return class PostgresAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: StoredPayload, expiresIn?: number): Promise<void> {
      const expires = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null
      await db`
        insert into oauth_store (model, id, payload, grant_id, uid, user_code, expires_at)
        values (${this.model}, ${id}, ${payload}::jsonb, ${payload.grantId ?? null}, ${payload.uid ?? null}, ${payload.userCode ?? null}, ${expires})
        on conflict (model, id) do update set
          payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
          user_code = excluded.user_code, expires_at = excluded.expires_at`
    }

    async find(id: string): Promise<StoredPayload | undefined> {
      if (this.model === 'RefreshToken') return findRefreshToken(db, id)
      if (clientDocument && this.model === 'Client' && isClientIdUrl(id)) return (await clientDocument(id)) ?? undefined
      const [row] = await db`
        select payload, consumed_at from oauth_store
        where model = ${this.model} and id = ${id} and (expires_at is null or expires_at > now())`
      return out(row as Row | undefined)
    }

    async findByUid(uid: string): Promise<StoredPayload | undefined> {
      const [row] = await db`
        select payload, consumed_at from oauth_store
        where model = ${this.model} and uid = ${uid} and (expires_at is null or expires_at > now())`
      return out(row as Row | undefined)
    }

    async findByUserCode(userCode: string): Promise<StoredPayload | undefined> {
      const [row] = await db`
        select payload, consumed_at from oauth_store
        where model = ${this.model} and user_code = ${userCode} and (expires_at is null or expires_at > now())`
      return out(row as Row | undefined)
    }

    async consume(id: string): Promise<void> {
      // The first use is kept: a use within the grace must not extend it.
      await db`update oauth_store set consumed_at = coalesce(consumed_at, now()) where model = ${this.model} and id = ${id}`
    }

    async destroy(id: string): Promise<void> {
      await db`delete from oauth_store where model = ${this.model} and id = ${id}`
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // The provider calls this only on reuse of a consumed refresh token or code (RFC 9700 section
      // 4.14.2); revocation by the workspace or the client goes through revokeGrant directly.
      await revokeGrant(db, grantId, REVOKE_REASONS.reuse, new Date())
    }
  }
}

/** A refresh token, read as unused while its reuse grace lasts (see the header). */
async function findRefreshToken(db: Sql, id: string): Promise<StoredPayload | undefined> {
  const [row] = await db`
    select t.payload, t.consumed_at,
      t.consumed_at > now() - make_interval(secs => ${REFRESH_REUSE_GRACE_S})
        and not exists (
          select 1 from oauth_store s
          where s.model = 'RefreshToken' and s.grant_id = t.grant_id and s.consumed_at > t.consumed_at) as in_grace
    from oauth_store t
    where t.model = 'RefreshToken' and t.id = ${id} and (t.expires_at is null or t.expires_at > now())`
  if (!row) return undefined
  return out({ payload: row.payload, consumed_at: row.in_grace ? null : row.consumed_at } as Row)
}

/** Deletes expired provider rows; returns how many went. */
export async function purgeExpired(db: Sql): Promise<number> {
  const rows = await db`delete from oauth_store where expires_at < now() returning 1`
  return rows.length
}
