import { Type } from '@sinclair/typebox'
import { ApiError } from '../../errors.ts'
import { deletePushSubscriptions, pushSubscriptionsOf, takePushTest } from '../../db/push.ts'
import { addressResolver } from '../../domain/webhook-delivery.ts'
import { sendPush } from '../../adapters/push.ts'
import { defineOp } from '../registry.ts'
import { Input, Out } from '../schemas.ts'

export const PUSH_TESTS_PER_MINUTE = 5

export const pushTestOp = defineOp({
  id: 'notifications.test',
  method: 'POST',
  path: '/notifications:test',
  summary: 'Send one test notification to every browser of a person',
  description:
    'Console server only. Subscriptions the push service reports gone (404/410) are removed. 503 `push_not_configured` without ' +
    `VAPID keys; 429 \`rate_limited\` with \`Retry-After: 60\` past ${PUSH_TESTS_PER_MINUTE} tests a minute for one person (counted in the database, so across processes).`,
  tag: 'Console',
  auth: ['PROV'],
  body: Input({ user_id: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: Out({ devices: Type.Integer(), sent: Type.Integer(), removed: Type.Integer(), failed: Type.Integer() }),
  errors: ['invalid_request', 'unauthorized', 'push_not_configured', 'rate_limited'],
  kind: 'write',
  transactions: 'steps',
  internal: true,
  async handler(ctx, input) {
    const keys = ctx.config.vapid
    if (!keys) throw new ApiError('push_not_configured')
    const now = ctx.clock.now()
    const allowed = await takePushTest(ctx.db, input.user_id, now, PUSH_TESTS_PER_MINUTE)
    if (!allowed) throw new ApiError('rate_limited', `At most ${PUSH_TESTS_PER_MINUTE} push tests a minute for one person`, undefined, { headers: { 'retry-after': '60' } })
    const subs = await pushSubscriptionsOf(ctx.db, input.user_id)
    const payload = JSON.stringify({ title: 'Portico', body: 'Test notification: push works on this device.', sent_at: now.toISOString() })
    const send = { allowLoopback: ctx.config.webhookAllowLoopback, resolve: addressResolver(ctx.services.dns) }
    const outcomes = await Promise.all(subs.map((s) => sendPush(keys, s, payload, send)))
    const gone = subs.filter((_, i) => outcomes[i] === 'gone').map((s) => s.id)
    if (gone.length) await ctx.tx((tx) => deletePushSubscriptions(tx, gone))
    return { devices: subs.length, sent: outcomes.filter((o) => o === 'sent').length, removed: gone.length, failed: outcomes.filter((o) => o === 'failed').length }
  },
})
