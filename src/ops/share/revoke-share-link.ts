import { Type } from '@sinclair/typebox'
import { connectionFor } from '../../domain/connections.ts'
import { deleteShareLink } from '../../db/share-links.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { Input, Out } from '../schemas.ts'
import { TAG } from './shared.ts'

export const revokeShareLinkOp = defineOp({
  id: 'share.revoke',
  method: 'DELETE',
  path: '/connections/{id}/share-links/{linkId}',
  summary: 'End a share link',
  description: 'The link answers 404 from now on, as an expired one; the connection and its other links stay as they are.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100 }), linkId: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: Out({ id: Type.String(), revoked: Type.Literal(true) }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  zone: 'none',
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    if (!(await deleteShareLink(ctx.sql, c.id, input.linkId))) throw notFound('Share link not found')
    ctx.audit.targetId = input.linkId
    ctx.audit.details = { domain: c.domain }
    return { id: input.linkId, revoked: true as const }
  },
})
