// Queries of the grants people gave agents: listing, locking, revoking and settling them (the rules
// are src/domain/agent-grants.ts).
import type { MemberRole } from './members.ts'
import type { Sql } from './sql.ts'

export interface GrantRow {
  id: string
  client_id: string
  client_name: string
  redirect_uris: string[]
  scopes: string[]
  account_id: string
  approved_member_id: string | null
  created_at: Date
  last_used_at: Date | null
  revoked_at: Date | null
  revoked_reason: string | null
  /** The approving member's email address, when a member approved it. */
  approver_email: string | null
}

const GRANT_COLUMNS = 'g.id, g.client_id, c.client_name, c.redirect_uris, g.scopes, g.account_id, g.approved_member_id, g.created_at, g.last_used_at, g.revoked_at, g.revoked_reason, m.email as approver_email'

export async function agentGrantsOf(sql: Sql, tenantId: string): Promise<GrantRow[]> {
  return (await sql`
      select ${sql.unsafe(GRANT_COLUMNS)}
      from agent_grants g join agent_clients c on c.client_id = g.client_id
      left join members m on m.id = g.approved_member_id and m.tenant_id = g.tenant_id
      where g.tenant_id = ${tenantId} order by g.created_at desc, g.id`) as GrantRow[]
}

/** Locks the tenant's grant for a change; false when it is not the tenant's. */
export async function lockAgentGrant(sql: Sql, id: string, tenantId: string): Promise<boolean> {
  const [found] = await sql`select id from agent_grants where id = ${id} and tenant_id = ${tenantId} for update`
  return !!found
}

export async function agentGrant(sql: Sql, id: string): Promise<GrantRow | undefined> {
  const [g] = (await sql`
      select ${sql.unsafe(GRANT_COLUMNS)}
      from agent_grants g join agent_clients c on c.client_id = g.client_id
      left join members m on m.id = g.approved_member_id and m.tenant_id = g.tenant_id where g.id = ${id}`) as GrantRow[]
  return g
}

/** The live grants a member approved, locked (they end when the member is removed). */
export async function liveGrantsApprovedBy(sql: Sql, tenantId: string, memberId: string): Promise<{ id: string }[]> {
  return (await sql`
      select id from agent_grants
      where tenant_id = ${tenantId} and approved_member_id = ${memberId} and revoked_at is null
      order by id for update`) as { id: string }[]
}

/**
 * Ends a grant (the first time and reason are kept), and with it every other live grant the same person
 * gave the same client (one grant per person and client; older rows may predate that rule), and deletes
 * the authorization server's artefacts of them all: every token the client holds from that person ends.
 */
export async function endGrant(db: Sql, grantId: string, reason: string, now: Date): Promise<void> {
  const ended = (await db`
    update agent_grants g set revoked_at = coalesce(g.revoked_at, ${now}), revoked_reason = coalesce(g.revoked_reason, ${reason})
    from agent_grants t
    where t.id = ${grantId} and (g.id = t.id or (g.tenant_id = t.tenant_id and g.client_id = t.client_id and g.account_id = t.account_id and g.revoked_at is null))
    returning g.id`) as { id: string }[]
  const ids = ended.length ? ended.map((r) => r.id) : [grantId]
  await db`delete from oauth_store where grant_id = any(${ids}::text[]) or (model = 'Grant' and id = any(${ids}::text[]))`
}

/** The person's live grant for a client, locked for a change (there is at most one: agent_grants_one_live). */
export async function liveGrantOfAgent(tx: Sql, a: { tenantId: string; clientId: string; accountId: string }): Promise<{ id: string; scopes: string[]; created_at: Date } | undefined> {
  // Two approvals at once for the same person and client: the second waits, then widens the first's.
  await tx`select pg_advisory_xact_lock(hashtextextended(${`agent grant|${a.tenantId}|${a.clientId}|${a.accountId}`}, 0))`
  const [g] = await tx`
    select id, scopes, created_at from agent_grants
    where tenant_id = ${a.tenantId} and client_id = ${a.clientId} and account_id = ${a.accountId} and revoked_at is null
    for update`
  return g as { id: string; scopes: string[]; created_at: Date } | undefined
}

/** A grant the same person approved again, with more scopes. */
export async function widenAgentGrant(tx: Sql, id: string, scopes: string[]): Promise<void> {
  await tx`update agent_grants set scopes = ${scopes}::text[] where id = ${id} and revoked_at is null`
}

/** A grant with what its approver holds now: the key's role and revocation, the member's role and status. */
export interface AgentGrantState {
  id: string
  tenant_id: string
  account_id: string
  client_id: string
  scopes: string[]
  revoked_at: Date | null
  key_role: MemberRole | null
  key_revoked_at: Date | null
  approved_member_id: string | null
  member_role: MemberRole | null
  member_status: string | null
}

/** One grant's state, or every live grant's of a tenant. */
export async function grantStates(db: Sql, where: { grantId: string } | { tenantId: string }): Promise<AgentGrantState[]> {
  return (await db`
  select g.id, g.tenant_id, g.account_id, g.client_id, g.scopes, g.revoked_at, g.approved_member_id,
         k.role as key_role, k.revoked_at as key_revoked_at, m.role as member_role, m.status as member_status
  from agent_grants g
  left join api_keys k on k.id = g.account_id and k.tenant_id = g.tenant_id
  left join members m on m.id = g.approved_member_id and m.tenant_id = g.tenant_id
  where ${'grantId' in where ? db`g.id = ${where.grantId}` : db`g.tenant_id = ${where.tenantId} and g.revoked_at is null`}`) as AgentGrantState[]
}

export async function narrowGrantScopes(db: Sql, g: { id: string }, scopes: string[]): Promise<void> {
  await db`update agent_grants set scopes = ${scopes}::text[] where id = ${g.id} and revoked_at is null`
}

export async function markGrantUsed(db: Sql, grantId: string, now: Date): Promise<void> {
  await db`update agent_grants set last_used_at = ${now} where id = ${grantId}`
}

/** Marks the agent's live grants: their next refresh goes to the person for `scopes`. */
export async function setStepUp(db: Sql, agent: { tenantId: string; clientId: string; subject: string }, scopes: string[], now: Date): Promise<void> {
  await db`
    update agent_grants set step_up_scopes = ${scopes}::text[], step_up_at = ${now}
    where tenant_id = ${agent.tenantId} and client_id = ${agent.clientId} and account_id = ${agent.subject} and revoked_at is null`
}

/** Takes a step-up asked for after `since`, once: its scopes, or null. */
export async function takeStepUpScopes(db: Sql, grantId: string, since: Date): Promise<string[] | null> {
  const [row] = await db`
    update agent_grants set step_up_at = null
    where id = ${grantId} and step_up_at > ${since}
    returning step_up_scopes`
  return (row?.step_up_scopes as string[] | undefined) ?? null
}

export async function insertAgentGrant(
  tx: Sql,
  g: { id: string; tenant_id: string; client_id: string; account_id: string; approved_member_id: string | null; scopes: string[] },
  now: Date,
): Promise<void> {
  await tx`
      insert into agent_grants (id, tenant_id, client_id, account_id, approved_member_id, scopes, created_at)
      values (${g.id}, ${g.tenant_id}, ${g.client_id}, ${g.account_id}, ${g.approved_member_id}, ${g.scopes}::text[], ${now})`
}

export async function isGrantOfTenant(db: Sql, id: string, tenantId: string): Promise<boolean> {
  return (await db`select 1 from agent_grants where id = ${id} and tenant_id = ${tenantId}`).length > 0
}
