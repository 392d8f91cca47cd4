import { Type } from '@sinclair/typebox'
import { changeMemberEmail } from '../../db/members.ts'
import { defineOp } from '../registry.ts'
import { Email, Input, Out } from '../schemas.ts'

export const emailChangedOp = defineOp({
  id: 'members.email_changed',
  method: 'POST',
  path: '/members:email-changed',
  summary: 'A person changed their email: update their member records everywhere',
  description:
    'Console server only. Every member record with `old_email` (case ignored), in every workspace, takes `new_email`. A workspace ' +
    'where `new_email` already belongs to a member is left as it is and listed in `skipped` (merging two members is a decision for a person).',
  tag: 'Console',
  auth: ['PROV'],
  body: Input({ old_email: Email, new_email: Email }),
  response: Out({ updated: Type.Integer(), skipped: Type.Array(Type.String({ description: 'Tenant ids left unchanged' })) }),
  errors: ['invalid_request', 'unauthorized'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const { updated, skip } = await changeMemberEmail(ctx.sql, input, ctx.clock.now())
    ctx.audit.details = { updated: updated.length, skipped: skip }
    return { updated: updated.length, skipped: skip }
  },
})
