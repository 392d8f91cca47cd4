// The events API (the API contract, section 6 names the events; this is how an integrator catches up with
// them): list a workspace's events and read one with its payload, kept EVENT_RETENTION_DAYS (at least
// 30); replay an endpoint's failed deliveries since a time; send an endpoint a test event of any type.
// The envelopes are the event registry's (src/domain/events.ts), exactly as they were delivered.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { currentShape, EVENT_TYPES } from '../../domain/events.ts'
import type { EventRow } from '../../db/events.ts'

export const TAG = 'Events'

export const EventTypeSchema = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), { description: 'An event type of the catalogue' })

export const EVENTS_NOTE =
  'Events are kept for `retention_days` (EVENT_RETENTION_DAYS, at least 30) from their `created_at`, then deleted. Each is the ' +
  'envelope exactly as delivered to webhooks. Ids are time-ordered and, within one Portico process, strictly increasing; an event ' +
  'becomes visible when the change that caused it commits, which may be a moment after a later id from another process: to catch ' +
  'up without gaps, resume from a `created_after` a minute before the newest event you hold and skip ids you have. One ' +
  'connection\'s events are numbered by `sequence` (1, 2, 3, ... in commit order, counting every event of the connection): ' +
  '`connection_id` with `after_sequence` answers exactly the ones after the last you saw, in order.'

/** The envelope as delivered (one stored before the shapes were settled, in today's shape: `currentShape`). */
export const eventOut = (r: EventRow) => currentShape(JSON.parse(r.payload))
