import { Type } from '@sinclair/typebox'
import { attemptsPage } from '../../db/webhooks.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { Id, Input, Out } from '../schemas.ts'
import { cursorOf, idFromCursor } from '../cursors.ts'
import { Attempt, attemptOut, AttemptRow, scope, TAG } from './shared.ts'

export const listDeliveriesOp = defineOp({
  id: 'webhooks.deliveries.list',
  method: 'GET',
  path: '/webhook-deliveries',
  summary: 'The delivery log: one record per attempt',
  description: 'Newest first. API keys see every application of the tenant; widget tokens their own. Filters `app_id`, `type` (event type); pages of `limit` (1 to 500, default 100) with `next_cursor`.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:read',
  query: Input({
    app_id: Type.Optional(Id('app')),
    type: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: Out({ deliveries: Type.Array(Attempt), count: Type.Integer(), next_cursor: Type.Optional(Type.String()) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const s = await scope(ctx, input.app_id)
    const limit = input.limit ?? 100
    const before = input.cursor ? idFromCursor(input.cursor, 'wha') : '~'
    const rows = (await attemptsPage(ctx.sql, s, input, before, limit)) as AttemptRow[]
    const page = rows.slice(0, limit)
    return {
      deliveries: page.map(attemptOut),
      count: page.length,
      ...(rows.length > limit ? { next_cursor: cursorOf(page[page.length - 1]!.id) } : {}),
    }
  },
})
