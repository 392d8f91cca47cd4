import { lockActiveOwners, memberById, type MemberRow, setMemberRole } from '../../db/members.ts'
import { ApiError, notFound } from '../../errors.ts'
import { type Ctx, defineOp } from '../registry.ts'
import { IdParam, Input, Member, RoleSchema } from '../schemas.ts'
import { keyPrincipal, memberOut } from './shared.ts'

async function memberInTenant(ctx: Ctx, tenantId: string, id: string): Promise<MemberRow> {
  const m = await memberById(ctx.sql, tenantId, id)
  if (!m) throw notFound('Member not found')
  return m
}

export const updateMemberOp = defineOp({
  id: 'members.update',
  method: 'PATCH',
  path: '/members/{id}',
  summary: 'Change a member\'s role',
  description: 'Admins and owners only. Only an owner may make someone an owner or change an owner\'s role (403); the last owner cannot be demoted (400).',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:manage',
  params: IdParam,
  body: Input({ role: RoleSchema }),
  response: Member,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    const m = await memberInTenant(ctx, p.tenantId, input.id)
    if ((input.role === 'owner' || m.role === 'owner') && m.role !== input.role && p.role !== 'owner') {
      throw new ApiError('forbidden', 'Only an owner can create or demote an owner')
    }
    if (m.role === 'owner' && input.role !== 'owner' && m.status === 'active') {
      // Lock the tenant's owners so two concurrent demotions cannot leave none.
      const owners = await lockActiveOwners(ctx.sql, p)
      if (owners.length <= 1) throw new ApiError('invalid_request', 'A workspace keeps at least one owner')
    }
    const u = await setMemberRole(ctx.sql, m, input, ctx.clock.now())
    ctx.audit.details = { from: m.role, to: input.role }
    return memberOut(u)
  },
})
