// GET /connections/{id}/status: a connection as the widget follows it, for as long as the widget is
// open (long polling). With `after` (the `version` last seen) and `wait` (seconds), the answer comes
// when something changed or when the wait is over, whichever is first; without them at once.
import { Type } from '@sinclair/typebox'
import { connectionStatus, type StatusDeps } from '../../domain/connection-status.ts'
import { connectionFor } from '../../domain/connections.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam, Input } from '../schemas.ts'
import { ConnectionStatusSchema } from '../widget-schemas.ts'

/** Below the HTTP server's 10 s idle timeout (Bun.serve) and common proxies' read timeouts. */
export const MAX_WAIT_S = 8

/** How often a waiting request looks again. */
const LOOK_EVERY_MS = 1000

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export const connectionStatusOp = defineOp({
  id: 'connections.status',
  method: 'GET',
  path: '/connections/{id}/status',
  summary: 'Follow a connection (long polling)',
  description:
    'What the person connecting a domain needs to see, for as long as they watch: the status, each desired record with what the ' +
    'last verification saw (`found`, `waiting`, or `conflict` when something else is published in its place), the records in the ' +
    'way as of that verification, and whether HTTPS is served (`secure`). `version` changes whenever any of it changes. Long ' +
    `polling: send the last \`version\` as \`after\` and \`wait\` (up to ${MAX_WAIT_S} seconds); the answer comes as soon as ` +
    'something changed, or with the same `version` when the wait is over, or at once with the current state when the process ' +
    'serving it begins to stop (a deploy): poll again. Without `after` the answer is immediate. A client that ' +
    'cannot hold a request open polls at `next_check_at`, when the next verification is due. A widget token reaches only its own ' +
    "application's connections, and a domain-bound one only its own hostname's (404 otherwise).",
  tag: 'Domains and connections',
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:read',
  params: IdParam,
  query: Input({
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The `version` last seen: wait for a different one' })),
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_S, description: `Seconds to wait for a change (0 to ${MAX_WAIT_S}; default 0)` })),
  }),
  response: ConnectionStatusSchema,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  internal: true,
  async handler(ctx, input) {
    const deps: StatusDeps = {
      db: ctx.db,
      dns: ctx.services.verifyDns,
      edgeTarget: ctx.config.edge.cnameTarget,
      edge: !!ctx.services.edge,
      issuer: !!ctx.services.issuer,
    }
    const look = async () => {
      const c = await connectionFor(ctx.db, ctx.principal, input.id)
      return connectionStatus(deps, c, await getApplicationInTenant(ctx.db, c.tenant_id, c.application_id))
    }
    let now = await look()
    // Monotonic time: a wall-clock step neither stretches nor cuts the wait. A process that begins to
    // stop wakes every wait, and each answers with the state as it is then (the widget polls again
    // and reaches a process that stays).
    const lifecycle = ctx.services.lifecycle
    const deadline = performance.now() + (input.wait ?? 0) * 1000
    while (input.after !== undefined && now.version === input.after && !lifecycle?.stopping && performance.now() < deadline) {
      const pause = Math.min(LOOK_EVERY_MS, deadline - performance.now())
      await (lifecycle ? lifecycle.sleep(pause) : sleep(pause))
      now = await look()
    }
    return now
  },
})
