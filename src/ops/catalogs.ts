// Discovery and catalogs (CONTRACT.md section 4): health, configuration, the RBAC matrix and the plan
// catalog. All of them need no credential. The OpenAPI document is the REST face's (src/http/openapi.ts).
import { Type } from '@sinclair/typebox'
import { rbacMatrix } from '../domain/rbac.ts'
import { PLANS } from '../domain/plans.ts'
import { defineOp, reply } from './registry.ts'
import { Nullable, Out } from './schemas.ts'
import { EdgeFleet } from '../adapters/edge.ts'

export const CATALOGS_TAG = 'Discovery and catalogs'
const TAG = CATALOGS_TAG

/** What the database watch says (src/db/watch.ts). */
const DB_STATES = ['ok', 'read_only', 'full', 'unreachable', 'not_answering'] as const
type DbStateValue = (typeof DB_STATES)[number]
const DbState = Type.Union(DB_STATES.map((s) => Type.Literal(s)), {
  description:
    '`ok`; `read_only` (writes are refused, as after a failover onto a replica: they answer 503 `database_read_only`); `full` (a write was refused for lack of disk space within the last minute: 503 `database_full`); ' +
    '`unreachable` (connections are refused or lost); `not_answering` (a probe got no answer within two seconds)',
})
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

async function databaseState(ctx: { services: { database?: { state(): Promise<DbStateValue> } } }): Promise<DbStateValue> {
  return ctx.services.database ? ctx.services.database.state() : 'ok'
}

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

export const configOp = defineOp({
  id: 'config.get',
  method: 'GET',
  path: '/config',
  summary: 'Service discovery',
  description: '`version` is the running build string; `products` lists the engines wired on this deployment among connect, secure, sell, power, monitor, mcp.',
  tag: TAG,
  auth: ['NONE'],
  response: Out({ service: Type.String(), env: Type.String(), version: Type.String(), api_version: Type.String(), products: Type.Array(Type.String()) }),
  errors: [],
  kind: 'read',
  internal: true,
  handler: async (ctx) => ({ service: 'portico', env: ctx.config.appEnv, version: ctx.config.version, api_version: 'v1', products: ctx.services.products }),
})

export const rbacOp = defineOp({
  id: 'rbac.get',
  method: 'GET',
  path: '/rbac',
  summary: 'The role/permission matrix the server enforces',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    roles: Type.Array(Out({ role: Type.String(), permissions: Type.Array(Type.String()) })),
    permissions: Type.Array(Out({ id: Type.String(), description: Type.String() })),
    agent_scopes: Type.Array(
      Out({ id: Type.String(), description: Type.String(), permission: Type.String({ description: 'What the approving credential\'s role must hold' }) }),
      { description: 'Scopes a person can grant a delegated agent on the consent screen' },
    ),
    rules: Type.Array(Type.String()),
  }),
  errors: [],
  kind: 'read',
  internal: true,
  handler: async () => rbacMatrix(),
})

export const plansOp = defineOp({
  id: 'plans.list',
  method: 'GET',
  path: '/plans',
  summary: 'The plan catalog',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    plans: Type.Array(
      Out({
        id: Type.String(),
        name: Type.String(),
        monthly_price_cents: Type.Integer(),
        currency: Type.String(),
        domain_quota: Type.Integer({ description: 'New connected domains a month' }),
        hard_cap: Type.Boolean(),
        first_domain_free: Type.Boolean(),
        features: Type.Array(Type.String()),
      }),
    ),
  }),
  errors: [],
  kind: 'read',
  internal: true,
  handler: async () => ({ plans: PLANS }),
})
