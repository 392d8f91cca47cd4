import { Type } from '@sinclair/typebox'
import { deleteSender, saveSender } from '../../db/email-senders.ts'
import { invalid } from '../../errors.ts'
import { encrypt } from '../../crypto.ts'
import { defineOp } from '../registry.ts'
import { Email, IdParam, Input } from '../schemas.ts'
import { EmailSender, PURPOSE, senderOf, senderOut, TlsMode, verifySender } from './shared.ts'

export const putEmailSenderOp = defineOp({
  id: 'applications.email_sender.put',
  method: 'PUT',
  path: '/applications/{id}/email-sender',
  summary: 'Save an application\'s SMTP sender, verified by a real SMTP conversation',
  description:
    'Saves the settings and verifies them at once (connect, TLS as asked, authenticate); the answer carries `verified_at` or ' +
    '`last_error`. `smtp_password` is write-only: omit it to keep the saved one. `mode: "default"` alone returns to the ' +
    'service\'s own sender. The host is resolved and refused when it points at a private or loopback address.',
  tag: 'Console',
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  body: Input({
    mode: Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('smtp')])),
    smtp_host: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    smtp_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    smtp_username: Type.Optional(Type.String({ maxLength: 200 })),
    smtp_password: Type.Optional(Type.String({ maxLength: 500 })),
    tls: Type.Optional(TlsMode),
    from_address: Type.Optional(Email),
    from_name: Type.Optional(Type.String({ maxLength: 200 })),
    reply_to: Type.Optional(Email),
  }),
  response: EmailSender,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const existing = await senderOf(ctx, input.id)
    const p = ctx.principal
    if (input.mode === 'default') {
      await ctx.tx((tx) => deleteSender(tx, input.id))
      return senderOut(input.id, undefined)
    }
    const missing = (['smtp_host', 'smtp_port', 'tls', 'from_address'] as const).filter((f) => input[f] === undefined)
    if (missing.length) throw invalid('SMTP settings are incomplete', missing.map((field) => ({ in: 'body', field, message: 'is required' })))
    const password = input.smtp_password !== undefined ? encrypt(ctx.config.secretsKey, input.smtp_password, PURPOSE) : (existing?.password_sealed ?? null)
    const settings = { smtp_host: input.smtp_host!.toLowerCase(), smtp_port: input.smtp_port!, smtp_username: input.smtp_username ?? null, password_sealed: password, tls: input.tls! }
    const check = await verifySender(ctx, settings)
    const now = ctx.clock.now()
    const row = await ctx.tx((tx) => saveSender(tx, input, p, settings, password, check, now))
    ctx.audit.details = { smtp_host: settings.smtp_host, verified: check.ok }
    return senderOut(input.id, row)
  },
})
