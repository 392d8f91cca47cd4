import { Type } from '@sinclair/typebox'
import { type CallbackOutcome, claimConsentSession, connectionOpen, consentOutcome, consentSession, lockConnection, saveConsentOutcome, type SessionRow } from '../../db/domain-connect-sessions.ts'
import { applySteps, storeGrant, tokenRequest, type Tokens } from '../../domain/domain-connect/async-api.ts'
import { ApiError, notFound, unavailable } from '../../errors.ts'
import { markAccessDenied } from '../../db/connections.ts'
import { appliedThroughConsent } from '../../domain/connect.ts'
import { newId } from '../../ids.ts'
import { Input, Out } from '../schemas.ts'
import { defineOp, reply } from '../registry.ts'
import { BaseCtx, deps } from './shared.ts'


type CallbackPrepared =
  | { kind: 'replay'; session: SessionRow }
  | { kind: 'denied'; session: SessionRow; error: string; description: string }
  | { kind: 'applied'; session: SessionRow; tokens: Tokens }

async function exchangeAndApply(ctx: BaseCtx, s: SessionRow, code: string): Promise<CallbackPrepared> {
  const client = ctx.config.domainConnect.asyncClients[s.dc_provider_id.toLowerCase()]
  if (!client) throw unavailable(`No Domain Connect client is configured for ${s.dc_provider_id}`)
  const http = deps(ctx)
  const tok = await tokenRequest(http, s.url_api, client, { code, grant_type: 'authorization_code', redirect_uri: s.redirect_uri })
  if (!tok.ok) return { kind: 'denied', session: s, error: 'access_denied', description: `The DNS provider did not grant access: ${tok.error}` }
  const applied = await applySteps(http, s.url_api, s.template_provider_id, s, s.applies, tok.value.access_token)
  // The provider's words go apart (`provider_message`), never into Portico's own title.
  if (!applied.ok) throw new ApiError('dns_write_failed', 'The DNS provider refused the change', { reason: 'provider_refused', provider_message: applied.error })
  return { kind: 'applied', session: s, tokens: tok.value }
}

const CallbackResponse = Out({
  connection_id: Type.String(),
  domain: Type.String(),
  applied: Type.Boolean(),
  service_ids: Type.Array(Type.String()),
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
})

export const domainConnectCallbackOp = defineOp({
  id: 'connect.domainconnect_callback',
  method: 'GET',
  path: '/connect/domainconnect/callback',
  summary: 'Return of the asynchronous Domain Connect rail',
  description:
    'The DNS Provider sends the end user here after consent, with `code` and the single-use `state` (the capability; valid one ' +
    'hour). Portico exchanges the code at the provider\'s API registered in `DOMAIN_CONNECT_ASYNC_CLIENTS` (never the `urlAPI` ' +
    'of a discovery answer), applies each template of the consent through the provider\'s API, ' +
    'and records the connection as managed and propagating (event `connection.applied`, `via: async`). A refusal (`error`) records ' +
    'the diagnosis `access_denied`. Answers the outcome, or redirects to the `redirect_uri` given at start with `connection_id` and ' +
    '`applied`. Repeating the call answers the same outcome.',
  tag: 'Domains and connections',
  auth: ['NONE'],
  query: Input({
    state: Type.String({ minLength: 1, maxLength: 200 }),
    code: Type.Optional(Type.String({ maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 1000 })),
  }),
  response: CallbackResponse,
  altStatus: [{ status: 302, description: 'Back to the redirect_uri given at start' }],
  errors: ['invalid_request', 'not_found', 'conflict', 'dns_write_failed', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async prepare(ctx, input): Promise<CallbackPrepared> {
    const s = await consentSession(ctx.db, input.state)
    if (!s) throw notFound('Unknown or expired consent state')
    if (s.used_at) return { kind: 'replay', session: s }
    if (s.expires_at.getTime() < ctx.clock.now().getTime()) throw notFound('Unknown or expired consent state')
    // Nothing is written at the provider for a connection that was removed meanwhile.
    if (!(await connectionOpen(ctx.db, s))) throw notFound('Connection not found')
    if (input.error !== undefined || input.code === undefined) {
      return { kind: 'denied', session: s, error: input.error ?? 'access_denied', description: input.error_description ?? 'The consent was not given' }
    }
    return exchangeAndApply(ctx, s, input.code)
  },
  async handler(ctx, _input, pre: CallbackPrepared) {
    const s = pre.session
    const finish = (o: CallbackOutcome) => {
      if (!s.return_url) return o
      const u = new URL(s.return_url)
      u.searchParams.set('connection_id', o.connection_id)
      u.searchParams.set('applied', String(o.applied))
      if (o.error) u.searchParams.set('error', o.error)
      return reply(302, o, { location: u.toString() })
    }
    if (pre.kind === 'replay') return finish(s.outcome!)
    const now = ctx.clock.now()
    // Single use: only the first callback to claim the session writes anything.
    if (!(await claimConsentSession(ctx.sql, s, now))) {
      const prior = await consentOutcome(ctx.sql, s)
      if (!prior) throw new ApiError('conflict', 'This consent is being completed by another request')
      return finish(prior)
    }
    const c = await lockConnection(ctx.sql, s)
    if (!c || c.disconnected_at) throw notFound('Connection not found')
    let outcome: CallbackOutcome
    if (pre.kind === 'denied') {
      outcome = { connection_id: c.id, domain: c.domain, applied: false, service_ids: s.service_ids, error: pre.error, error_description: pre.description }
      await markAccessDenied(ctx.sql, c, pre.description, now)
    } else {
      await storeGrant(
        ctx.sql,
        ctx.config.secretsKey,
        {
          id: newId('dcg', now.getTime()),
          tenant_id: c.tenant_id,
          application_id: c.application_id,
          connection_id: c.id,
          dc_provider_id: s.dc_provider_id,
          url_api: s.url_api,
          template_provider_id: s.template_provider_id,
          service_ids: s.service_ids,
          apex: s.apex,
          host: s.host,
          applies: s.applies,
          redirect_uri: s.redirect_uri,
        },
        pre.tokens,
        now,
      )
      await appliedThroughConsent(ctx.sql, c, now)
      ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
      outcome = { connection_id: c.id, domain: c.domain, applied: true, service_ids: s.service_ids }
    }
    await saveConsentOutcome(ctx.sql, s, outcome)
    ctx.audit.tenantId = c.tenant_id
    ctx.audit.targetId = c.id
    ctx.audit.details = { applied: outcome.applied, dc_provider: s.dc_provider_id, service_ids: s.service_ids }
    return finish(outcome)
  },
})
