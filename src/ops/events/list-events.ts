import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { AnyEventSchema } from '../../domain/events.ts'
import { invalid } from '../../errors.ts'
import { eventsPage } from '../../db/events.ts'
import { idFloor } from '../../ids.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { Id, Input, Out, Timestamp } from '../schemas.ts'
import { scope } from '../webhooks/shared.ts'
import { cursorOf, idFromCursor } from '../cursors.ts'
import { eventOut, EVENTS_NOTE, EventTypeSchema, TAG } from './shared.ts'

const ms = (at: string | undefined) => (at === undefined ? undefined : new Date(at).getTime())

export const listEventsOp = defineOp({
  id: 'events.list',
  method: 'GET',
  path: '/events',
  summary: 'List events',
  description:
    'The workspace\'s events, oldest first (one connection\'s in `sequence` order), whether or not any webhook endpoint was subscribed ' +
    'to them or took them. Filters: `app_id`, `type`, `connection_id` (with `after_sequence`), `created_after` (inclusive) and ' +
    '`created_before` (exclusive). Pages of `limit` (1 to 500, default 100) with `next_cursor`, absent on the last page. API keys see ' +
    'every application of the tenant; application-scoped widget tokens their own. ' + EVENTS_NOTE,
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:read',
  query: Input({
    app_id: Type.Optional(Id('app')),
    type: Type.Optional(EventTypeSchema),
    connection_id: Type.Optional(Id('con', 'Only this connection\'s events, in `sequence` order')),
    after_sequence: Type.Optional(Type.Integer({ minimum: 0, description: 'With `connection_id`: only events after this sequence number' })),
    created_after: Type.Optional(Timestamp('Only events created at or after this time')),
    created_before: Type.Optional(Timestamp('Only events created before this time')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The previous page\'s `next_cursor`' })),
  }),
  response: named('EventPage', Out({
    events: Type.Array(AnyEventSchema),
    count: Type.Integer(),
    next_cursor: Type.Optional(Type.String()),
    retention_days: Type.Integer({ description: 'How long events are kept from their `created_at`' }),
  })),
  errors: ['invalid_request', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const s = await scope(ctx, input.app_id)
    if (input.after_sequence !== undefined && !input.connection_id) {
      throw invalid('after_sequence needs connection_id', [{ in: 'query', field: 'after_sequence', message: 'only with connection_id' }])
    }
    const limit = input.limit ?? 100
    const after = input.cursor ? idFromCursor(input.cursor, 'evt') : ''
    const from = ms(input.created_after)
    const to = ms(input.created_before)
    const rows = await eventsPage(
      ctx.sql,
      {
        tenantId: s.tenantId,
        appId: s.appId,
        type: input.type,
        connectionId: input.connection_id,
        afterSequence: input.after_sequence,
        fromId: from === undefined ? undefined : idFloor('evt', from),
        toId: to === undefined ? undefined : idFloor('evt', to),
      },
      after,
      limit,
    )
    const page = rows.slice(0, limit)
    return {
      events: page.map(eventOut),
      count: page.length,
      ...(rows.length > limit ? { next_cursor: cursorOf(page[page.length - 1]!.id) } : {}),
      retention_days: ctx.config.eventRetentionDays,
    }
  },
})
