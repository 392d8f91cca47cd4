import { Type } from '@sinclair/typebox'
import { signingPublication, templateOut } from '../../domain/templates.ts'
import { defineOp } from '../registry.ts'
import { Nullable, Out } from '../schemas.ts'
import { catalog } from './shared.ts'


export const listTemplatesOp = defineOp({
  id: 'templates.list',
  method: 'GET',
  path: '/templates',
  summary: 'One-click setup service templates',
  description:
    'The Domain Connect templates this deployment serves, loaded at start from `DOMAIN_CONNECT_TEMPLATES_DIR` (files in the public ' +
    'template format). A file that failed validation is listed under `rejected` with its name and reasons (it is also logged at ' +
    'start), never dropped silently. `signing` gives the TXT records to publish at `<key>.<syncPubKeyDomain>` so DNS Providers can ' +
    'verify signed apply URLs.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  response: Out({
    templates: Type.Array(Type.Object({}, { additionalProperties: true })),
    count: Type.Integer(),
    rejected: Type.Array(Out({ file: Type.String(), errors: Type.Array(Type.String()) })),
    ignored: Type.Array(Type.String(), { description: 'Files of the directory that are not `*.json`, not read as templates' }),
    signing: Nullable(Out({ key: Type.String(), algorithm: Type.String(), publish_at: Type.Array(Type.String()), txt: Type.Array(Type.String()) })),
  }),
  errors: ['service_unavailable'],
  kind: 'read',
  internal: true,
  async handler(ctx) {
    const c = catalog(ctx)
    const dc = ctx.config.domainConnect
    return { templates: c.templates.map(templateOut), count: c.templates.length, rejected: c.rejected, ignored: c.ignored, signing: signingPublication(dc.privateKeyPem, dc.keyHost, c.templates) }
  },
})
