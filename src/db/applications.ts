// Queries of applications; tenant-scoped reads that refuse a foreign id go through src/domain/tenancy.ts
// (getApplicationInTenant).
import type { Sql } from './sql.ts'

/** Live or test: the kind of keys an application mints (src/domain/secrets.ts). */
export type KeyEnvironment = 'live' | 'test'

/**
 * An application as read: every column but the client secret's hash, which only a widget-token
 * exchange reads (applicationSecret), named in each read below (a hash has no business travelling on
 * every read, and every column read is parsed on the hot path of authenticated reads).
 */
export interface ApplicationRow {
  id: string
  tenant_id: string
  name: string
  environment: KeyEnvironment
  cname_target: string | null
  apex_ipv4: string[]
  /** As stored (src/domain/branding.ts); null when none. */
  branding: unknown
  created_at: Date
  updated_at: Date
}

/** The workspace's first application (the default key belongs to it). */
export async function firstApplication(sql: Sql, tenant: { id: string }): Promise<{ id: string; environment: KeyEnvironment } | undefined> {
  const [app] = await sql`select id, environment from applications where tenant_id = ${tenant.id} order by id limit 1`
  return app as { id: string; environment: KeyEnvironment } | undefined
}

/** Any workspace's application (the management key's reads). */
export async function applicationById(sql: Sql, id: string): Promise<ApplicationRow | undefined> {
  const [a] = await sql`select id, tenant_id, name, environment, cname_target, apex_ipv4, branding, created_at, updated_at from applications where id = ${id}`
  return a as ApplicationRow | undefined
}

export async function applicationsOfTenant(sql: Sql, tenantId: string): Promise<ApplicationRow[]> {
  return (await sql`select id, tenant_id, name, environment, cname_target, apex_ipv4, branding, created_at, updated_at from applications where tenant_id = ${tenantId} order by id`) as ApplicationRow[]
}

export interface ApplicationSecretRow {
  id: string
  tenant_id: string
  client_secret_hash: Uint8Array
  previous_client_secret_hash: Uint8Array | null
  previous_secret_until: Date | null
}

/** What a widget-token request proves itself with: the application's client secret hash, and the previous one during its overlap. */
export async function applicationSecret(sql: Sql, id: string): Promise<ApplicationSecretRow | undefined> {
  const [app] = await sql`select id, tenant_id, client_secret_hash, previous_client_secret_hash, previous_secret_until from applications where id = ${id}`
  return app as ApplicationSecretRow | undefined
}

/** A new client secret; the current one stays valid until `previousUntil` (now: at once). Answers the previous secret's hash (hex), or null when no such application. */
export async function rotateClientSecret(sql: Sql, tenantId: string, id: string, hash: Buffer, previousUntil: Date, now: Date): Promise<string | null> {
  const rows = (await sql`
    update applications a set previous_client_secret_hash = a.client_secret_hash, previous_secret_until = ${previousUntil},
      client_secret_hash = ${hash}, updated_at = ${now}
    from (select id, client_secret_hash from applications where id = ${id} and tenant_id = ${tenantId} for update) old
    where a.id = old.id returning encode(old.client_secret_hash, 'hex') as previous`) as unknown as { previous: string }[]
  return rows[0]?.previous ?? null
}

/** Replaces the application's branding (null: none); answers the updated row. */
export async function setBranding(sql: Sql, id: string, tenantId: string, branding: object | null, now: Date): Promise<ApplicationRow> {
  const [a] = await sql`
    update applications set branding = ${branding}::jsonb, updated_at = ${now}
    where id = ${id} and tenant_id = ${tenantId} returning id, tenant_id, name, environment, cname_target, apex_ipv4, branding, created_at, updated_at`
  return a as ApplicationRow
}

/** The name and branding a page shows for an application: its own, and its workspace's name. */
export async function applicationFace(sql: Sql, id: string): Promise<{ name: string; branding: unknown; workspace: string } | undefined> {
  const [a] = await sql`select a.name, a.branding, t.name as workspace from applications a join tenants t on t.id = a.tenant_id where a.id = ${id}`
  return a as { name: string; branding: unknown; workspace: string } | undefined
}

/** A tenant's application by id; undefined for another tenant's. */
export async function applicationInTenant(sql: Sql, tenantId: string, id: string): Promise<ApplicationRow | undefined> {
  const [a] = await sql`select id, tenant_id, name, environment, cname_target, apex_ipv4, branding, created_at, updated_at from applications where id = ${id} and tenant_id = ${tenantId}`
  return a as ApplicationRow | undefined
}

export async function insertApplication(
  sql: Sql,
  a: { id: string; tenant_id: string; name: string; environment: KeyEnvironment; client_secret_hash: Buffer },
  now: Date,
): Promise<ApplicationRow> {
  const [row] = await sql`
    insert into applications (id, tenant_id, name, environment, client_secret_hash, created_at, updated_at)
    values (${a.id}, ${a.tenant_id}, ${a.name}, ${a.environment}, ${a.client_secret_hash}, ${now}, ${now})
    returning id, tenant_id, name, environment, cname_target, apex_ipv4, branding, created_at, updated_at`
  return row as ApplicationRow
}
