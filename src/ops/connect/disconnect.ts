import { Type } from '@sinclair/typebox'
import type { RailConnection } from '../../domain/apply.ts'
import type { ConfirmationRow } from '../../db/person-confirmations.ts'
import { confirmMatches } from '../../domain/confirm.ts'
import { ApiError } from '../../errors.ts'
import { fingerprintOf, requirePersonConfirmation } from '../../domain/person-confirm.ts'
import { railConnectionFor, removeThroughGrant } from '../../domain/grants.ts'
import { defineOp, type PrepareCtx } from '../registry.ts'
import { BOUND_ONLY } from '../authority.ts'
import { IdParam, Input } from '../schemas.ts'
import { Secret } from '../provider-accounts/shared.ts'
import { disconnect, DISCONNECT_NOTE, DisconnectOutcomeSchema, TAG } from './shared.ts'

/** What an agent's disconnect needs first: its person's yes for this connection (src/domain/person-confirm.ts). */
async function agentDisconnectConfirmed(ctx: PrepareCtx, c: RailConnection, confirm: string | undefined): Promise<ConfirmationRow | null> {
  const p = ctx.principal
  if (p.kind !== 'AGENT') return null
  // Done already (a retry after a lost answer): the handler answers that, nothing to confirm.
  if (c.disconnected_at) return null
  // A `confirm` naming another domain is refused as before; naming the right one is never enough.
  if (confirm !== undefined && !confirmMatches(confirm, c.domain)) {
    throw new ApiError('confirmation_mismatch', 'confirm does not name the domain of this connection; nothing was removed')
  }
  const agent = { tenantId: p.tenantId, clientId: p.clientId, subject: p.subject }
  return requirePersonConfirmation({ db: ctx.db, config: ctx.config, now: ctx.clock.now() }, agent, { connectionId: c.id, action: 'disconnect', domain: c.domain, summary: {}, fingerprint: fingerprintOf({ disconnect: c.id }) })
}

export const disconnectOp = defineOp({
  id: 'connections.disconnect',
  method: 'POST',
  path: '/connections/{id}:disconnect',
  summary: 'Disconnect a domain',
  description:
    DISCONNECT_NOTE +
    ' A delegated agent token needs the `domains:disconnect` scope and its person\'s yes: without one the answer is 400 ' +
    '`confirmation_required` with `details.confirm_url`, a one-time link (ten minutes, bound to the agent and the connection) the person ' +
    'opens, signed in as themselves (the member who approved the agent, whose role may disconnect), and confirms; the agent\'s retry then goes through. The `confirm` query parameter alone never disconnects; ' +
    'naming another domain there is 409 `confirmation_mismatch` (case, scheme, path and a trailing dot ignored). Nothing is removed before the yes. ' +
    '`credential` is a DNS-provider API key used once for this removal and never stored.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: BOUND_ONLY,
  permission: 'connections:disconnect',
  scope: 'domains:disconnect',
  params: IdParam,
  query: Input({ confirm: Type.Optional(Type.String({ maxLength: 300, description: 'Agent tokens: the domain being disconnected, checked when given; never enough on its own (the person confirms)' })) }),
  body: Input({
    credential: Type.Optional(Secret),
    leave_records: Type.Optional(
      Type.Boolean({
        description:
          'true: finish the disconnect without writing to the DNS provider (no grant works any more: the credential revoked, the account removed). ' +
          'Records a provider rail wrote stay as they are, each listed in `left_in_place` with `prior_values`, and `manual_steps` say how to put the zone back (`outcome: manual`)',
      }),
    ),
  }),
  bodyOptional: true,
  response: DisconnectOutcomeSchema,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'confirmation_required', 'confirmation_mismatch', 'reauthorization_required', 'dns_write_failed', 'service_unavailable'],
  kind: 'destroy',
  zone: 'removes',
  idempotent: true,
  agent: {
    description:
      'Detaches a domain for good: removes the records Portico wrote, stops serving it and its certificate. Your person confirms first: where your client supports elicitation Portico asks them itself; otherwise the call answers confirmation_required with details.confirm_url, a link to give your person to open, sign in and confirm, after which the same call goes through. Returns what was removed.',
    toolset: 'manage',
    inputs: ['id'],
    output: ['domain', 'disconnected', 'records'],
  },
  async prepare(ctx, input) {
    // An agent's person confirms first: nothing is taken out at the provider before their yes.
    const c = await railConnectionFor(ctx.db, ctx.principal, input.id, { removal: true })
    const confirmed = await agentDisconnectConfirmed(ctx, c, input.confirm)
    const reverted = await removeThroughGrant({ ...ctx, dns: ctx.services.dns }, c, input.credential, input.leave_records === true)
    return { confirmed, reverted }
  },
  handler: (ctx, input, pre) => disconnect(ctx, input.id, pre.confirmed, pre.reverted),
})
