// Queries of agent clients: those that registered (RFC 7591, oauth/register.ts) and those that name a
// client ID metadata document (oauth/client-metadata.ts); a client is approved once a person consents.
import type { Sql } from './sql.ts'

/** Registrations since `since`: all of them, the address's and the prefix's, each with its oldest. */
export async function registrationsSince(tx: Sql, ip: string | null, prefix: string | null, since: Date): Promise<Record<string, number | Date | null>> {
  const [c] = await tx`
    select count(*)::int as all_n, min(created_at) as all_oldest,
      (count(*) filter (where ip is not distinct from ${ip}))::int as address_n, min(created_at) filter (where ip is not distinct from ${ip}) as address_oldest,
      (count(*) filter (where ip_prefix is not distinct from ${prefix}))::int as prefix_n, min(created_at) filter (where ip_prefix is not distinct from ${prefix}) as prefix_oldest
    from agent_clients where created_at > ${since}`
  return c as Record<string, number | Date | null>
}

export async function insertAgentClient(
  tx: Sql,
  c: { client_id: string; client_name: string; redirect_uris: string[]; ip: string | null; ip_prefix: string | null },
  now: Date,
): Promise<void> {
  await tx`
      insert into agent_clients (client_id, client_name, redirect_uris, ip, ip_prefix, created_at)
      values (${c.client_id}, ${c.client_name}, ${c.redirect_uris}::text[], ${c.ip}, ${c.ip_prefix}, ${now})`
}

/** A metadata-document client, kept as its document says now. */
export async function upsertDocumentClient(db: Sql, c: { client_id: string; client_name: string; redirect_uris: string[] }, now: Date): Promise<void> {
  await db`
      insert into agent_clients (client_id, client_name, redirect_uris, ip, created_at)
      values (${c.client_id}, ${c.client_name}, ${c.redirect_uris}::text[], ${null}, ${now})
      on conflict (client_id) do update set client_name = excluded.client_name, redirect_uris = excluded.redirect_uris
      where agent_clients.client_name is distinct from excluded.client_name or agent_clients.redirect_uris is distinct from excluded.redirect_uris`
}

/** Deletes clients never approved and registered before `cutoff`; their ids. */
export async function deleteUnapprovedClients(tx: Sql, cutoff: Date): Promise<string[]> {
  const rows = await tx`delete from agent_clients where approved_at is null and created_at < ${cutoff} returning client_id`
  return rows.map((r: { client_id: string }) => r.client_id)
}

export async function isAgentClient(db: Sql, clientId: string): Promise<boolean> {
  return (await db`select 1 from agent_clients where client_id = ${clientId}`).length > 0
}

export async function agentClientName(db: Sql, clientId: string): Promise<string | undefined> {
  const [c] = await db`select client_name from agent_clients where client_id = ${clientId}`
  return c?.client_name as string | undefined
}

/** A person consented: the client is approved (the first time is kept). */
export async function markClientApproved(tx: Sql, clientId: string, now: Date): Promise<void> {
  await tx`update agent_clients set approved_at = coalesce(approved_at, ${now}) where client_id = ${clientId}`
}
