import { Type } from '@sinclair/typebox'
import { consumeState, exchangeCode } from '../../domain/provider-oauth.ts'
import { markAccessDenied, openRailConnectionInTenant } from '../../db/connections.ts'
import { type AppliedState, writeThroughRail } from '../../domain/apply.ts'
import { ApiError, notFound } from '../../errors.ts'
import { createAccount } from '../../domain/provider-accounts.ts'
import { defineOp, reply } from '../registry.ts'
import { Input, Out } from '../schemas.ts'

export const oauthCallbackOp = defineOp({
  id: 'connect.oauth_callback',
  method: 'GET',
  path: '/connect/oauth/callback',
  summary: 'OAuth redirect target of the provider sign-in',
  description:
    'Authenticated by its signed, single-use, expiring `state` (a forged, reused or expired one is 400 `invalid_request`). Exchanges ' +
    'the code, stores the grant encrypted as a provider account of kind `oauth`, and writes the records. With a `return_url` given ' +
    'at start the answer is a 302 there. A refusal at the provider (`error=access_denied`) records the diagnosis `access_denied`.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  internal: true,
  query: Input({
    state: Type.String({ minLength: 1, maxLength: 200 }),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
    scope: Type.Optional(Type.String({ maxLength: 500 })),
    // Providers add their own parameters to the redirect (Google: authuser, prompt, hd; Microsoft:
    // session_state; Vercel: configurationId, teamId, next): accepted and not used, since the grant
    // comes from the token answer, never from the query.
  }, { additionalProperties: true }),
  response: Out({ connection_id: Type.String(), domain: Type.String(), status: Type.String(), changed: Type.Boolean(), account_id: Type.String() }),
  altStatus: [{ status: 302, description: 'Redirect to the return_url given at start' }],
  errors: ['invalid_request', 'not_found', 'conflict', 'ProviderAuthenticationError', 'dns_write_failed'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const now = ctx.clock.now()
    const s = await ctx.tx((tx) => consumeState(tx, ctx.config, now, input.state))
    const c = await openRailConnectionInTenant<AppliedState>(ctx.db, s)
    if (!c) throw notFound('Connection not found')
    ctx.audit.tenantId = s.tenant_id
    ctx.audit.targetId = c.id
    if (input.error || !input.code) {
      await ctx.tx((tx) => markAccessDenied(tx, c, 'The sign-in at the DNS provider was refused', now))
      throw new ApiError('invalid_request', 'The sign-in at the DNS provider was refused or cancelled', { reason: 'access_denied', provider_message: input.error_description ?? input.error ?? 'no_code' })
    }
    const tokens = await exchangeCode(ctx.config, s.provider, input.code, s.code_verifier, now)
    const account = await ctx.tx((tx) => createAccount(tx, ctx.config, now, s.tenant_id, { kind: 'oauth', provider: s.provider, secret: JSON.stringify(tokens), apiUrl: null, label: null, access: 'continuous', createdBy: null }))
    const w = await writeThroughRail({ ...ctx, dns: ctx.services.dns }, c, { provider: s.provider, secret: tokens.access_token }, { accountId: account.id, managed: true, rail: 'oauth', announce: true, via: 'automatic' })
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    const body = { connection_id: c.id, domain: c.domain, status: w.row.status, changed: w.changed, account_id: account.id }
    if (s.return_url) {
      const back = new URL(s.return_url)
      back.searchParams.set('connection_id', c.id)
      back.searchParams.set('status', 'connected')
      return reply(302, body, { location: back.toString() })
    }
    return body
  },
})
