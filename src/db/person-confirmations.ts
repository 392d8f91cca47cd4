// Queries of a person's confirmations of what an agent asked to do (src/domain/person-confirm.ts).
import type { Sql } from './sql.ts'

export interface ConfirmationRow {
  id: string
  tenant_id: string
  client_id: string
  subject: string
  connection_id: string
  action: 'disconnect' | 'apply'
  domain: string
  summary: Record<string, unknown>
  fingerprint: string
  created_at: Date
  expires_at: Date
  confirmed_at: Date | null
  confirmed_by: string | null
  confirmed_via: string | null
  used_at: Date | null
}

export interface AgentRef {
  tenantId: string
  clientId: string
  subject: string
}

export interface ConfirmationAsk {
  connectionId: string
  action: 'disconnect' | 'apply'
  domain: string
  summary: Record<string, unknown>
  fingerprint: string
}

/** The only way a yes counts: given on the confirmation page by the person signed in as themselves. */
export const CONFIRMED_ON_PAGE = 'link'

/** A yes the person gave on the confirmation page for this very ask, not used yet and not expired. */
export async function confirmedFor(sql: Sql, agent: AgentRef, ask: ConfirmationAsk, now: Date): Promise<ConfirmationRow | undefined> {
  const [r] = await sql`
    select * from person_confirmations
    where tenant_id = ${agent.tenantId} and client_id = ${agent.clientId} and subject = ${agent.subject}
      and connection_id = ${ask.connectionId} and action = ${ask.action} and fingerprint = ${ask.fingerprint}
      and confirmed_at is not null and confirmed_via = ${CONFIRMED_ON_PAGE} and used_at is null and expires_at > ${now}
    order by confirmed_at desc limit 1`
  return r as ConfirmationRow | undefined
}

/** The open question for this ask (not answered, not expired), or a new one. */
export async function openConfirmation(sql: Sql, id: string, agent: AgentRef, ask: ConfirmationAsk, now: Date, ttlMs: number): Promise<ConfirmationRow> {
  const [open] = await sql`
    select * from person_confirmations
    where tenant_id = ${agent.tenantId} and client_id = ${agent.clientId} and subject = ${agent.subject}
      and connection_id = ${ask.connectionId} and action = ${ask.action} and fingerprint = ${ask.fingerprint}
      and confirmed_at is null and expires_at > ${now}
    order by created_at desc limit 1`
  if (open) return open as ConfirmationRow
  const [r] = await sql`
    insert into person_confirmations (id, tenant_id, client_id, subject, connection_id, action, domain, summary, fingerprint, created_at, expires_at)
    values (${id}, ${agent.tenantId}, ${agent.clientId}, ${agent.subject}, ${ask.connectionId}, ${ask.action}, ${ask.domain}, ${ask.summary}::jsonb,
      ${ask.fingerprint}, ${now}, ${new Date(now.getTime() + ttlMs)})
    returning *`
  return r as ConfirmationRow
}

export async function confirmationById(sql: Sql, id: string): Promise<ConfirmationRow | undefined> {
  const [r] = await sql`select * from person_confirmations where id = ${id}`
  return r as ConfirmationRow | undefined
}

/** Records the person's yes on the confirmation page (once; a later yes keeps the first); the yes lasts `ttlMs` from now. */
export async function markConfirmed(sql: Sql, id: string, by: string, now: Date, ttlMs: number): Promise<ConfirmationRow | undefined> {
  const [r] = await sql`
    update person_confirmations set confirmed_at = ${now}, confirmed_by = ${by}, confirmed_via = ${CONFIRMED_ON_PAGE}, expires_at = ${new Date(now.getTime() + ttlMs)}
    where id = ${id} and confirmed_at is null and used_at is null and expires_at > ${now}
    returning *`
  return r as ConfirmationRow | undefined
}

/** The person's no: the question closes. */
export async function markRefused(sql: Sql, id: string, now: Date): Promise<void> {
  await sql`update person_confirmations set expires_at = ${now} where id = ${id} and confirmed_at is null`
}

/** Uses the yes up: true once. */
export async function useConfirmation(sql: Sql, id: string, now: Date): Promise<boolean> {
  return (await sql`update person_confirmations set used_at = ${now} where id = ${id} and used_at is null returning 1`).length > 0
}
