// Queries of API keys: listing, minting, revoking, the lookup of a presented key. The rules about keys
// are in src/domain/tenancy.ts (minting) and src/http/auth.ts (lookup).
import { KEYS_CHANNEL, VALID_PREFIX } from './channels.ts'
import type { MemberRole } from './members.ts'
import type { Sql } from './sql.ts'

export interface KeyRow {
  id: string
  tenant_id: string
  application_id: string | null
  name: string | null
  prefix: string
  role: MemberRole
  is_default: boolean
  created_at: Date
  last_used_at: Date | null
  revoked_at: Date | null
}

/** The workspace's active default key, if it has one. */
export async function activeDefaultKey(sql: Sql, tenant: { id: string }): Promise<{ id: string; prefix: string } | undefined> {
  const [k] = await sql`select id, prefix from api_keys where tenant_id = ${tenant.id} and is_default and revoked_at is null`
  return k as { id: string; prefix: string } | undefined
}

export async function keysOfApplication(sql: Sql, p: { tenantId: string }, input: { id: string }): Promise<KeyRow[]> {
  return (await sql`
      select * from api_keys where tenant_id = ${p.tenantId} and application_id = ${input.id} order by id`) as KeyRow[]
}

/** The role of one of the application's keys; undefined when it has no such key. */
export async function keyRoleInApplication(sql: Sql, p: { tenantId: string }, input: { id: string; keyId: string }): Promise<MemberRole | undefined> {
  const [k] = await sql`select role from api_keys where id = ${input.keyId} and tenant_id = ${p.tenantId} and application_id = ${input.id}`
  return (k as { role: MemberRole } | undefined)?.role
}

/** Revokes a key (a revoked one keeps its first revocation time); undefined when it is not the application's. */
export async function revokeKey(
  sql: Sql,
  now: Date,
  p: { tenantId: string },
  input: { id: string; keyId: string },
): Promise<{ id: string; revoked_at: Date; key_hash: Uint8Array } | undefined> {
  const [k] = await sql`
      update api_keys set revoked_at = coalesce(revoked_at, ${now})
      where id = ${input.keyId} and tenant_id = ${p.tenantId} and application_id = ${input.id}
      returning id, revoked_at, key_hash`
  return k as { id: string; revoked_at: Date; key_hash: Uint8Array } | undefined
}

/** Tells every process's key cache (src/adapters/key-cache.ts) to evict the key, when the transaction commits. */
export async function notifyKeyRevoked(sql: Sql, hex: string): Promise<void> {
  await sql`select pg_notify(${KEYS_CHANNEL}, ${hex})`
}

/** A new key; undefined when it is a default key and the tenant has a live one already. */
export async function insertKey(
  sql: Sql,
  k: { id: string; tenant_id: string; application_id: string | null; role: MemberRole; name: string | null; prefix: string; key_hash: Buffer; is_default: boolean; created_by: string | null; created_at: Date },
): Promise<KeyRow | undefined> {
  const rows = await sql`
    insert into api_keys (id, tenant_id, application_id, role, name, prefix, key_hash, is_default, created_by, created_at)
    values (${k.id}, ${k.tenant_id}, ${k.application_id}, ${k.role}, ${k.name}, ${k.prefix}, ${k.key_hash},
            ${k.is_default}, ${k.created_by}, ${k.created_at})
    on conflict (tenant_id) where is_default and revoked_at is null do nothing
    returning *`
  return rows[0] as KeyRow | undefined
}

/** The live key with this hash: who it acts for. */
export async function liveKeyByHash(db: Sql, hash: Buffer): Promise<{ id: string; tenant_id: string; role: MemberRole; application_id: string | null } | undefined> {
  const rows = await db`
    select id, tenant_id, role, application_id from api_keys
    where key_hash = ${hash} and revoked_at is null`
  return rows[0] as { id: string; tenant_id: string; role: MemberRole; application_id: string | null } | undefined
}

export async function markKeyUsed(db: Sql, keyId: string, now: Date): Promise<void> {
  await db`update api_keys set last_used_at = ${now} where id = ${keyId}`
}

/** Hashes (hex) of the live keys used since `since`, most recent first: the failure throttle knows them valid from the start. */
/**
 * Every credential valid now, by the SHA-256 (hex) Portico stores of it: live API keys, applications'
 * client secrets (and a previous one inside its overlap), pending invitations, unused sign-in links, share links.
 * Read at start into the failure throttle's known set, so none is refused for its neighbours' failures
 * before its first use on this process (src/domain/throttle.ts).
 */
export async function validCredentialHashes(db: Sql, now: Date, limit: number): Promise<string[]> {
  const rows = await db`
    (select encode(key_hash, 'hex') as hex from api_keys where revoked_at is null order by last_used_at desc nulls last limit ${limit})
    union all (select encode(client_secret_hash, 'hex') from applications limit ${limit})
    union all (select encode(previous_client_secret_hash, 'hex') from applications where previous_client_secret_hash is not null and previous_secret_until > ${now} limit ${limit})
    union all (select encode(invite_token_hash, 'hex') from members where invite_token_hash is not null and status = 'invited' limit ${limit})
    union all (select encode(token_hash, 'hex') from member_signins where used_at is null and expires_at > ${now} limit ${limit})
    union all (select token_hash from share_links where expires_at > ${now} limit ${limit})`
  return (rows as unknown as { hex: string }[]).map((r) => r.hex)
}

/** Tells every process a credential is now valid (its SHA-256, hex), when the transaction commits: its failure throttle knows it. */
export async function notifyValid(sql: Sql, hex: string): Promise<void> {
  await sql`select pg_notify(${KEYS_CHANNEL}, ${VALID_PREFIX + hex})`
}
