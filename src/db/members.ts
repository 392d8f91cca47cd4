// Queries of members (people in a workspace). Statements moved from src/ops verbatim.
import { sha256 } from '../crypto.ts'
import { newId } from '../ids.ts'
import type { Sql } from './sql.ts'

/** A person's role in a workspace (src/domain/rbac.ts gives each its permissions). */
export type MemberRole = 'owner' | 'admin' | 'member' | 'viewer'

export interface MemberRow {
  id: string
  tenant_id: string
  email: string
  role: MemberRole
  status: 'invited' | 'active'
  created_at: Date
  accepted_at: Date | null
}

/** An invitation's writer: the invite token (stored hashed), the role, the inviting key. */
type Invite = { token: string; role: MemberRole; p: { tenantId: string; keyId: string }; now: Date }

export async function memberById(sql: Sql, tenantId: string, id: string): Promise<MemberRow | undefined> {
  const [m] = await sql`select * from members where id = ${id} and tenant_id = ${tenantId}`
  return m as MemberRow | undefined
}

export async function membersOf(sql: Sql, p: { tenantId: string }): Promise<MemberRow[]> {
  return (await sql`select * from members where tenant_id = ${p.tenantId} order by id`) as MemberRow[]
}

/** The member (or invitation) with this email in the tenant, locked. */
export async function lockMemberByEmail(sql: Sql, p: { tenantId: string }, input: { email: string }): Promise<MemberRow | undefined> {
  const [existing] = await sql`select * from members where tenant_id = ${p.tenantId} and lower(email) = lower(${input.email}) for update`
  return existing as MemberRow | undefined
}

/** A pending invitation sent again: a new token, the role asked now. */
export async function reinvite(sql: Sql, existing: { id: string }, v: Invite): Promise<MemberRow> {
  const { token, role, p, now } = v
  const [m] = await sql`
        update members set invite_token_hash = ${sha256(token)}, role = ${role}, invited_by = ${p.keyId}, updated_at = ${now}
        where id = ${existing.id} returning *`
  return m as MemberRow
}

export async function insertInvitation(sql: Sql, v: Invite, input: { email: string }): Promise<MemberRow> {
  const { token, role, p, now } = v
  const [m] = await sql`
      insert into members (id, tenant_id, email, role, status, invite_token_hash, invited_by, created_at, updated_at)
      values (${newId('mem', now.getTime())}, ${p.tenantId}, ${input.email}, ${role}, 'invited', ${sha256(token)}, ${p.keyId}, ${now}, ${now})
      returning *`
  return m as MemberRow
}

/** The tenant's active owners, locked so two concurrent demotions cannot leave none. */
export async function lockActiveOwners(sql: Sql, p: { tenantId: string }): Promise<{ id: string }[]> {
  return (await sql`select id from members where tenant_id = ${p.tenantId} and role = 'owner' and status = 'active' for update`) as { id: string }[]
}

export async function setMemberRole(sql: Sql, m: { id: string }, input: { role: MemberRole }, now: Date): Promise<MemberRow> {
  const [u] = await sql`update members set role = ${input.role}, updated_at = ${now} where id = ${m.id} returning *`
  return u as MemberRow
}

/** The member (or invitation) with this id in the tenant, locked for a removal. */
export async function lockMember(sql: Sql, tenantId: string, id: string): Promise<MemberRow | undefined> {
  const [m] = await sql`select * from members where id = ${id} and tenant_id = ${tenantId} for update`
  return m as MemberRow | undefined
}

/** Removes a member or a pending invitation (its token goes with the row). */
export async function deleteMember(sql: Sql, m: { id: string }): Promise<void> {
  await sql`delete from members where id = ${m.id}`
}

/** The active API keys a member created: they belong to their application and outlive the member. */
export async function activeKeysCreatedBy(sql: Sql, m: { id: string; tenant_id: string }): Promise<{ id: string; application_id: string | null }[]> {
  return (await sql`
      select id, application_id from api_keys
      where tenant_id = ${m.tenant_id} and created_by = ${m.id} and revoked_at is null order by id`) as { id: string; application_id: string | null }[]
}

/** The invitation of a token, locked. */
export async function lockInvitation(sql: Sql, inviteToken: string): Promise<MemberRow | undefined> {
  const [m] = await sql`select * from members where invite_token_hash = ${sha256(inviteToken)} for update`
  return m as MemberRow | undefined
}

export async function acceptInvitation(sql: Sql, m: { id: string }, now: Date): Promise<MemberRow> {
  const [u] = await sql`update members set status = 'active', accepted_at = ${now}, updated_at = ${now} where id = ${m.id} returning *`
  return u as MemberRow
}

/** The owner a provisioning call names, active at once. */
export async function insertOwnerMember(sql: Sql, memberId: string, tenant: { id: string }, input: { owner_email: string }, now: Date): Promise<void> {
  await sql`
        insert into members (id, tenant_id, email, role, status, created_at, accepted_at, updated_at)
        values (${memberId}, ${tenant.id}, ${input.owner_email}, 'owner', 'active', ${now}, ${now}, ${now})`
}

/**
 * A person's new email in every workspace, except where the new address already belongs to another
 * member (listed in `skip`).
 */
export async function changeMemberEmail(sql: Sql, input: { old_email: string; new_email: string }, now: Date): Promise<{ updated: { id: string }[]; skip: string[] }> {
  const skipped = (await sql`
      select o.tenant_id from members o join members n on n.tenant_id = o.tenant_id and lower(n.email) = lower(${input.new_email})
      where lower(o.email) = lower(${input.old_email}) and o.id <> n.id`) as { tenant_id: string }[]
  const skip = skipped.map((s) => s.tenant_id)
  const updated = await sql`
      update members set email = ${input.new_email}, updated_at = ${now}
      where lower(email) = lower(${input.old_email}) and not (tenant_id = any(${skip}::text[]))
      returning id`
  return { updated: updated as { id: string }[], skip }
}
