import { connectionFor } from '../../domain/connections.ts'
import { certificateOf } from '../../db/certificates.ts'
import { notFound } from '../../errors.ts'
import { certificateOut } from '../../domain/certificates.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam } from '../schemas.ts'
import { CertificateOut, secure, TAG } from './shared.ts'

export const getCertificateOp = defineOp({
  id: 'ssl.get',
  method: 'GET',
  path: '/connections/{id}/ssl',
  summary: 'The certificate of a connection',
  description: '404 `not_found` when no certificate is tracked yet.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:read',
  permission: 'connections:read',
  params: IdParam,
  response: CertificateOut,
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'The certificate of a connected domain: whether it is issued, pending or failing, who issued it and when it expires. Answers not found until a certificate is tracked for the connection.',
    toolset: 'secure',
    output: ['certificate'],
  },
  async handler(ctx, input) {
    secure(ctx)
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const cert = await certificateOf(ctx.sql, c.id)
    if (!cert) throw notFound('No certificate is tracked for this connection yet')
    return { certificate: certificateOut(cert) }
  },
})
