// Tenancy rules free of HTTP: tenants, applications, API keys. Every read of a tenant-owned row goes
// through a `...InTenant` helper so no query forgets the tenant id; a foreign id is "not found".
import type { Sql } from '../db/sql.ts'
import { applicationInTenant, insertApplication, type ApplicationRow, type KeyEnvironment } from '../db/applications.ts'
import { insertKey, type KeyRow } from '../db/api-keys.ts'
import { insertTenant, tenantById, type TenantRow } from '../db/tenants.ts'
import type { MemberRole } from './rbac.ts'
import { notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { isoTime } from '../json.ts'
import { brandingOut } from './branding.ts'
import { newApiKey, newClientSecret } from './secrets.ts'

export const tenantOut = (t: TenantRow) => ({ id: t.id, name: t.name, plan_id: t.plan_id, created_at: t.created_at, updated_at: t.updated_at })

// Timestamps leave as the ISO strings the answer carries: a Date in an answer makes JSON.stringify take
// its slow path for the whole answer (several microseconds on a cached read).
export const applicationOut = (a: ApplicationRow) => ({
  id: a.id,
  tenant_id: a.tenant_id,
  name: a.name,
  environment: a.environment,
  branding: brandingOut(a.branding),
  created_at: isoTime(a.created_at),
  updated_at: isoTime(a.updated_at),
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
  const t = await tenantById(sql, id)
  if (!t) throw notFound('Tenant not found')
  return t
}

export async function createTenant(sql: Sql, name: string, now: Date): Promise<TenantRow> {
  return insertTenant(sql, newId('ten', now.getTime()), name, now)
}

export async function getApplicationInTenant(sql: Sql, tenantId: string, id: string): Promise<ApplicationRow> {
  const a = await applicationInTenant(sql, tenantId, id)
  if (!a) throw notFound('Application not found')
  return a
}

export async function createApplication(
  sql: Sql,
  tenantId: string,
  name: string,
  environment: KeyEnvironment,
  now: Date,
): Promise<{ app: ApplicationRow; clientSecret: string }> {
  const { secret, hash } = newClientSecret()
  const app = await insertApplication(sql, { id: newId('app', now.getTime()), tenant_id: tenantId, name, environment, client_secret_hash: hash }, now)
  return { app, clientSecret: secret }
}

export async function createKey(
  sql: Sql,
  o: { tenantId: string; applicationId: string | null; environment: KeyEnvironment; role: MemberRole; name: string | null; isDefault: boolean; createdBy: string | null; now: Date },
): Promise<{ row: KeyRow; key: string } | null> {
  const { key, prefix, hash } = newApiKey(o.environment)
  const row = await insertKey(sql, {
    id: newId('key', o.now.getTime()),
    tenant_id: o.tenantId,
    application_id: o.applicationId,
    role: o.role,
    name: o.name,
    prefix,
    key_hash: hash,
    is_default: o.isDefault,
    created_by: o.createdBy,
    created_at: o.now,
  })
  return row ? { row, key } : null
}
