import { Type } from '@sinclair/typebox'
import { CertificateSchema } from '../../domain/resource-schemas.ts'
import { certificatesInScope } from '../../db/certificates.ts'
import { certificateOut } from '../../domain/certificates.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { Out } from '../schemas.ts'
import { secure, TAG } from './shared.ts'

export const listCertificatesOp = defineOp({
  id: 'ssl.list',
  method: 'GET',
  path: '/ssl',
  summary: 'Certificates of the application',
  description: 'Every tracked certificate of the caller\'s application (a widget token), or of the workspace (an API key), newest first.',
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: APP_ONLY,
  permission: 'connections:read',
  response: Out({ certificates: Type.Array(CertificateSchema) }),
  errors: ['unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'read',
  async handler(ctx) {
    secure(ctx)
    const p = ctx.principal
    const app = p.kind === 'WIDGET' ? p.applicationId : null
    const rows = await certificatesInScope(ctx.sql, p, app)
    return { certificates: rows.map(certificateOut) }
  },
})
