import { Type } from '@sinclair/typebox'
import { webhooksInScope } from '../../db/webhooks.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { Id, Input, Out } from '../schemas.ts'
import { scope, TAG, Webhook, webhookOut } from './shared.ts'

export const listWebhooksOp = defineOp({
  id: 'webhooks.list',
  method: 'GET',
  path: '/webhooks',
  summary: 'List webhook endpoints',
  description: 'API keys see every application of the tenant (filter `app_id`); widget tokens their own application. Secrets are never listed.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:read',
  query: Input({ app_id: Type.Optional(Id('app')) }),
  response: Out({ webhooks: Type.Array(Webhook) }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const s = await scope(ctx, input.app_id)
    const rows = await webhooksInScope(ctx.sql, s)
    return { webhooks: rows.map(webhookOut) }
  },
})
