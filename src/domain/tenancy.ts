// Tenancy rules free of HTTP: tenants, applications, API keys. Every read of a tenant-owned row goes
// through a `...InTenant` helper so no query forgets the tenant id; a foreign id is "not found".
import type { Sql } from '../db/sql.ts'
import type { ApplicationRow } from '../db/applications.ts'
import type { KeyRow } from '../db/api-keys.ts'
import type { MemberRole } from './rbac.ts'
import { notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { brandingOut } from './branding.ts'
import { newApiKey, newClientSecret } from './secrets.ts'
import { type KeyEnvironment } from '../db/applications.ts'

export interface TenantRow {
  id: string
  name: string
  plan_id: string
  created_at: Date
  updated_at: Date
}

export const tenantOut = (t: TenantRow) => ({ id: t.id, name: t.name, plan_id: t.plan_id, created_at: t.created_at, updated_at: t.updated_at })

export const applicationOut = (a: ApplicationRow) => ({
  id: a.id,
  tenant_id: a.tenant_id,
  name: a.name,
  environment: a.environment,
  branding: brandingOut(a.branding),
  created_at: a.created_at,
  updated_at: a.updated_at,
})

export const keyOut = (k: KeyRow) => ({
  id: k.id,
  application_id: k.application_id,
  name: k.name,
  prefix: k.prefix,
  role: k.role,
  is_default: k.is_default,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
  revoked_at: k.revoked_at,
})

export async function getTenant(sql: Sql, id: string): Promise<TenantRow> {
  const [t] = await sql`select * from tenants where id = ${id}`
  if (!t) throw notFound('Tenant not found')
  return t as TenantRow
}

export async function createTenant(sql: Sql, name: string, now: Date): Promise<TenantRow> {
  const [t] = await sql`
    insert into tenants (id, name, created_at, updated_at)
    values (${newId('ten', now.getTime())}, ${name}, ${now}, ${now}) returning *`
  return t as TenantRow
}

export async function getApplicationInTenant(sql: Sql, tenantId: string, id: string): Promise<ApplicationRow> {
  const [a] = await sql`select * from applications where id = ${id} and tenant_id = ${tenantId}`
  if (!a) throw notFound('Application not found')
  return a as ApplicationRow
}

export async function createApplication(
  sql: Sql,
  tenantId: string,
  name: string,
  environment: KeyEnvironment,
  now: Date,
): Promise<{ app: ApplicationRow; clientSecret: string }> {
  const { secret, hash } = newClientSecret()
  const [a] = await sql`
    insert into applications (id, tenant_id, name, environment, client_secret_hash, created_at, updated_at)
    values (${newId('app', now.getTime())}, ${tenantId}, ${name}, ${environment}, ${hash}, ${now}, ${now})
    returning *`
  return { app: a as ApplicationRow, clientSecret: secret }
}

export async function createKey(
  sql: Sql,
  o: { tenantId: string; applicationId: string | null; environment: KeyEnvironment; role: MemberRole; name: string | null; isDefault: boolean; createdBy: string | null; now: Date },
): Promise<{ row: KeyRow; key: string } | null> {
  const { key, prefix, hash } = newApiKey(o.environment)
  const rows = await sql`
    insert into api_keys (id, tenant_id, application_id, role, name, prefix, key_hash, is_default, created_by, created_at)
    values (${newId('key', o.now.getTime())}, ${o.tenantId}, ${o.applicationId}, ${o.role}, ${o.name}, ${prefix}, ${hash},
            ${o.isDefault}, ${o.createdBy}, ${o.now})
    on conflict (tenant_id) where is_default and revoked_at is null do nothing
    returning *`
  const row = rows[0] as KeyRow | undefined
  return row ? { row, key } : null
}
