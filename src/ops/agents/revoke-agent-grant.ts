import { Type } from '@sinclair/typebox'
import { agentGrant, lockAgentGrant } from '../../db/agent-grants.ts'
import { notFound } from '../../errors.ts'
import { REVOKE_REASONS, revokeGrant } from '../../domain/agent-grants.ts'
import { defineOp } from '../registry.ts'
import { Input } from '../schemas.ts'
import { AgentGrant, grantOut, TAG } from './shared.ts'

export const revokeAgentGrantOp = defineOp({
  id: 'agents.grants.revoke',
  method: 'DELETE',
  path: '/agent-grants/{id}',
  summary: 'Revoke an agent grant',
  description:
    'Every access token the client holds from the person who approved it stops working on its next request and its refresh tokens are ' +
    'deleted, so it must ask a person again; ' +
    'the same as the agent revoking either of its tokens (RFC 7009). `revoked_reason` is `revoked_by_workspace`. ' +
    'Revoking a revoked grant answers 200 again, with the first time and reason.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:manage',
  params: Input({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: AgentGrant,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const p = ctx.principal
    if (!(await lockAgentGrant(ctx.sql, input.id, p.tenantId))) throw notFound('Agent grant not found')
    // The authorization server's own artefacts of the grant (refresh tokens, codes) go with it.
    await revokeGrant(ctx.sql, input.id, REVOKE_REASONS.workspace, ctx.clock.now())
    ctx.audit.targetId = input.id
    return grantOut((await agentGrant(ctx.sql, input.id))!, ctx.clock.now())
  },
})
