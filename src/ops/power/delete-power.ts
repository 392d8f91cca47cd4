import { PowerSchema } from '../../domain/resource-schemas.ts'
import { connectionFor } from '../../domain/connections.ts'
import { powerOut, removePower } from '../../domain/power.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { IdParam } from '../schemas.ts'
import { power, TAG } from './shared.ts'

export const deletePowerOp = defineOp({
  id: 'power.delete',
  method: 'DELETE',
  path: '/connections/{id}/power',
  summary: 'Stop serving a connection through the edge',
  description: 'Takes the route off the edge (`power_status: removed`). 404 when it was not served.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  response: PowerSchema,
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'destroy',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = power(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const removed = await removePower(deps, c)
    if (!removed) throw notFound('This connection is not served through the edge')
    return powerOut(removed, c.domain)
  },
})
