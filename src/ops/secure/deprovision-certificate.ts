import { Type } from '@sinclair/typebox'
import { connectionFor } from '../../domain/connections.ts'
import { deprovisionCertificate } from '../../domain/certificates.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Out, Timestamp } from '../schemas.ts'
import { secure, TAG } from './shared.ts'

export const deprovisionCertificateOp = defineOp({
  id: 'ssl.deprovision',
  method: 'DELETE',
  path: '/connections/{id}/ssl',
  summary: 'Deprovision the certificate',
  description:
    'Takes the certificate off the edge and marks it `removed` (`secure_status: removed`). While the connection is live and pointed at ' +
    'the edge, the edge sweep issues a new one; disconnect the connection to stop serving it. 404 when none is tracked.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  response: Out({ certificate: Out({ id: Type.String(), status: Type.Literal('removed'), updated_at: Timestamp() }) }),
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'destroy',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = secure(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const removed = await deprovisionCertificate(deps, c)
    if (!removed) throw notFound('No certificate is tracked for this connection')
    ctx.audit.targetId = removed.id
    return { certificate: { id: removed.id, status: 'removed' as const, updated_at: removed.updated_at } }
  },
})
