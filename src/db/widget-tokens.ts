// Queries of minted widget tokens (src/domain/widget-tokens.ts signs them; this keeps their ids so an
// integrator can list and revoke them). Only the JWT id and what the token was minted for are stored,
// never the token.
import type { Sql } from './sql.ts'

export interface WidgetTokenRow {
  id: string
  tenant_id: string
  application_id: string
  scope: string
  bound_host: string | null
  created_at: Date
  expires_at: Date
  revoked_at: Date | null
}

export async function insertWidgetToken(sql: Sql, t: Omit<WidgetTokenRow, 'revoked_at'>): Promise<void> {
  await sql`
    insert into widget_tokens (id, tenant_id, application_id, scope, bound_host, created_at, expires_at)
    values (${t.id}, ${t.tenant_id}, ${t.application_id}, ${t.scope}, ${t.bound_host}, ${t.created_at}, ${t.expires_at})`
}

/** The application's tokens not yet expired, newest first (revoked ones too, marked). */
export async function liveWidgetTokens(sql: Sql, tenantId: string, applicationId: string, now: Date, limit: number): Promise<WidgetTokenRow[]> {
  return (await sql`
    select * from widget_tokens where tenant_id = ${tenantId} and application_id = ${applicationId} and expires_at > ${now}
    order by created_at desc, id desc limit ${limit}`) as WidgetTokenRow[]
}

/** Revokes one (a revoked one keeps its first time); undefined when it is not the application's. */
export async function revokeWidgetToken(sql: Sql, tenantId: string, applicationId: string, id: string, now: Date): Promise<WidgetTokenRow | undefined> {
  const [row] = await sql`
    update widget_tokens set revoked_at = coalesce(revoked_at, ${now})
    where id = ${id} and tenant_id = ${tenantId} and application_id = ${applicationId} returning *`
  return row as WidgetTokenRow | undefined
}

/** Ids of revoked tokens not yet expired: what every process refuses. */
export async function revokedWidgetTokenIds(sql: Sql, now: Date): Promise<{ id: string; expires_at: Date }[]> {
  return (await sql`select id, expires_at from widget_tokens where revoked_at is not null and expires_at > ${now}`) as { id: string; expires_at: Date }[]
}

/** Forgets tokens an hour past their expiry; how many went. */
export async function purgeWidgetTokens(sql: Sql, now: Date): Promise<number> {
  return (await sql`delete from widget_tokens where expires_at < ${new Date(now.getTime() - 3600_000)} returning 1`).length
}
