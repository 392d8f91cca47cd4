// PostgreSQL storage for oidc-provider (its adapter interface: upsert, find, findByUid,
// findByUserCode, consume, destroy, revokeByGrantId). Every model lives in one table keyed by model
// and id, so all processes share flows, grants and clients; nothing is kept in memory. Expiry is the
// provider's own (`expiresIn` seconds from now, real time): an expired row is never returned, and
// `purgeExpired` deletes them.
//
// A consumed (rotated) refresh token reads as consumed: the provider treats its reuse as theft and
// revokes the grant (revokeByGrantId). The reuse grace, in which a repeat of a refresh gets the same
// successor, is kept in front of the provider (refresh.ts), so a repeat never reaches it.
import type { Sql } from '../src/db/sql.ts'
import { consumeStored, destroyStored, purgeExpiredStored, storedBy, upsertStored, type StoredRow } from '../src/db/oauth-store.ts'
import { revokeGrant, REVOKE_REASONS } from '../src/domain/agent-grants.ts'
import { isClientIdUrl } from '../src/domain/client-id.ts'

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

type Row = StoredRow<StoredPayload>

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
      await upsertStored(db, this.model, id, payload, expires)
    }

    async find(id: string): Promise<StoredPayload | undefined> {
      if (clientDocument && this.model === 'Client' && isClientIdUrl(id)) return (await clientDocument(id)) ?? undefined
      return out(await storedBy(db, this.model, 'id', id))
    }

    async findByUid(uid: string): Promise<StoredPayload | undefined> {
      return out(await storedBy(db, this.model, 'uid', uid))
    }

    async findByUserCode(userCode: string): Promise<StoredPayload | undefined> {
      return out(await storedBy(db, this.model, 'user_code', userCode))
    }

    async consume(id: string): Promise<void> {
      // The first use is kept: a use within the grace must not extend it.
      await consumeStored(db, this.model, id)
    }

    async destroy(id: string): Promise<void> {
      await destroyStored(db, this.model, id)
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // The provider calls this only on reuse of a consumed refresh token or code (RFC 9700 section
      // 4.14.2); revocation by the workspace or the client goes through revokeGrant directly.
      await revokeGrant(db, grantId, REVOKE_REASONS.reuse, new Date())
    }
  }
}

/** Deletes expired provider rows; returns how many went. */
export async function purgeExpired(db: Sql): Promise<number> {
  return purgeExpiredStored(db)
}
