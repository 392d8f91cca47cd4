import { Type } from '@sinclair/typebox'
import { EdgeFleet } from '../../adapters/edge.ts'
import { defineOp, reply } from '../registry.ts'
import { Nullable, Out } from '../schemas.ts'
import { databaseState, DbStateValue, TAG } from './shared.ts'

/** /healthz's `db` as it always was (`ok`, `error`), with the two write refusals beside them. */
const healthDb = (state: DbStateValue) => (state === 'unreachable' || state === 'not_answering' ? 'error' : state)

export const healthOp = defineOp({
  id: 'health.get',
  method: 'GET',
  path: '/healthz',
  root: true,
  summary: 'Liveness, database state and DNS reachability',
  description:
    'Outside the versioned base. `status` is `ok` when the database answers and takes writes; `degraded` when it answers but refuses writes ' +
    '(`db: read_only` or `db: full`: reads go on, writes answer 503 with Retry-After), still with 200; 503 with `status: degraded` and `db: error` when the ' +
    'database does not answer, `db_error` saying how (`unreachable`: connections refused or lost; `not_answering`: a probe got no answer within two seconds); ' +
    'and 503 with `status: stopping` once the process has begun a graceful stop. ' +
    '`dns` is `ok` when a configured resolver answers (a probe at most five seconds old), `failing` when the resolvers answer but only ' +
    'with SERVFAIL (they cannot resolve anything), and `unreachable` when none answers, with `dns_resolvers` naming them; ' +
    'a DNS failure leaves `status: ok`, since restarting the service cannot repair it and everything but DNS lookups still works. ' +
    '`edge` lists each edge node (when an edge is configured): `up` or `down` as a call or a probe at most two seconds old found it, the last error, and when the sweep last reconciled it. ' +
    'The answer comes within about two seconds whatever is down. A load balancer should use GET /readyz.',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('stopping')]),
    service: Type.String(),
    env: Type.String(),
    db: Type.Union([Type.Literal('ok'), Type.Literal('read_only'), Type.Literal('full'), Type.Literal('error')]),
    db_error: Type.Optional(Type.Union([Type.Literal('unreachable'), Type.Literal('not_answering')])),
    dns: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('unreachable')])),
    dns_resolvers: Type.Optional(Type.Array(Type.String())),
    edge: Type.Optional(
      Type.Array(
        Out({
          node: Type.String(),
          status: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('unknown')]),
          last_error: Nullable(Type.String()),
          last_seen_at: Nullable(Type.String()),
          last_reconciled_at: Nullable(Type.String()),
        }),
      ),
    ),
  }),
  altStatus: [{ status: 503, description: 'The database does not answer, or the process is stopping' }],
  errors: [],
  kind: 'read',
  internal: true,
  async handler(ctx) {
    const health = ctx.services.dnsHealth
    const fleet = ctx.services.edge instanceof EdgeFleet ? ctx.services.edge : null
    const [state, dns, nodes] = await Promise.all([databaseState(ctx), health?.state(), fleet?.health()])
    const edge = nodes ? { edge: nodes } : {}
    const stopping = ctx.services.lifecycle?.stopping ?? false
    const down = state === 'unreachable' || state === 'not_answering'
    const status = stopping ? 'stopping' : state === 'ok' ? 'ok' : 'degraded'
    const body = { status, service: 'portico', env: ctx.config.appEnv, db: healthDb(state), ...(down ? { db_error: state } : {}), ...(health ? { dns, dns_resolvers: health.resolvers } : {}), ...edge }
    return stopping || down ? reply(503, body) : body
  },
})
