// Queries of people signing in as themselves (oauth/people.ts): the links mailed to them, taken once,
// and the sessions they start. Only hashes of links and sessions are stored.
import type { MemberRole } from './members.ts'
import type { Sql } from './sql.ts'

/** The active memberships of an email address (any case), oldest first, with the workspace's name. */
export async function activeMemberships(db: Sql, address: string, limit: number) {
  return (await db`
    select m.id, m.tenant_id, m.email, t.name as workspace from members m join tenants t on t.id = m.tenant_id
    where lower(m.email) = ${address} and m.status = 'active' order by m.created_at limit ${limit}`) as { id: string; tenant_id: string; email: string; workspace: string }[]
}

export async function insertSignIn(db: Sql, l: { token_hash: Buffer; member_id: string; tenant_id: string; next_path: string; expires_at: Date; asked_from: Buffer | null }, now: Date): Promise<void> {
  await db`
      insert into member_signins (token_hash, member_id, tenant_id, next_path, created_at, expires_at, asked_from)
      values (${l.token_hash}, ${l.member_id}, ${l.tenant_id}, ${l.next_path}, ${now}, ${l.expires_at}, ${l.asked_from})`
}

/** What an unused, unexpired link of an active member would sign in. */
export async function unusedSignIn(db: Sql, tokenHash: Buffer, now: Date) {
  const [row] = await db`
    select m.email, t.name as workspace, s.next_path, s.asked_from from member_signins s
    join members m on m.id = s.member_id and m.status = 'active' join tenants t on t.id = s.tenant_id
    where s.token_hash = ${tokenHash} and s.used_at is null and s.expires_at > ${now}`
  return row as { email: string; workspace: string; next_path: string; asked_from: Uint8Array | null } | undefined
}

/** Uses an unused, unexpired link up; undefined when there is none. */
export async function useSignInLink(db: Sql, tokenHash: Buffer, now: Date) {
  const [row] = await db`
    update member_signins set used_at = ${now}
    where token_hash = ${tokenHash} and used_at is null and expires_at > ${now}
    returning member_id, tenant_id, next_path`
  return row as { member_id: string; tenant_id: string; next_path: string } | undefined
}

export async function insertSession(db: Sql, s: { token_hash: Buffer; member_id: string; tenant_id: string; expires_at: Date }, now: Date): Promise<void> {
  await db`
    insert into member_sessions (token_hash, member_id, tenant_id, created_at, expires_at)
    values (${s.token_hash}, ${s.member_id}, ${s.tenant_id}, ${now}, ${s.expires_at})`
}

/** The active member of a live session, with the workspace's name and its first application's branding. */
export async function sessionMember(db: Sql, tokenHash: Buffer, now: Date) {
  const [row] = await db`
    select m.id, m.tenant_id, m.email, m.role, t.name as workspace,
      (select a.branding from applications a where a.tenant_id = t.id and a.branding is not null order by a.created_at, a.id limit 1) as branding
    from member_sessions s
    join members m on m.id = s.member_id and m.tenant_id = s.tenant_id and m.status = 'active' join tenants t on t.id = s.tenant_id
    where s.token_hash = ${tokenHash} and s.expires_at > ${now}`
  return row as { id: string; tenant_id: string; email: string; role: MemberRole; workspace: string; branding: unknown } | undefined
}

export async function deleteSession(db: Sql, tokenHash: Buffer): Promise<void> {
  await db`delete from member_sessions where token_hash = ${tokenHash}`
}

/** Forgets expired links and sessions; how many went. */
export async function purgeExpired(db: Sql, now: Date): Promise<number> {
  const a = await db`delete from member_signins where expires_at < ${now} returning 1`
  const b = await db`delete from member_sessions where expires_at < ${now} returning 1`
  return a.length + b.length
}
