import { Type } from '@sinclair/typebox'
import { randomToken } from '../../ids.ts'
import { insertInvitation, lockMemberByEmail, reinvite, type MemberRow } from '../../db/members.ts'
import { refuseFirst, type Refusal } from '../checks.ts'
import { defineOp, reply } from '../registry.ts'
import { Email, Input, Member, RoleSchema } from '../schemas.ts'
import { publishValid } from '../tenancy/shared.ts'
import { keyPrincipal, memberOut } from './shared.ts'

/** What an invitation is judged on: the role asked for, the inviter's, and the member already holding the email. */
interface InviteFacts {
  role: string
  inviter: string
  existing: MemberRow | undefined
}

/** Every refusal of an invitation, answered in order (src/ops/checks.ts). */
export const INVITE_REFUSALS: readonly Refusal<InviteFacts>[] = [
  { when: ({ role, inviter }) => role === 'owner' && inviter !== 'owner', code: 'forbidden', title: 'Only an owner can invite an owner' },
  { when: ({ existing }) => existing?.status === 'active', code: 'conflict', title: 'This person is already a member' },
  { when: ({ existing, inviter }) => existing?.role === 'owner' && inviter !== 'owner', code: 'forbidden', title: 'Only an owner can change an owner invitation' },
]

export const inviteMemberOp = defineOp({
  id: 'members.invite',
  method: 'POST',
  path: '/members',
  summary: 'Invite a member',
  description:
    'Admins and owners only; only an owner may invite an owner. Answers 201 with the Member and its `invite_token` (shown once). ' +
    'Inviting an email that is still only invited answers 200 with a fresh token (the old one stops working); inviting an active member is 409.',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:manage',
  body: Input({ email: Email, role: Type.Optional(RoleSchema) }),
  response: Member,
  status: 201,
  altStatus: [{ status: 200, description: 'Re-invitation of a pending member with a fresh token' }],
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'conflict'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    const role = input.role ?? 'member'
    const existing = await lockMemberByEmail(ctx.sql, p, input)
    refuseFirst(INVITE_REFUSALS, { role, inviter: p.role, existing })
    const token = `inv_${randomToken(24)}`
    const now = ctx.clock.now()
    if (existing) {
      const m = await reinvite(ctx.sql, existing, { token, role, p, now })
      await publishValid(ctx, token)
      ctx.audit.targetId = existing.id
      return reply(200, memberOut(m, token))
    }
    const m = await insertInvitation(ctx.sql, { token, role, p, now }, input)
    await publishValid(ctx, token)
    return memberOut(m, token)
  },
})
