import { Type } from '@sinclair/typebox'
import { connectionFor } from '../../domain/connections.ts'
import { certificateOut, importCertificate } from '../../domain/certificates.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input } from '../schemas.ts'
import { CertificateOut, secure, TAG } from './shared.ts'

export const importCertificateOp = defineOp({
  id: 'ssl.import',
  method: 'PUT',
  path: '/connections/{id}/ssl',
  summary: 'Import a certificate',
  description:
    'The customer\'s own certificate (PEM; intermediates after the leaf) and private key (PEM). Refused with 400 `invalid_request` when ' +
    'the key does not match (`key_mismatch`), the chain does not link up (`chain_broken`), the certificate has expired (`expired`) or ' +
    'is not yet valid, or it does not name the domain (`hostname_mismatch`); nothing is stored then. An imported certificate is not ' +
    'renewed by Portico (`managed: false`). Sending the same again answers the same certificate.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  body: Input({
    certificate: Type.String({ minLength: 1, maxLength: 100_000, description: 'PEM: the leaf first, then intermediates' }),
    private_key: Type.String({ minLength: 1, maxLength: 20_000, description: 'PEM private key; stored sealed, never returned' }),
  }),
  response: CertificateOut,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = secure(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const cert = await importCertificate(deps, c, input.certificate, input.private_key)
    ctx.audit.targetId = cert.id
    return { certificate: certificateOut(cert) }
  },
})
