// Queries of the grants people gave agents, as the API lists and revokes them; revoking itself and the
// authorization server's side are in oauth/grants.ts.
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
