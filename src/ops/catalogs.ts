// Discovery and catalogs (CONTRACT.md section 4): health, configuration, the OpenAPI document, the
// RBAC matrix and the plan catalog. All of them need no credential.
import { Type } from '@sinclair/typebox'
import { rbacMatrix } from '../domain/rbac.ts'
import { PLANS } from '../domain/plans.ts'
import { buildOpenApi } from '../http/openapi.ts'
import { defineOp, reply, type AnyOp } from './registry.ts'
import { Out } from './schemas.ts'

const TAG = 'Discovery and catalogs'

export const healthOp = defineOp({
  id: 'health.get',
  method: 'GET',
  path: '/healthz',
  root: true,
  summary: 'Liveness, database readiness and DNS reachability',
  description:
    'Outside the versioned base. Answers 200 with `status: ok` when the database answers, 503 with `status: degraded` and `db: error` when not. ' +
    '`dns` is `ok` when a configured resolver answers (a probe at most five seconds old) and `unreachable` when none does, with `dns_resolvers` naming them; ' +
    'an unreachable resolver leaves `status: ok`, since restarting the service cannot repair it and everything but DNS lookups still works.',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    status: Type.String(),
    service: Type.String(),
    env: Type.String(),
    db: Type.String(),
    dns: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('unreachable')])),
    dns_resolvers: Type.Optional(Type.Array(Type.String())),
  }),
  altStatus: [{ status: 503, description: 'The database does not answer' }],
  errors: [],
  kind: 'read',
  internal: true,
  async handler(ctx) {
    const health = ctx.services.dnsHealth
    const [ok, dns] = await Promise.all([ctx.services.pingDb(ctx.db), health?.state()])
    const body = { status: ok ? 'ok' : 'degraded', service: 'portico', env: ctx.config.appEnv, db: ok ? 'ok' : 'error', ...(health ? { dns, dns_resolvers: health.resolvers } : {}) }
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

let registry: () => AnyOp[] = () => []
let cachedDoc: { key: string; doc: unknown } | null = null

/** The OpenAPI operation describes the registry it is part of; src/ops/index.ts hands it over. */
export function setRegistry(all: () => AnyOp[]): void {
  registry = all
  cachedDoc = null
}

export const openapiOp = defineOp({
  id: 'openapi.get',
  method: 'GET',
  path: '/openapi.json',
  summary: 'The OpenAPI 3.1 description of this API',
  tag: TAG,
  auth: ['NONE'],
  response: Type.Object({}, { additionalProperties: true, description: 'An OpenAPI 3.1 document' }),
  errors: [],
  kind: 'read',
  internal: true,
  async handler(ctx) {
    const key = `${ctx.config.publicUrl} ${ctx.config.version}`
    if (cachedDoc?.key !== key) cachedDoc = { key, doc: buildOpenApi(registry(), { publicUrl: ctx.config.publicUrl, version: ctx.config.version }) }
    return cachedDoc.doc
  },
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
