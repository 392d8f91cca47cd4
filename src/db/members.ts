// Queries of members (people in a workspace). Statements moved from src/ops verbatim.
import type { Sql } from './sql.ts'

/** The owner a provisioning call names, active at once. */
export async function insertOwnerMember(sql: Sql, memberId: string, tenant: { id: string }, input: { owner_email: string }, now: Date): Promise<void> {
  await sql`
        insert into members (id, tenant_id, email, role, status, created_at, accepted_at, updated_at)
        values (${memberId}, ${tenant.id}, ${input.owner_email}, 'owner', 'active', ${now}, ${now}, ${now})`
}

/**
 * A person's new email in every workspace, except where the new address already belongs to another
 * member (listed in `skip`).
 */
export async function changeMemberEmail(sql: Sql, input: { old_email: string; new_email: string }, now: Date): Promise<{ updated: { id: string }[]; skip: string[] }> {
  const skipped = (await sql`
      select o.tenant_id from members o join members n on n.tenant_id = o.tenant_id and lower(n.email) = lower(${input.new_email})
      where lower(o.email) = lower(${input.old_email}) and o.id <> n.id`) as { tenant_id: string }[]
  const skip = skipped.map((s) => s.tenant_id)
  const updated = await sql`
      update members set email = ${input.new_email}, updated_at = ${now}
      where lower(email) = lower(${input.old_email}) and not (tenant_id = any(${skip}::text[]))
      returning id`
  return { updated: updated as { id: string }[], skip }
}
