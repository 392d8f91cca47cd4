import { named } from '../../domain/named.ts'
import { AnyEventSchema, type EventType, exampleEnvelope, newEventId } from '../../domain/events.ts'
import { queueDeliveries, webhookInScope } from '../../db/webhooks.ts'
import { notFound } from '../../errors.ts'
import { insertEvents } from '../../db/events.ts'
import { retryDelivery } from '../../domain/webhook-delivery.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { IdParam, Input, Out } from '../schemas.ts'
import { Attempt, attemptOut, scope } from '../webhooks/shared.ts'
import { EventTypeSchema } from './shared.ts'

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
