import { Type } from '@sinclair/typebox'
import { PowerSchema } from '../../domain/resource-schemas.ts'
import { connectionFor } from '../../domain/connections.ts'
import { powerOut, savePower } from '../../domain/power.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input, Nullable } from '../schemas.ts'
import { power, TAG } from './shared.ts'

export const putPowerOp = defineOp({
  id: 'power.put',
  method: 'PUT',
  path: '/connections/{id}/power',
  summary: 'Serve a connection through the edge',
  description:
    'The edge reverse-proxies the domain to `origin_url` (http or https; resolved when saved and refused when it points at a ' +
    'private, loopback, link-local or metadata address; the edge connects to the address that was checked, with the origin\'s Host ' +
    'and TLS name). `redirect_to_www` (apex domains) answers the apex with a 301 to www, which is served. `root_path` serves the ' +
    'origin from that path (`/` on the domain is `<origin>/<root_path>/`). The route goes on the edge at once for a live connection ' +
    '(`status: active`), else when it goes live; each change emits `power_status`. Saving the same settings again answers the same.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  body: Input({
    origin_url: Type.String({ minLength: 1, maxLength: 2000 }),
    redirect_to_www: Type.Optional(Type.Boolean()),
    root_path: Type.Optional(Nullable(Type.String({ maxLength: 500, pattern: '^/?[A-Za-z0-9._~!$&\'()*+,;=:@%/-]*$' }))),
  }),
  response: PowerSchema,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = power(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const p = await savePower(deps, c, input)
    ctx.audit.details = { origin_url: p.origin_url, redirect_to_www: p.redirect_to_www }
    return powerOut(p, c.domain)
  },
})
