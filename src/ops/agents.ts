// Agents (CONTRACT.md section 4): the consent request a consent screen reads. The registration
// endpoint speaks RFC 7591 and lives in oauth/register.ts; the consent page in oauth/consent.ts.
import { Type } from '@sinclair/typebox'
import { loadConsentRequest } from '../../oauth/consent.ts'
import { notFound } from '../errors.ts'
import { agentGrantsOf, revokeAgentGrant, type GrantRow } from '../db/agent-grants.ts'
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
  created_at: Timestamp(),
  revoked_at: Nullable(Timestamp()),
})

const grantOut = (g: GrantRow) => ({
  id: g.id,
  client_id: g.client_id,
  client_name: g.client_name,
  redirect_uris: g.redirect_uris,
  scopes: g.scopes,
  approved_by: g.account_id,
  created_at: g.created_at,
  revoked_at: g.revoked_at,
})

export const listAgentGrantsOp = defineOp({
  id: 'agents.grants.list',
  method: 'GET',
  path: '/agent-grants',
  summary: 'List the agents people approved',
  description: 'Every grant a person approved on the consent screen for this workspace, newest first, revoked ones included (with `revoked_at`).',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:read',
  response: Out({ grants: Type.Array(AgentGrant), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx) {
    const p = ctx.principal
    const rows = await agentGrantsOf(ctx.sql, p)
    return { grants: rows.map(grantOut), count: rows.length }
  },
})

export const revokeAgentGrantOp = defineOp({
  id: 'agents.grants.revoke',
  method: 'DELETE',
  path: '/agent-grants/{id}',
  summary: 'Revoke an agent grant',
  description:
    'The agent\'s access tokens stop working on their next request and its refresh tokens are deleted, so it must ask a person again. ' +
    'Revoking a revoked grant answers 200 again.',
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
    const g = await revokeAgentGrant(ctx.sql, ctx.clock.now(), input, p)
    if (!g) throw notFound('Agent grant not found')
    ctx.audit.targetId = g.id
    return grantOut(g)
  },
})
