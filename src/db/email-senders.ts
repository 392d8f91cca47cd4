// Queries of applications' SMTP senders (the operations: src/ops/console/*-email-sender.ts).
import type { Sql } from './sql.ts'

export interface SenderRow {
  application_id: string
  smtp_host: string
  smtp_port: number
  smtp_username: string | null
  password_sealed: string | null
  tls: 'implicit' | 'starttls' | 'none'
  from_address: string
  from_name: string | null
  reply_to: string | null
  verified_at: Date | null
  last_error: string | null
  last_error_at: Date | null
  updated_at: Date
}

export async function senderOfApplication(sql: Sql, appId: string): Promise<SenderRow | undefined> {
  const [r] = await sql`select * from email_senders where application_id = ${appId}`
  return r as SenderRow | undefined
}

export async function deleteSender(sql: Sql, appId: string): Promise<void> {
  await sql`delete from email_senders where application_id = ${appId}`
}

type Check = { ok: true } | { ok: false; error: string }

/** Saves (or replaces) the sender with the outcome of its check. */
export async function saveSender(
  sql: Sql,
  input: { id: string; from_address?: string; from_name?: string; reply_to?: string },
  p: { tenantId: string },
  settings: Pick<SenderRow, 'smtp_host' | 'smtp_port' | 'smtp_username' | 'tls'>,
  password: string | null,
  check: Check,
  now: Date,
): Promise<SenderRow> {
  const [row] = await sql`
      insert into email_senders (application_id, tenant_id, smtp_host, smtp_port, smtp_username, password_sealed, tls, from_address, from_name,
        reply_to, verified_at, last_error, last_error_at, updated_at)
      values (${input.id}, ${p.tenantId}, ${settings.smtp_host}, ${settings.smtp_port}, ${settings.smtp_username}, ${password}, ${settings.tls},
        ${input.from_address!}, ${input.from_name ?? null}, ${input.reply_to ?? null}, ${check.ok ? now : null},
        ${check.ok ? null : check.error}, ${check.ok ? null : now}, ${now})
      on conflict (application_id) do update set smtp_host = excluded.smtp_host, smtp_port = excluded.smtp_port,
        smtp_username = excluded.smtp_username, password_sealed = excluded.password_sealed, tls = excluded.tls,
        from_address = excluded.from_address, from_name = excluded.from_name, reply_to = excluded.reply_to,
        verified_at = excluded.verified_at, last_error = excluded.last_error, last_error_at = excluded.last_error_at, updated_at = excluded.updated_at
      returning *`
  return row as SenderRow
}

/** Records a new check of the saved sender; a failed check keeps the last verification time. */
export async function recordSenderCheck(sql: Sql, input: { id: string }, existing: Pick<SenderRow, 'verified_at' | 'last_error_at'>, check: Check, now: Date): Promise<SenderRow> {
  const [row] = await sql`
      update email_senders set verified_at = ${check.ok ? now : existing.verified_at}, last_error = ${check.ok ? null : check.error},
        last_error_at = ${check.ok ? existing.last_error_at : now}, updated_at = ${now}
      where application_id = ${input.id} returning *`
  return row as SenderRow
}

/** The workspace's sender to mail people through: its most recently verified SMTP sender. */
export async function verifiedSenderOfTenant(sql: Sql, tenantId: string): Promise<SenderRow | undefined> {
  const [r] = await sql`select * from email_senders where tenant_id = ${tenantId} and verified_at is not null order by verified_at desc, application_id limit 1`
  return r as SenderRow | undefined
}
