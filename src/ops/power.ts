// Power: the edge serving a connection, and the edge's ask gate. Paths are Portico's design (the
// contract names Power only by group):
//   PUT    /connections/{id}/power   origin URL, apex-to-www redirect, root path
//   GET    /connections/{id}/power
//   DELETE /connections/{id}/power   stop serving it
// and the contract's `POST /internal/ask`, which the edge calls before obtaining a certificate on demand.
import { Type } from '@sinclair/typebox'
import { ApiError, notFound } from '../errors.ts'
import { connectionFor } from '../domain/connections.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { reviveConnection } from '../domain/connect.ts'
import { powerOut, removePower, savePower, type PowerDeps } from '../domain/power.ts'
import { powerOf, claimOnDemand, connectionsServing } from '../db/power.ts'
import { defineOp, reply, type Ctx } from './registry.ts'
import { END_USER } from './authority.ts'
import { IdParam, Input, Nullable, Out } from './schemas.ts'

import { PowerSchema } from '../domain/resource-schemas.ts'

const TAG = 'Power'


function power(ctx: Ctx): PowerDeps {
  const edge = ctx.services.edge
  if (!edge) throw new ApiError('service_unavailable', 'Power is not available: no edge is configured on this deployment (EDGE_ADMIN_URL)')
  return { db: ctx.db, clock: ctx.clock, config: ctx.config, dns: ctx.services.dns, edge }
}

export const putPowerOp = defineOp({
  id: 'power.put',
  method: 'PUT',
  path: '/connections/{id}/power',
  summary: 'Serve a connection through the edge',
  description:
    'The edge reverse-proxies the domain to `origin_url` (http or https; resolved when saved and refused when it points at a ' +
    'private, loopback, link-local or metadata address; the edge connects to the address that was checked, with the origin\'s Host ' +
    'and TLS name). `redirect_to_www` (apex domains) answers the apex with a 301 to www, which is served. `root_path` serves the ' +
    'origin from that path (`/` on the domain is `<origin>/<root_path>/`). The route goes on the edge at once for a live connection ' +
    '(`status: active`), else when it goes live; each change emits `power_status`. Saving the same settings again answers the same.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  body: Input({
    origin_url: Type.String({ minLength: 1, maxLength: 2000 }),
    redirect_to_www: Type.Optional(Type.Boolean()),
    root_path: Type.Optional(Nullable(Type.String({ maxLength: 500, pattern: '^/?[A-Za-z0-9._~!$&\'()*+,;=:@%/-]*$' }))),
  }),
  response: PowerSchema,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = power(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const p = await savePower(deps, c, input)
    ctx.audit.details = { origin_url: p.origin_url, redirect_to_www: p.redirect_to_www }
    return powerOut(p, c.domain)
  },
})

export const getPowerOp = defineOp({
  id: 'power.get',
  method: 'GET',
  path: '/connections/{id}/power',
  summary: 'How the edge serves a connection',
  description: '404 when the connection is not served through the edge.',
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:read',
  params: IdParam,
  response: PowerSchema,
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'read',
  async handler(ctx, input) {
    power(ctx)
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const p = await powerOf(ctx.sql, c.id)
    if (!p) throw notFound('This connection is not served through the edge')
    return powerOut(p, c.domain)
  },
})

export const deletePowerOp = defineOp({
  id: 'power.delete',
  method: 'DELETE',
  path: '/connections/{id}/power',
  summary: 'Stop serving a connection through the edge',
  description: 'Takes the route off the edge (`power_status: removed`). 404 when it was not served.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  response: PowerSchema,
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'destroy',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = power(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const removed = await removePower(deps, c)
    if (!removed) throw notFound('This connection is not served through the edge')
    return powerOut(removed, c.domain)
  },
})

/**
 * The edge may serve `host` when it is the domain of a live connection, or the www of a live apex that
 * redirects there. A failed connection pointed at the edge is approved too: real traffic for it
 * reached the edge, so its records are there, and it re-enters verification.
 */
/**
 * The edge may order a certificate on demand for this live connection unless Portico's own order is
 * in flight or done: one CA order per name, whoever comes first. An approval is noted
 * (`ondemand_at`), and Portico's issuer then leaves the name alone for an hour.
 */
async function onDemandAllowed(ctx: Ctx, c: ConnectionRow): Promise<boolean> {
  return claimOnDemand(ctx.db, c, ctx.clock.now())
}

async function approve(ctx: Ctx, host: string): Promise<boolean> {
  const bare = host.startsWith('www.') ? host.slice(4) : null
  const rows = await connectionsServing(ctx.db, host, bare)
  const exact = rows.find((c) => c.domain === host)
  if (exact?.status === 'live') return onDemandAllowed(ctx, exact)
  if (exact?.status === 'failed' && exact.planned_target?.cname_target === ctx.config.edge.cnameTarget) {
    await reviveConnection(ctx.db, exact, ctx.clock.now())
    return true
  }
  const apex = rows.find((c) => c.domain === bare)
  return !!apex && apex.status === 'live' && apex.domain === apex.apex_domain && (apex.redirect_to_www || apex.www_redirect) && onDemandAllowed(ctx, apex)
}

export const askOp = defineOp({
  id: 'internal.ask',
  method: 'POST',
  path: '/internal/ask',
  summary: 'Edge host-authorization gate',
  description:
    'Called by the edge before it obtains a certificate on demand for a hostname: 200 `{approved: true}` for the domain of a live ' +
    'connection (or the www of a live apex that redirects there) whose certificate Portico has not issued or started ordering ' +
    '(one CA order per name, whoever comes first), and for a failed connection pointed at the edge, which re-enters ' +
    'verification (traffic for it reached the edge); 403 `{approved: false}` for anything else. Authenticated by the edge shared ' +
    'secret (`X-Edge-Auth`); this route must be network-isolated: reachable from the edge only, never from the internet. The ' +
    'hostname comes as `domain` in the query (what Caddy sends) or the body.',
  tag: TAG,
  auth: ['EDGE'],
  query: Input({ domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })) }),
  bodyOptional: true,
  body: Input({ host: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })) }),
  response: Out({ approved: Type.Boolean() }),
  altStatus: [{ status: 403, description: '`{approved: false}`: the edge must not serve this hostname' }],
  errors: ['invalid_request', 'unauthorized'],
  kind: 'read',
  internal: true,
  async handler(ctx, input) {
    const raw = input.domain ?? input.host
    if (!raw) throw new ApiError('invalid_request', 'Name the hostname as `domain` (query) or `host` (body)')
    const approved = await approve(ctx, raw.toLowerCase().replace(/\.$/, ''))
    return approved ? { approved } : reply(403, { approved })
  },
})

export const POWER_OPERATIONS = [putPowerOp, getPowerOp, deletePowerOp, askOp]
