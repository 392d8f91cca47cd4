// Console support (the API contract, sections 2 and 4): an application's email sender, browser push for the
// people of the console, and the member email change. Push and email-change are console-server
// routes (provision secret); the email sender belongs to the integrator (API key).
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { senderOfApplication, type SenderRow } from '../../db/email-senders.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { guardUrl } from '../../adapters/ssrf.ts'
import { addressResolver } from '../../domain/webhook-delivery.ts'
import { verifySmtp } from '../../adapters/email.ts'
import { decrypt } from '../../crypto.ts'
import { Nullable, Out, Timestamp } from '../schemas.ts'
import type { Ctx, TenantCtx } from '../registry.ts'

export const TlsMode = Type.Union([Type.Literal('implicit'), Type.Literal('starttls'), Type.Literal('none')], {
  description: '`implicit`: TLS from the first byte (port 465); `starttls`: upgrade required; `none`: plain (not for production mail)',
})

export const EmailSender = named('EmailSender', Out({
  application_id: Type.String(),
  mode: Type.Union([Type.Literal('default'), Type.Literal('smtp')], { description: '`default` when nothing is saved: the service\'s own sender' }),
  smtp_host: Type.Optional(Type.String()),
  smtp_port: Type.Optional(Type.Integer()),
  smtp_username: Type.Optional(Nullable(Type.String())),
  password_set: Type.Boolean({ description: 'The password is write-only and never returned' }),
  tls: Type.Optional(TlsMode),
  from_address: Type.Optional(Type.String()),
  from_name: Type.Optional(Nullable(Type.String())),
  reply_to: Type.Optional(Nullable(Type.String())),
  verified_at: Nullable(Timestamp()),
  last_error: Nullable(Type.String()),
  last_error_at: Nullable(Timestamp()),
  updated_at: Nullable(Timestamp()),
}))

export function senderOut(appId: string, r: SenderRow | undefined) {
  if (!r) return { application_id: appId, mode: 'default' as const, password_set: false, verified_at: null, last_error: null, last_error_at: null, updated_at: null }
  return {
    application_id: appId,
    mode: 'smtp' as const,
    smtp_host: r.smtp_host,
    smtp_port: r.smtp_port,
    smtp_username: r.smtp_username,
    password_set: r.password_sealed !== null,
    tls: r.tls,
    from_address: r.from_address,
    from_name: r.from_name,
    reply_to: r.reply_to,
    verified_at: r.verified_at,
    last_error: r.last_error,
    last_error_at: r.last_error_at,
    updated_at: r.updated_at,
  }
}

export const PURPOSE = 'smtp-password'

export async function senderOf(ctx: Pick<TenantCtx, 'principal' | 'sql'>, appId: string): Promise<SenderRow | undefined> {
  const p = ctx.principal
  await getApplicationInTenant(ctx.sql, p.tenantId, appId)
  return senderOfApplication(ctx.sql, appId)
}

/** A real SMTP conversation with the saved settings, to an address checked like any customer target. */
export async function verifySender(ctx: Pick<Ctx, 'config' | 'services'>, r: Pick<SenderRow, 'smtp_host' | 'smtp_port' | 'smtp_username' | 'password_sealed' | 'tls'>) {
  const guard = await guardUrl(`https://${r.smtp_host.includes(':') ? `[${r.smtp_host}]` : r.smtp_host}/`, {
    allowLoopback: ctx.config.webhookAllowLoopback,
    resolve: addressResolver(ctx.services.dns),
  })
  if (!guard.ok) return { ok: false as const, error: `refused: ${guard.reason}` }
  return verifySmtp({
    host: r.smtp_host,
    address: guard.address,
    port: r.smtp_port,
    username: r.smtp_username,
    password: r.password_sealed ? decrypt(ctx.config.secretsKey, r.password_sealed, PURPOSE) : null,
    tls: r.tls,
  })
}
