// The events API (CONTRACT.md section 6 names the events; this is how an integrator catches up with
// them): list a workspace's events and read one with its payload, kept EVENT_RETENTION_DAYS (at least
// 30); replay an endpoint's failed deliveries since a time; send an endpoint a test event of any type.
// The envelopes are the event registry's (src/domain/events.ts), exactly as they were delivered.
import { Type } from '@sinclair/typebox'
import { invalid, notFound } from '../errors.ts'
import { AnyEventSchema, currentShape, EVENT_TYPES, exampleEnvelope, newEventId, type EventType } from '../domain/events.ts'
import { named } from '../domain/named.ts'
import { retryDelivery } from '../domain/webhook-delivery.ts'
import { eventInTenant, eventsPage, insertEvents, type EventRow } from '../db/events.ts'
import { endPause, failedDeliveries, queueDeliveries, webhookInScope } from '../db/webhooks.ts'
import { idFloor } from '../ids.ts'
import { cursorOf, idFromCursor } from './cursors.ts'
import { defineOp } from './registry.ts'
import { APP_ONLY } from './authority.ts'
import { Id, IdParam, Input, Out, Timestamp } from './schemas.ts'
import { Attempt, attemptOut, scope } from './webhooks.ts'

const TAG = 'Events'

const EventTypeSchema = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), { description: 'An event type of the catalogue' })

export const EVENTS_NOTE =
  'Events are kept for `retention_days` (EVENT_RETENTION_DAYS, at least 30) from their `created_at`, then deleted. Each is the ' +
  'envelope exactly as delivered to webhooks. Ids are time-ordered and, within one Portico process, strictly increasing; an event ' +
  'becomes visible when the change that caused it commits, which may be a moment after a later id from another process: to catch ' +
  'up without gaps, resume from a `created_after` a minute before the newest event you hold and skip ids you have. One ' +
  'connection\'s events are numbered by `sequence` (1, 2, 3, ... in commit order, counting every event of the connection): ' +
  '`connection_id` with `after_sequence` answers exactly the ones after the last you saw, in order.'

/** The envelope as delivered (one stored before the shapes were settled, in today's shape: `currentShape`). */
const eventOut = (r: EventRow) => currentShape(JSON.parse(r.payload))

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

export const getEventOp = defineOp({
  id: 'events.get',
  method: 'GET',
  path: '/events/{id}',
  summary: 'Read an event',
  description: 'One event (`evt_…`) with its payload, as it was delivered; a test event too. 404 once it is past its retention. ' + EVENTS_NOTE,
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:read',
  params: IdParam,
  response: AnyEventSchema,
  errors: ['not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const row = await eventInTenant(ctx.sql, s.tenantId, input.id, s.appId)
    if (!row) throw notFound('Event not found')
    return eventOut(row)
  },
})

const REPLAY_MAX = 1000

