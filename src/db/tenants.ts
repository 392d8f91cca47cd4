// Queries of tenants (workspaces); src/domain/tenancy.ts keeps the rules.
import type { Sql } from './sql.ts'

export interface TenantRow {
  id: string
  name: string
  plan_id: string
  created_at: Date
  updated_at: Date
}

export async function tenantById(sql: Sql, id: string): Promise<TenantRow | undefined> {
  const [t] = await sql`select * from tenants where id = ${id}`
  return t as TenantRow | undefined
}

export async function insertTenant(sql: Sql, id: string, name: string, now: Date): Promise<TenantRow> {
  const [t] = await sql`
    insert into tenants (id, name, created_at, updated_at)
    values (${id}, ${name}, ${now}, ${now}) returning *`
  return t as TenantRow
}
