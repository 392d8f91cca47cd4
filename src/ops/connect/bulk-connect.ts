import { Type } from '@sinclair/typebox'
import { MetadataSchema } from '../../domain/resource-schemas.ts'
import { assertHostAllowed, effectiveTarget } from '../../domain/connections.ts'
import { assertFitsEnvironment } from '../../domain/test-mode.ts'
import { findOpen } from '../../db/connections.ts'
import { assertCanConnect } from '../../domain/billing.ts'
import { inspectDomain, openConnection } from '../../domain/connect.ts'
import { ApiError } from '../../errors.ts'
import { logCause } from '../../logger.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { Id, Input, Nullable, Out } from '../schemas.ts'
import { APP_HINT, APPLICATION_ID } from '../agent-text.ts'
import { applicationOf, edge, parseOrThrow, TAG } from './shared.ts'

export const BULK_MAX = 200

export const bulkConnectOp = defineOp({
  id: 'connections.bulk',
  method: 'POST',
  path: '/connections:bulk',
  summary: 'Connect up to 200 domains',
  description:
    'Each domain is handled on its own, in its own transaction: a bad one is `failed` with a message and the batch goes on; a ' +
    'domain already connected under the application is `already` (or `failed` with code `conflict` when it was connected for ' +
    'another `end_user_ref` than the one sent); a new one is `connected` (created, status `pending`). An item may be an object ' +
    '`{domain, end_user_ref, metadata}`: each domain then has its own end user and metadata (the batch\'s `end_user_ref` is for ' +
    'plain strings). ' +
    'One result per domain, in order. More than 200 domains is 400.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  body: Input({
    domains: Type.Array(
      Type.Union([
        Type.String({ maxLength: 300 }),
        Input({
          domain: Type.String({ maxLength: 300 }),
          end_user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'This domain\'s end user (instead of the batch\'s)' })),
          metadata: Type.Optional(MetadataSchema),
        }, { description: 'A domain with its own end user and metadata' }),
      ]),
      { minItems: 1, maxItems: BULK_MAX, description: 'Domain names, or objects `{domain, end_user_ref?, metadata?}` each with their own end user and metadata' },
    ),
    application_id: Type.Optional(Id('app')),
    end_user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The end user of every domain given as a plain string' })),
  }),
  response: Out({
    results: Type.Array(
      Out({
        domain: Type.String(),
        connection_id: Nullable(Type.String()),
        status: Type.Union([Type.Literal('connected'), Type.Literal('failed'), Type.Literal('already')]),
        message: Type.String(),
        code: Type.Optional(Type.String()),
      }),
    ),
  }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  zone: 'looks',
  transactions: 'steps',
  deadline: 'bulk',
  countsItems: 'domains',
  agent: {
    description: `Connects many domains (up to 200) to one application in one call, each on its own: returns one result per domain, in order, saying connected (new, pending), already (connected before) or failed with the reason. Follow each with connections_get. ${APP_HINT}`,
    toolset: 'connect',
    describe: { application_id: APPLICATION_ID },
    output: ['results'],
  },
  async handler(ctx, input) {
    const app = await applicationOf(ctx, input.application_id)
    const target = effectiveTarget(app, edge(ctx))
    const seen = new Map<string, string>()
    const taken = (domain: string, id: string) =>
      ({ domain, connection_id: id, status: 'failed' as const, message: 'Already connected under this application for another end user', code: 'conflict' })
    const one = async (item: (typeof input.domains)[number]) => {
      const { domain, end_user_ref: endUserRef = input.end_user_ref, metadata } = typeof item === 'string' ? { domain: item } : item
      // A domain already connected for another end user is not this caller's: said per domain, as POST /connections says 409.
      const otherEndUser = (c: { end_user_ref: string | null }) => endUserRef !== undefined && c.end_user_ref !== endUserRef
      try {
        const parsed = parseOrThrow(domain)
        assertHostAllowed(ctx.principal, parsed.domain)
        assertFitsEnvironment(app.environment, parsed)
        const open = seen.has(parsed.domain) ? undefined : await findOpen(ctx.db, app.id, parsed.domain)
        if (open && otherEndUser(open)) return taken(domain, open.id)
        const prior = seen.get(parsed.domain) ?? open?.id
        if (prior) return { domain, connection_id: prior, status: 'already' as const, message: 'Already connected under this application' }
        await assertCanConnect(ctx.db, app.tenant_id, ctx.clock.now(), ctx.config, parsed.domain)
        const inspection = await inspectDomain(ctx.services.dns, parsed, ctx.services.dnsHealth)
        // Each domain commits with its own audit row: a batch cut short leaves no connection unaudited.
        const { row, outcome } = await ctx.tx(async (tx, note) => {
          const opened = await openConnection(tx, ctx.clock.now(), app, target, parsed, inspection, { endUserRef: endUserRef ?? null, wwwRedirect: false, records: null, metadata })
          note.targetId = opened.row.id
          note.details = { domain: parsed.domain, outcome: opened.outcome }
          return opened
        })
        seen.set(parsed.domain, row.id)
        if (outcome !== 'created' && otherEndUser(row)) return taken(domain, row.id)
        return outcome === 'created'
          ? { domain, connection_id: row.id, status: 'connected' as const, message: 'Connection created' }
          : { domain, connection_id: row.id, status: 'already' as const, message: 'Already connected under this application' }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        logCause(err, { request_id: ctx.requestId, op: 'connections.bulk', domain, code: err.code })
        return { domain, connection_id: null, status: 'failed' as const, message: err.title, code: err.code }
      }
    }
    // In order, so a repeated domain in the batch is `already` after its first appearance.
    const results = []
    for (const d of input.domains) results.push(await one(d))
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { connected: results.filter((r) => r.status === 'connected').length, total: results.length }
    return { results }
  },
})
