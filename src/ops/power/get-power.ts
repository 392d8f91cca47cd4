import { PowerSchema } from '../../domain/resource-schemas.ts'
import { connectionFor } from '../../domain/connections.ts'
import { powerOf } from '../../db/power.ts'
import { notFound } from '../../errors.ts'
import { powerOut } from '../../domain/power.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam } from '../schemas.ts'
import { power, TAG } from './shared.ts'

export const getPowerOp = defineOp({
  id: 'power.get',
  method: 'GET',
  path: '/connections/{id}/power',
  summary: 'How the edge serves a connection',
  description: '404 when the connection is not served through the edge.',
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:read',
  params: IdParam,
  response: PowerSchema,
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'read',
  async handler(ctx, input) {
    power(ctx)
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const p = await powerOf(ctx.sql, c.id)
    if (!p) throw notFound('This connection is not served through the edge')
    return powerOut(p, c.domain)
  },
})
