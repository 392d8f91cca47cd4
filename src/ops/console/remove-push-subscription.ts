import { Type } from '@sinclair/typebox'
import { deletePushSubscription } from '../../db/push.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Out } from '../schemas.ts'

export const removePushSubscriptionOp = defineOp({
  id: 'push.subscriptions.delete',
  method: 'DELETE',
  path: '/push-subscriptions/{id}',
  summary: 'Stop sending a person\'s notifications to one browser',
  description: 'Console server only: the person turned notifications off in that browser, or signed out of it. An unknown or already removed id answers 404.',
  tag: 'Console',
  auth: ['PROV'],
  params: IdParam,
  response: Out({ id: Type.String(), user_id: Type.String(), deleted: Type.Literal(true) }),
  errors: ['unauthorized', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const row = await deletePushSubscription(ctx.sql, input.id)
    if (!row) throw notFound('Push subscription not found')
    return { id: row.id, user_id: row.user_id, deleted: true as const }
  },
})
