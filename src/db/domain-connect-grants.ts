// Queries of Domain Connect grants: the tokens an asynchronous consent left Portico, sealed (the rules
// that use and refresh them are src/domain/domain-connect/async-api.ts).
import type { ConsentScope } from './domain-connect-sessions.ts'
import type { Sql } from './sql.ts'

/** What a consent is for (the connection, the provider's API, the templates it applies and where it returns), and its sealed tokens. */
export interface GrantRow extends ConsentScope {
  id: string
  access_token_sealed: string
  refresh_token_sealed: string | null
  access_expires_at: Date | null
}

/** The connection's live grant is revoked and this one kept in its place. */
export async function replaceGrant(sql: Sql, g: GrantRow, now: Date): Promise<void> {
  await sql`update domain_connect_grants set revoked_at = ${now}, updated_at = ${now} where connection_id = ${g.connection_id} and revoked_at is null`
  await sql`
    insert into domain_connect_grants (id, tenant_id, application_id, connection_id, dc_provider_id, url_api, template_provider_id, service_ids,
      apex, host, applies, redirect_uri, access_token_sealed, refresh_token_sealed, access_expires_at, created_at, updated_at)
    values (${g.id}, ${g.tenant_id}, ${g.application_id}, ${g.connection_id}, ${g.dc_provider_id}, ${g.url_api}, ${g.template_provider_id},
      ${g.service_ids}::text[], ${g.apex}, ${g.host}, ${g.applies}::jsonb, ${g.redirect_uri}, ${g.access_token_sealed},
      ${g.refresh_token_sealed}, ${g.access_expires_at}, ${now}, ${now})`
}

/** The live grant of a connection (tenant-scoped), if it has one. */
export async function liveGrantOfConnection(sql: Sql, tenantId: string, connectionId: string): Promise<GrantRow | undefined> {
  const [g] = await sql`select * from domain_connect_grants where connection_id = ${connectionId} and tenant_id = ${tenantId} and revoked_at is null`
  return g as GrantRow | undefined
}

/** A refreshed token pair, sealed. */
export async function setGrantTokens(db: Sql, g: { id: string }, t: Pick<GrantRow, 'access_token_sealed' | 'refresh_token_sealed' | 'access_expires_at'>, now: Date): Promise<void> {
  await db`
    update domain_connect_grants set access_token_sealed = ${t.access_token_sealed},
      refresh_token_sealed = ${t.refresh_token_sealed},
      access_expires_at = ${t.access_expires_at}, updated_at = ${now}
    where id = ${g.id}`
}

/** The grant is given up (its templates reverted at the provider). */
export async function revokeGrant(db: Sql, g: { id: string }, now: Date): Promise<void> {
  await db`update domain_connect_grants set revoked_at = ${now} where id = ${g.id} and revoked_at is null`
}
