import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { loadConsentRequest } from '../../domain/agent-consent.ts'
import { notFound } from '../../errors.ts'
import { Input, Nullable, Out, Timestamp } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { TAG } from './shared.ts'

export const ConsentRequestSchema = named('ConsentRequest', Out({
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
}))

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
