import { Type } from '@sinclair/typebox'
import { activeKeysCreatedBy, deleteMember, lockActiveOwners, lockMember } from '../../db/members.ts'
import { ApiError, notFound } from '../../errors.ts'
import { liveGrantsApprovedBy } from '../../db/agent-grants.ts'
import { REVOKE_REASONS, revokeGrant } from '../../domain/agent-grants.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Member, Out } from '../schemas.ts'
import { keyPrincipal, memberOut } from './shared.ts'

export const removeMemberOp = defineOp({
  id: 'members.remove',
  method: 'DELETE',
  path: '/members/{id}',
  summary: 'Remove a member',
  description:
    'Admins and owners only; only an owner may remove an owner (403), and the last active owner cannot be removed (409). ' +
    'Removing a pending invitation cancels it (its token stops working). Every agent grant the member approved ends at once ' +
    '(`revoked_reason: approver_removed`): the agent\'s next call with its tokens is refused, and `ended_agent_grants` lists them. ' +
    'API keys the member created belong to their application and keep working; `api_keys_kept` lists them so they can be revoked ' +
    'too. Removing a removed member answers 404.',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:manage',
  params: IdParam,
  response: Out({
    ...Member.properties,
    removed: Type.Literal(true),
    ended_agent_grants: Type.Array(Type.String(), { description: 'Ids of the agent grants this member approved, now revoked' }),
    api_keys_kept: Type.Array(Out({ id: Type.String(), application_id: Type.Union([Type.String(), Type.Null()]) }), {
      description: 'Active API keys the member created, left working',
    }),
  }),
  errors: ['unauthorized', 'forbidden', 'not_found', 'conflict'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    const m = await lockMember(ctx.sql, p.tenantId, input.id)
    if (!m) throw notFound('Member not found')
    if (m.role === 'owner' && p.role !== 'owner') throw new ApiError('forbidden', 'Only an owner can remove an owner')
    if (m.role === 'owner' && m.status === 'active') {
      // Locked as for a demotion, so two concurrent removals cannot leave no owner.
      const owners = await lockActiveOwners(ctx.sql, p)
      if (owners.length <= 1) throw new ApiError('conflict', 'A workspace keeps at least one owner; make another member owner first')
    }
    const now = ctx.clock.now()
    const grants = await liveGrantsApprovedBy(ctx.sql, p.tenantId, m.id)
    for (const g of grants) await revokeGrant(ctx.sql, g.id, REVOKE_REASONS.approverRemoved, now)
    const kept = await activeKeysCreatedBy(ctx.sql, m)
    await deleteMember(ctx.sql, m)
    ctx.audit.targetId = m.id
    ctx.audit.details = { email: m.email, role: m.role, status: m.status, ended_agent_grants: grants.length }
    return { ...memberOut(m), removed: true as const, ended_agent_grants: grants.map((g) => g.id), api_keys_kept: kept }
  },
})
