import { Type } from '@sinclair/typebox'
import type { ConnectionRow } from '../../db/connections.ts'
import { claimOnDemand, connectionsServing } from '../../db/power.ts'
import { reviveConnection } from '../../domain/connect.ts'
import { ApiError } from '../../errors.ts'
import { type Ctx, defineOp, reply } from '../registry.ts'
import { Input, Out } from '../schemas.ts'
import { TAG } from './shared.ts'

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
