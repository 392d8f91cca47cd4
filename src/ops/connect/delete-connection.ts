import { railConnectionFor, removeThroughGrant } from '../../domain/grants.ts'
import { defineOp } from '../registry.ts'
import { BOUND_ONLY } from '../authority.ts'
import { IdParam } from '../schemas.ts'
import { disconnect, DISCONNECT_NOTE, DisconnectOutcomeSchema, TAG } from './shared.ts'

export const deleteConnectionOp = defineOp({
  id: 'connections.delete',
  method: 'DELETE',
  path: '/connections/{id}',
  summary: 'Remove a domain',
  description: DISCONNECT_NOTE,
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: BOUND_ONLY,
  permission: 'connections:disconnect',
  params: IdParam,
  response: DisconnectOutcomeSchema,
  errors: ['unauthorized', 'forbidden', 'not_found', 'conflict', 'reauthorization_required', 'dns_write_failed', 'service_unavailable'],
  kind: 'destroy',
  idempotent: true,
  prepare: async (ctx, input) => removeThroughGrant({ ...ctx, dns: ctx.services.dns }, await railConnectionFor(ctx.db, ctx.principal, input.id, { removal: true })),
  handler: (ctx, input, reverted) => disconnect(ctx, input.id, null, reverted),
})
