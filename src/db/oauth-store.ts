// Queries of the authorization server's store (oauth/adapter.ts: oidc-provider's adapter, one table for
// every model), its signing keys, the refresh answers kept in front of it (oauth/refresh.ts) and the
// DPoP proofs seen (src/http/dpop.ts). The provider's
// expiry is real time and its adapter interface carries no clock, so these statements read the
// database's own time, as they always have.
import type { Sql } from './sql.ts'

export type StoredRow<P> = { payload: P; consumed_at: Date | null }

export async function upsertStored(db: Sql, model: string, id: string, payload: { grantId?: string; uid?: string; userCode?: string }, expires: Date | null): Promise<void> {
  await db`
        insert into oauth_store (model, id, payload, grant_id, uid, user_code, expires_at)
        values (${model}, ${id}, ${payload}::jsonb, ${payload.grantId ?? null}, ${payload.uid ?? null}, ${payload.userCode ?? null}, ${expires})
        on conflict (model, id) do update set
          payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
          user_code = excluded.user_code, expires_at = excluded.expires_at`
}

/** An unexpired stored item of `model`, by its id, uid or user code. */
export async function storedBy<P>(db: Sql, model: string, key: 'id' | 'uid' | 'user_code', value: string): Promise<StoredRow<P> | undefined> {
  const [row] =
    key === 'id'
      ? await db`
        select payload, consumed_at from oauth_store
        where model = ${model} and id = ${value} and (expires_at is null or expires_at > now())`
      : key === 'uid'
        ? await db`
        select payload, consumed_at from oauth_store
        where model = ${model} and uid = ${value} and (expires_at is null or expires_at > now())`
        : await db`
        select payload, consumed_at from oauth_store
        where model = ${model} and user_code = ${value} and (expires_at is null or expires_at > now())`
  return row as StoredRow<P> | undefined
}

/** Marks the item used (the first time is kept). */
export async function consumeStored(db: Sql, model: string, id: string): Promise<void> {
  await db`update oauth_store set consumed_at = coalesce(consumed_at, now()) where model = ${model} and id = ${id}`
}

export async function destroyStored(db: Sql, model: string, id: string): Promise<void> {
  await db`delete from oauth_store where model = ${model} and id = ${id}`
}

/** Deletes expired items; how many went. */
export async function purgeExpiredStored(db: Sql): Promise<number> {
  const rows = await db`delete from oauth_store where expires_at < now() returning 1`
  return rows.length
}

/** A refresh token's successor has not been used yet (it is stored and unconsumed). */
export async function refreshTokenUnused(db: Sql, id: string): Promise<boolean> {
  return (await db`select 1 from oauth_store where model = 'RefreshToken' and id = ${id} and consumed_at is null`).length > 0
}

/** The answer kept for a refresh token (claimed first, answered once the authorization server answered). */
export interface RefreshOutcome {
  claimed_at: Date
  answered_at: Date | null
  status: number | null
  sealed: string | null
  successor: string | null
  jkt: string | null
  grant_id: string | null
  client_id: string | null
}

/** Claims a refresh token for one request: new, or a stale unanswered claim taken over; false when another holds it. */
export async function claimRefresh(
  db: Sql,
  c: { token_hash: Buffer; grant_id: string; client_id: string },
  t: { now: Date; expires: Date; staleBefore: Date },
): Promise<boolean> {
  return (
    await db`
        insert into oauth_refresh_outcomes (token_hash, grant_id, client_id, claimed_at, expires_at)
        values (${c.token_hash}, ${c.grant_id}, ${c.client_id}, ${t.now}, ${t.expires})
        on conflict (token_hash) do update set claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
          where oauth_refresh_outcomes.answered_at is null and oauth_refresh_outcomes.claimed_at < ${t.staleBefore}
        returning 1`
  ).length > 0
}

export async function refreshOutcome(db: Sql, tokenHash: Buffer): Promise<RefreshOutcome | undefined> {
  const [row] = (await db`select * from oauth_refresh_outcomes where token_hash = ${tokenHash}`) as RefreshOutcome[]
  return row
}

/** An unanswered claim is given up (the next request tries itself). */
export async function dropRefreshClaim(db: Sql, tokenHash: Buffer): Promise<void> {
  await db`delete from oauth_refresh_outcomes where token_hash = ${tokenHash} and answered_at is null`
}

export async function keepRefreshAnswer(
  db: Sql,
  tokenHash: Buffer,
  a: { answered_at: Date; status: number; sealed: string; successor: string | null; jkt: string | null; expires_at: Date },
): Promise<void> {
  await db`
    update oauth_refresh_outcomes set answered_at = ${a.answered_at}, status = ${a.status}, sealed = ${a.sealed},
      successor = ${a.successor}, jkt = ${a.jkt},
      expires_at = ${a.expires_at}
    where token_hash = ${tokenHash}`
}

/** Forgets answers whose grace has passed; how many went. */
export async function purgeRefreshAnswers(db: Sql): Promise<number> {
  return (await db`delete from oauth_refresh_outcomes where expires_at < now() returning 1`).length
}

/** Registered clients deleted (unapproved ones past their time). */
export async function deleteStoredClients(tx: Sql, ids: string[]): Promise<void> {
  await tx`delete from oauth_store where model = 'Client' and id = any(${ids}::text[])`
}

/** The grant and client of a stored refresh token. */
export async function refreshTokenGrant(db: Sql, token: string): Promise<{ grant_id: string | null; client_id: string } | undefined> {
  const [row] = await db`select grant_id, payload->>'clientId' as client_id from oauth_store where model = 'RefreshToken' and id = ${token}`
  return row as { grant_id: string | null; client_id: string } | undefined
}

/** An unexpired consent interaction with its client's name, redirect URIs and registration time. */
export async function pendingInteraction(sql: Sql, id: string) {
  const [row] = await sql`
    select i.payload as interaction, c.client_name, c.redirect_uris, c.created_at
    from oauth_store i
    join agent_clients c on c.client_id = i.payload->'params'->>'client_id'
    where i.model = 'Interaction' and i.id = ${id} and i.expires_at > now()`
  return row as { interaction: unknown; client_name: string; redirect_uris: string[]; created_at: Date } | undefined
}

/** The authorization server's signing keys, sealed; null before the first start. */
export async function sealedSigningKeys(db: Sql): Promise<string | null> {
  const [row] = await db`select sealed from oauth_keys where id = 'signing'`
  return row ? (row.sealed as string) : null
}

/** Keeps the signing keys unless another process kept its own first. */
export async function insertSigningKeys(db: Sql, sealed: string, now: Date): Promise<void> {
  await db`insert into oauth_keys (id, sealed, created_at) values ('signing', ${sealed}, ${now}) on conflict (id) do nothing`
}

/** Notes a DPoP proof (RFC 9449) until `expires`; false when it was presented before. */
export async function noteProof(db: Sql, jkt: string, jti: string, expires: Date): Promise<boolean> {
  const fresh = await db`insert into dpop_proofs (jkt, jti, expires_at) values (${jkt}, ${jti}, ${expires}) on conflict do nothing returning 1`
  return fresh.length > 0
}

/** Forgets proofs whose window has passed; how many went. */
export async function purgeSpentProofs(db: Sql): Promise<number> {
  return (await db`delete from dpop_proofs where expires_at < now() returning 1`).length
}
