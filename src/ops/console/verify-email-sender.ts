import { notFound } from '../../errors.ts'
import { recordSenderCheck } from '../../db/email-senders.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input } from '../schemas.ts'
import { EmailSender, senderOf, senderOut, verifySender } from './shared.ts'

export const verifyEmailSenderOp = defineOp({
  id: 'applications.email_sender.verify',
  method: 'POST',
  path: '/applications/{id}/email-sender:verify',
  summary: 'Verify the saved SMTP sender again',
  tag: 'Console',
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: EmailSender,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const existing = await senderOf(ctx, input.id)
    if (!existing) throw notFound('No SMTP sender is saved for this application')
    const check = await verifySender(ctx, existing)
    const now = ctx.clock.now()
    const row = await ctx.tx((tx) => recordSenderCheck(tx, input, existing, check, now))
    return senderOut(input.id, row)
  },
})
