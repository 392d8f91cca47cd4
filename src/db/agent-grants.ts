// Queries of the grants people gave agents, as the API lists and revokes them. Statements moved from
// src/ops/agents.ts verbatim; the authorization server's side is oauth/.
import type { Sql } from './sql.ts'

export interface GrantRow {
  id: string
  client_id: string
  client_name: string
  redirect_uris: string[]
  scopes: string[]
  account_id: string
  created_at: Date
  revoked_at: Date | null
}

export async function agentGrantsOf(sql: Sql, p: { tenantId: string }): Promise<GrantRow[]> {
  return (await sql`
      select g.id, g.client_id, c.client_name, c.redirect_uris, g.scopes, g.account_id, g.created_at, g.revoked_at
      from agent_grants g join agent_clients c on c.client_id = g.client_id
      where g.tenant_id = ${p.tenantId} order by g.created_at desc, g.id`) as GrantRow[]
}

/**
 * Revokes a grant (a revoked one keeps its first time) with the authorization server's own artefacts
 * of it (refresh tokens, codes); undefined when it is not the tenant's.
 */
export async function revokeAgentGrant(sql: Sql, now: Date, input: { id: string }, p: { tenantId: string }): Promise<GrantRow | undefined> {
  const [g] = (await sql`
      with g as (
        update agent_grants set revoked_at = coalesce(revoked_at, ${now})
        where id = ${input.id} and tenant_id = ${p.tenantId}
        returning *
      )
      select g.id, g.client_id, c.client_name, c.redirect_uris, g.scopes, g.account_id, g.created_at, g.revoked_at
      from g join agent_clients c on c.client_id = g.client_id`) as GrantRow[]
  if (!g) return undefined
  await sql`delete from oauth_store where grant_id = ${g.id}`
  return g
}
