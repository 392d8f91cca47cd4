import { defineOp } from '../registry.ts'
import { IdParam } from '../schemas.ts'
import { EmailSender, senderOf, senderOut } from './shared.ts'

export const getEmailSenderOp = defineOp({
  id: 'applications.email_sender.get',
  method: 'GET',
  path: '/applications/{id}/email-sender',
  summary: 'Read an application\'s email sender',
  tag: 'Console',
  auth: ['KEY'],
  permission: 'app:read',
  params: IdParam,
  response: EmailSender,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  handler: async (ctx, input) => senderOut(input.id, await senderOf(ctx, input.id)),
})
