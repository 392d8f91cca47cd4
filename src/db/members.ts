// Queries of members (people in a workspace). Statements moved from src/ops verbatim.
import type { Sql } from './sql.ts'

/** The owner a provisioning call names, active at once. */
export async function insertOwnerMember(sql: Sql, memberId: string, tenant: { id: string }, input: { owner_email: string }, now: Date): Promise<void> {
  await sql`
        insert into members (id, tenant_id, email, role, status, created_at, accepted_at, updated_at)
        values (${memberId}, ${tenant.id}, ${input.owner_email}, 'owner', 'active', ${now}, ${now}, ${now})`
}
