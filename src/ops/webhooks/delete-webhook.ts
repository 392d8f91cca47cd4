import { Type } from '@sinclair/typebox'
import { deleteWebhook } from '../../db/webhooks.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { IdParam, Out } from '../schemas.ts'
import { scope, TAG } from './shared.ts'

export const deleteWebhookOp = defineOp({
  id: 'webhooks.delete',
  method: 'DELETE',
  path: '/webhooks/{id}',
  summary: 'Remove a webhook endpoint',
  description: 'Deliveries still pending for it are dropped (recorded as failed attempts). Removing it again answers the same.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:manage',
  params: IdParam,
  response: Out({ id: Type.String(), deleted: Type.Boolean() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const w = await deleteWebhook(ctx.sql, ctx.clock.now(), input, s)
    if (!w) throw notFound('Webhook not found')
    return { id: input.id, deleted: true }
  },
})
