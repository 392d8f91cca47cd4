import { Type } from '@sinclair/typebox'
import { defineOp, reply } from '../registry.ts'
import { Out } from '../schemas.ts'
import { databaseState, DB_STATES, TAG } from './shared.ts'

const DbState = Type.Union(DB_STATES.map((s) => Type.Literal(s)), {
  description:
    '`ok`; `read_only` (writes are refused, as after a failover onto a replica: they answer 503 `database_read_only`); `full` (a write was refused for lack of disk space within the last minute: 503 `database_full`); ' +
    '`unreachable` (connections are refused or lost); `not_answering` (a probe got no answer within two seconds)',
})

export const readinessOp = defineOp({
  id: 'readiness.get',
  method: 'GET',
  path: '/readyz',
  root: true,
  summary: 'Readiness: whether this process should get traffic',
  description:
    'Outside the versioned base; for load balancers and orchestrators. 200 `{ready: true}` while the process serves and its database answers ' +
    '(its db field says whether writes are refused: `read_only` or `full`; reads still work, so the process stays in rotation). 503 `{ready: false}` ' +
    'with `reason`: `stopping` from the moment the process receives SIGTERM or SIGINT (it goes on answering for STOP_DRAIN_MS, then stops accepting ' +
    'connections and lets requests in flight finish: docs/operations.md), `database_unreachable` or `database_not_answering` while the ' +
    'database cannot serve requests (they are answered 503 at once meanwhile).',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    ready: Type.Boolean(),
    reason: Type.Optional(Type.Union([Type.Literal('stopping'), Type.Literal('database_unreachable'), Type.Literal('database_not_answering')])),
    db: DbState,
  }),
  altStatus: [{ status: 503, description: 'Not ready: stopping, or the database cannot serve requests' }],
  errors: [],
  kind: 'read',
  internal: true,
  async handler(ctx) {
    const state = await databaseState(ctx)
    if (ctx.services.lifecycle?.stopping) return reply(503, { ready: false, reason: 'stopping' as const, db: state })
    if (state === 'unreachable') return reply(503, { ready: false, reason: 'database_unreachable' as const, db: state })
    if (state === 'not_answering') return reply(503, { ready: false, reason: 'database_not_answering' as const, db: state })
    return { ready: true, db: state }
  },
})
