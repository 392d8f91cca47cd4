// Agents (CONTRACT.md section 4): the consent request a consent screen reads. The registration
// endpoint speaks RFC 7591 and lives in oauth/register.ts; the consent page in oauth/consent.ts.
import { Type } from '@sinclair/typebox'
import { loadConsentRequest } from '../domain/agent-consent.ts'
import { revokeGrant, REVOKE_REASONS, settleTenantGrants, GRANT_TTL_S } from '../domain/agent-grants.ts'
import { notFound } from '../errors.ts'
import { agentGrant, agentGrantsOf, lockAgentGrant, type GrantRow } from '../db/agent-grants.ts'
import { defineOp } from './registry.ts'
import { Input, Nullable, Out, Timestamp } from './schemas.ts'

const TAG = 'Agents'

export const ConsentRequestSchema = Out({
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uri: Type.String(),
  scopes: Type.Array(Type.String(), { description: 'Agent scopes asked for, e.g. `domains:read` (see GET /rbac `agent_scopes`)' }),
  state: Nullable(Type.String()),
  redirect_host: Type.String({ description: 'Where the person is sent after answering: the redirect URI\'s host, or its app scheme' }),
  verified: Type.Boolean({ description: 'The client name claims a brand and every redirect belongs to it' }),
  verified_as: Nullable(Type.String()),
  local: Type.Boolean({ description: 'Every redirect goes to loopback (an app on the person\'s own computer)' }),
  imitates: Nullable(Type.String({ description: 'The brand the name imitates; such a request cannot be approved' })),
  registration: Type.Literal('dynamic'),
  registered_at: Timestamp(),
  client_id_host: Nullable(Type.String({ description: 'Host of a URL client id; null for dynamically registered clients' })),
})

export const getConsentRequestOp = defineOp({
  id: 'agents.consent_request.get',
  method: 'GET',
  path: '/agent/consent-request/{id}',
  summary: 'Read an agent consent request',
  description:
    'What a consent screen shows before a person approves an agent: the client, where it redirects, the scopes asked for and the ' +
    'brand-imitation verdict. The unguessable id (from the authorization server\'s redirect to the consent page) is the capability; ' +
    'unknown, expired or already answered ids answer 404.',
  tag: TAG,
  auth: ['NONE'],
  guessable: true,
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: ConsentRequestSchema,
  errors: ['not_found'],
  kind: 'read',
  internal: true,
  async handler(ctx, input) {
    const request = await loadConsentRequest(ctx.sql, input.id)
    if (!request) throw notFound('Consent request not found')
    return request
  },
})

const AgentGrant = Out({
  id: Type.String(),
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  approved_by: Type.String({ description: 'The credential that approved it on the consent screen' }),
  approved_by_member: Nullable(Type.String({ description: 'The member behind that API key: removing them ends the grant, lowering their role narrows it' })),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
  created_at: Timestamp(),
  last_used_at: Nullable(Timestamp('Last request an agent token of this grant made (to the minute)')),
  expires_at: Timestamp('When the agent must ask a person again, unless revoked before'),
  revoked_at: Nullable(Timestamp()),
  revoked_reason: Nullable(
    Type.String({
      description: `Why the grant ended: ${Object.values(REVOKE_REASONS).map((r) => '`' + r + '`').join(', ')}`,
    }),
  ),
})

const grantOut = (g: GrantRow, now: Date) => {
  const expiresAt = new Date(g.created_at.getTime() + GRANT_TTL_S * 1000)
  return {
    id: g.id,
    client_id: g.client_id,
    client_name: g.client_name,
    redirect_uris: g.redirect_uris,
    scopes: g.scopes,
    approved_by: g.account_id,
    approved_by_member: g.approved_member_id,
    status: g.revoked_at ? (g.revoked_reason === REVOKE_REASONS.expired ? ('expired' as const) : ('revoked' as const)) : expiresAt <= now ? ('expired' as const) : ('active' as const),
    created_at: g.created_at,
    last_used_at: g.last_used_at,
    expires_at: expiresAt,
    revoked_at: g.revoked_at,
    revoked_reason: g.revoked_reason,
  }
}

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
