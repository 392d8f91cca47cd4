import { Type } from '@sinclair/typebox'
import { acceptInvitation, lockInvitation } from '../../db/members.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { Input, Member } from '../schemas.ts'
import { memberOut } from './shared.ts'

export const acceptMemberOp = defineOp({
  id: 'members.accept',
  method: 'POST',
  path: '/members:accept',
  summary: 'Accept an invitation',
  description: 'Authenticated by the invitation token in the body. Accepting again with the same token answers the same member (idempotent); an unknown token is 404.',
  tag: 'Tokens and members',
  auth: ['NONE'],
  guessable: true,
  body: Input({ invite_token: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: Member,
  errors: ['invalid_request', 'not_found'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const m = await lockInvitation(ctx.sql, input.invite_token)
    if (!m) throw notFound('Invitation not found')
    ctx.audit = { tenantId: m.tenant_id, targetId: m.id }
    if (m.status === 'active') return memberOut(m)
    const u = await acceptInvitation(ctx.sql, m, ctx.clock.now())
    return memberOut(u)
  },
})
