import { deliveryInScope } from '../../db/webhooks.ts'
import { ApiError, notFound } from '../../errors.ts'
import { retryDelivery } from '../../domain/webhook-delivery.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { IdParam, Input } from '../schemas.ts'
import { Attempt, attemptOut, scope, TAG } from './shared.ts'

export const retryDeliveryOp = defineOp({
  id: 'webhooks.deliveries.retry',
  method: 'POST',
  path: '/webhook-deliveries/{id}:retry',
  summary: 'Replay a delivery by hand',
  description: 'Sends the event of this delivery attempt (or delivery) to its endpoint once more, now, and answers the new attempt record.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:manage',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: Attempt,
  errors: ['unauthorized', 'forbidden', 'not_found', 'conflict'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    // A queued delivery, or a finished one known by its attempts; by its id or one of its attempts' ids.
    const d = await deliveryInScope(ctx.db, input, s)
    if (!d) throw notFound('Delivery not found')
    if (d.deleted_at) throw new ApiError('conflict', 'The endpoint of this delivery was removed')
    const attempt = await retryDelivery({ db: ctx.db, clock: ctx.clock, config: ctx.config, dns: ctx.services.dns }, d.id)
    ctx.audit.targetId = d.id
    return attemptOut(attempt)
  },
})
