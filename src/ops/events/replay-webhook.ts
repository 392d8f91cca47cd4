import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { endPause, failedDeliveries, queueDeliveries, webhookInScope } from '../../db/webhooks.ts'
import { invalid, notFound } from '../../errors.ts'
import { idFloor } from '../../ids.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { IdParam, Input, Out, Timestamp } from '../schemas.ts'
import { scope } from '../webhooks/shared.ts'

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
