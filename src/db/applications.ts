// Queries of applications. Statements moved from src/ops verbatim; tenant-scoped reads that refuse a
// foreign id are in src/domain/tenancy.ts (getApplicationInTenant).
import type { KeyEnvironment } from '../domain/secrets.ts'
import type { ApplicationRow } from '../domain/tenancy.ts'
import type { Sql } from './sql.ts'

/** The workspace's first application (the default key belongs to it). */
export async function firstApplication(sql: Sql, tenant: { id: string }): Promise<{ id: string; environment: KeyEnvironment } | undefined> {
  const [app] = await sql`select id, environment from applications where tenant_id = ${tenant.id} order by id limit 1`
  return app as { id: string; environment: KeyEnvironment } | undefined
}

/** Any workspace's application (the management key's reads). */
export async function applicationById(sql: Sql, id: string): Promise<ApplicationRow | undefined> {
  const [a] = await sql`select * from applications where id = ${id}`
  return a as ApplicationRow | undefined
}

export async function applicationsOfTenant(sql: Sql, tenantId: string): Promise<ApplicationRow[]> {
  return (await sql`select * from applications where tenant_id = ${tenantId} order by id`) as ApplicationRow[]
}

/** What a widget-token request proves itself with: the application's client secret hash. */
export async function applicationSecret(sql: Sql, id: string): Promise<{ id: string; tenant_id: string; client_secret_hash: Uint8Array } | undefined> {
  const [app] = await sql`select id, tenant_id, client_secret_hash from applications where id = ${id}`
  return app as { id: string; tenant_id: string; client_secret_hash: Uint8Array } | undefined
}