export const replayWebhookOp = defineOp({
  id: 'webhooks.replay',
  method: 'POST',
  path: '/webhooks/{id}:replay',
  summary: 'Replay an endpoint\'s failed deliveries since a time',
  description:
    'Queues again, with three fresh attempts, every delivery to this endpoint that ended without a 2xx (its attempts ran out, or it ' +
    `was refused), of events created at or after \`since\` (and before \`until\`, default now) and still kept. At most ${REPLAY_MAX} ` +
    'a call, oldest first: with `more: true`, call again with `since: next_since`. Deliveries still queued are left as they are, so ' +
    'repeating a call queues nothing twice. One connection\'s replayed events go in `sequence` order, after any of its deliveries ' +
    'already queued. A replay ends the endpoint\'s pause after a run of failures (the receiver is taken to be back); delivery then ' +
    'follows the usual schedule.',
  tag: 'Webhooks',
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:manage',
  params: IdParam,
  body: Input({
    since: Timestamp('Replay deliveries of events created at or after this time'),
    until: Type.Optional(Timestamp('… and before this time (default: now)')),
  }),
  response: named('ReplayResult', Out({
    endpoint_id: Type.String(),
    replayed: Type.Integer({ description: 'Deliveries queued again' }),
    event_ids: Type.Array(Type.String(), { description: 'Their events, oldest first' }),
    more: Type.Boolean({ description: 'More failed deliveries remain after these: call again with `since: next_since`' }),
    next_since: Type.Optional(Timestamp()),
  })),
  errors: ['invalid_request', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const w = await webhookInScope(ctx.sql, input.id, s)
    if (!w) throw notFound('Webhook not found')
    const now = ctx.clock.now()
    const from = new Date(input.since).getTime()
    const to = input.until === undefined ? now.getTime() + 1 : new Date(input.until).getTime()
    if (!(to > from)) throw invalid('until must be after since', [{ in: 'body', field: 'until', message: 'must be after since' }])
    const found = await failedDeliveries(ctx.sql, w, idFloor('evt', from), idFloor('evt', to), REPLAY_MAX)
    const page = found.slice(0, REPLAY_MAX)
    // Asking for a replay says the receiver is back: the endpoint's pause after its failures ends.
    await endPause(ctx.sql, w.id)
    const replayed = await queueDeliveries(ctx.sql, w, page.map(({ event_id, event_type, connection_id, sequence }) => ({ event_id, event_type, connection_id, sequence })), now)
    ctx.audit.details = { since: input.since, until: input.until ?? null, replayed }
    const next = found[REPLAY_MAX]
    return {
      endpoint_id: w.id,
      replayed,
      event_ids: page.map((e) => e.event_id),
      more: next !== undefined,
      ...(next ? { next_since: new Date(next.created_at).toISOString() } : {}),
    }
  },
})

export const testWebhookOp = defineOp({
  id: 'webhooks.test',
  method: 'POST',
  path: '/webhooks/{id}:test',
  summary: 'Send an endpoint a test event',
  description:
    'Sends this endpoint, now, an event of `type` (any type of the catalogue, whether or not the endpoint subscribes to it) built ' +
    'from the catalogue\'s example: a real envelope with a fresh `evt_…` id, your application\'s id and the current time, its ' +
    'other fields example values, and `test: true`. Signed as every delivery is. Answers the event and the attempt (the receiver\'s ' +
    'status code, or why it could not be reached); the attempt is in the delivery log like any other, and `GET /events/{id}` reads ' +
    'the test event back (the list of events leaves test events out). A test event is sent once: send another to try again.',
  tag: 'Webhooks',
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:manage',
  params: IdParam,
  body: Input({ type: EventTypeSchema }),
  response: named('TestDelivery', Out({ event: AnyEventSchema, attempt: Attempt })),
  errors: ['invalid_request', 'not_found'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const w = await webhookInScope(ctx.db, input.id, s)
    if (!w) throw notFound('Webhook not found')
    const now = ctx.clock.now()
    const type = input.type as EventType
    const id = newEventId(now)
    const env = { ...exampleEnvelope(type, { id, application_id: w.application_id, created_at: now.toISOString() }), test: true }
    await ctx.tx(async (tx, note) => {
      await insertEvents(tx, [{ id, tenant_id: w.tenant_id, application_id: w.application_id, connection_id: null, type, payload: env, created_at: now.toISOString() }], { test: true })
      await queueDeliveries(tx, w, [{ event_id: id, event_type: type, connection_id: null, sequence: null }], now)
      note.targetId = w.id
      note.details = { type, event_id: id }
    })
    const attempt = await retryDelivery({ db: ctx.db, clock: ctx.clock, config: ctx.config, dns: ctx.services.dns }, `whd_${id.slice(4)}_${w.id.slice(4)}`)
    ctx.audit.targetId = w.id
    return { event: env, attempt: attemptOut(attempt) }
  },
})

export const EVENT_OPERATIONS = [listEventsOp, getEventOp, replayWebhookOp, testWebhookOp]

