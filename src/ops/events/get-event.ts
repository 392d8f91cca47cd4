import { AnyEventSchema } from '../../domain/events.ts'
import { eventInTenant } from '../../db/events.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { IdParam } from '../schemas.ts'
import { scope } from '../webhooks/shared.ts'
import { eventOut, EVENTS_NOTE, TAG } from './shared.ts'

export const getEventOp = defineOp({
  id: 'events.get',
  method: 'GET',
  path: '/events/{id}',
  summary: 'Read an event',
  description: 'One event (`evt_…`) with its payload, as it was delivered; a test event too. 404 once it is past its retention. ' + EVENTS_NOTE,
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:read',
  params: IdParam,
  response: AnyEventSchema,
  errors: ['not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const row = await eventInTenant(ctx.sql, s.tenantId, input.id, s.appId)
    if (!row) throw notFound('Event not found')
    return eventOut(row)
  },
})
