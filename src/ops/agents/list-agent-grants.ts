import { Type } from '@sinclair/typebox'
import { settleTenantGrants } from '../../domain/agent-grants.ts'
import { agentGrantsOf } from '../../db/agent-grants.ts'
import { defineOp } from '../registry.ts'
import { Out } from '../schemas.ts'
import { AgentGrant, grantOut, TAG } from './shared.ts'

export const listAgentGrantsOp = defineOp({
  id: 'agents.grants.list',
  method: 'GET',
  path: '/agent-grants',
  summary: 'List the agents people approved',
  description:
    'Every grant a person approved on the consent screen for this workspace, newest first, ended ones included: one live grant per ' +
    'person and client (approving the same client again, as a step-up does, widens its `scopes`). `status`, ' +
    '`last_used_at`, `expires_at`, and for a revoked grant `revoked_at` and `revoked_reason`. Grants whose approving key was revoked ' +
    'or member removed show as revoked; a lowered approver role shows as narrowed `scopes`.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:read',
  response: Out({ grants: Type.Array(AgentGrant), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx) {
    const p = ctx.principal
    const now = ctx.clock.now()
    await settleTenantGrants(ctx.sql, p.tenantId, now)
    const rows = await agentGrantsOf(ctx.sql, p.tenantId)
    return { grants: rows.map((g) => grantOut(g, now)), count: rows.length }
  },
})
