import { Type } from '@sinclair/typebox'
import { newWebhookSecret } from '../../adapters/webhook-signing.ts'
import { rotateWebhookSecret } from '../../db/webhooks.ts'
import { encrypt } from '../../crypto.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input } from '../schemas.ts'
import { scope, TAG, Webhook, webhookOut } from './shared.ts'

/** How long a replaced secret keeps signing by default: a day, as Svix does, so receivers can switch without refusing deliveries. */
export const PREVIOUS_SECRET_SECONDS = 86_400

export const rotateWebhookSecretOp = defineOp({
  id: 'webhooks.rotate_secret',
  method: 'POST',
  path: '/webhooks/{id}:rotate-secret',
  summary: 'Rotate a webhook endpoint\'s signing secret',
  description:
    'API keys only. Answers the endpoint with its new `secret`, shown in this answer only. The secret it replaces keeps signing ' +
    'beside the new one for `expire_previous_in` seconds (default 86400, a day; 0 stops it at once, for a secret that leaked): ' +
    'meanwhile each delivery carries both signatures in `webhook-signature` (space-separated), so a receiver that knows either ' +
    'one accepts it. Rotating again ends the older secret at once.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'webhooks:manage',
  params: IdParam,
  bodyOptional: true,
  body: Input({ expire_previous_in: Type.Optional(Type.Integer({ minimum: 0, maximum: PREVIOUS_SECRET_SECONDS, description: 'Seconds the old secret keeps signing (default 86400)' })) }),
  response: Webhook,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const secret = newWebhookSecret()
    const now = ctx.clock.now()
    const keep = input.expire_previous_in ?? PREVIOUS_SECRET_SECONDS
    const w = await rotateWebhookSecret(ctx.sql, input, s, encrypt(ctx.config.secretsKey, secret, 'webhook-secret'), keep > 0 ? new Date(now.getTime() + keep * 1000) : null)
    if (!w) throw notFound('Webhook not found')
    ctx.audit.details = { expire_previous_in: keep }
    return { ...webhookOut(w), secret }
  },
})
