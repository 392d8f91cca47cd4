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

export const healthOp = defineOp({
  id: 'health.get',
  method: 'GET',
  path: '/healthz',
  root: true,
  summary: 'Liveness, database readiness and DNS reachability',
  description:
    'Outside the versioned base. Answers 200 with `status: ok` when the database answers, 503 with `status: degraded` and `db: error` when not. ' +
    '`dns` is `ok` when a configured resolver answers (a probe at most five seconds old), `failing` when the resolvers answer but only ' +
    'with SERVFAIL (they cannot resolve anything), and `unreachable` when none answers, with `dns_resolvers` naming them; ' +
    'a DNS failure leaves `status: ok`, since restarting the service cannot repair it and everything but DNS lookups still works. ' +
    '`edge` lists each edge node (when an edge is configured): `up` or `down` as a call or a probe at most two seconds old found it, the last error, and when the sweep last reconciled it. ' +
    'The answer comes within about two seconds whatever is down.',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    status: Type.String(),
    service: Type.String(),
    env: Type.String(),
    db: Type.String(),
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
  altStatus: [{ status: 503, description: 'The database does not answer' }],
  errors: [],
  kind: 'read',
  internal: true,
  async handler(ctx) {
    const health = ctx.services.dnsHealth
    const fleet = ctx.services.edge instanceof EdgeFleet ? ctx.services.edge : null
    const [ok, dns, nodes] = await Promise.all([ctx.services.pingDb(ctx.db), health?.state(), fleet?.health()])
    const edge = nodes ? { edge: nodes } : {}
    const body = { status: ok ? 'ok' : 'degraded', service: 'portico', env: ctx.config.appEnv, db: ok ? 'ok' : 'error', ...(health ? { dns, dns_resolvers: health.resolvers } : {}), ...edge }
    return ok ? body : reply(503, body)
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
