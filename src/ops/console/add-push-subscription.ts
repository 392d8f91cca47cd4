import { Type } from '@sinclair/typebox'
import { isUrlSyntacticallyAllowed } from '../../adapters/ssrf.ts'
import { invalid } from '../../errors.ts'
import { savePushSubscription } from '../../db/push.ts'
import { Input, Out } from '../schemas.ts'
import { defineOp, reply } from '../registry.ts'

const PushSubscription = Input({
  endpoint: Type.String({ minLength: 1, maxLength: 2000, format: 'uri' }),
  keys: Input({ p256dh: Type.String({ minLength: 1, maxLength: 200 }), auth: Type.String({ minLength: 1, maxLength: 100 }) }),
})

export const addPushSubscriptionOp = defineOp({
  id: 'push.subscriptions.create',
  method: 'POST',
  path: '/push-subscriptions',
  summary: 'Register a browser for a person\'s push notifications',
  description: 'Console server only. `user_id` is the console\'s id of the person. Registering the same endpoint again answers 200.',
  tag: 'Console',
  auth: ['PROV'],
  body: Input({ user_id: Type.String({ minLength: 1, maxLength: 200 }), subscription: PushSubscription }),
  response: Out({ id: Type.String(), user_id: Type.String(), endpoint: Type.String() }),
  status: 201,
  altStatus: [{ status: 200, description: 'Already registered' }],
  errors: ['invalid_request', 'unauthorized'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const check = isUrlSyntacticallyAllowed(input.subscription.endpoint, { allowLoopback: ctx.config.webhookAllowLoopback, requireHttps: true })
    if (!check.ok) throw invalid(`subscription endpoint is not allowed: ${check.reason}`, [{ in: 'body', field: 'subscription.endpoint', message: check.reason }])
    const row = await savePushSubscription(ctx.sql, input, ctx.clock.now())
    const out = { id: row.id, user_id: row.user_id, endpoint: row.endpoint }
    return row.inserted ? out : reply(200, out)
  },
})
