import { Type } from '@sinclair/typebox'
import { applicationSecret } from '../../db/applications.ts'
import { matchesHash } from '../../crypto.ts'
import { ApiError, unauthorized } from '../../errors.ts'
import { normalizeHostname } from '../../domain/hostnames.ts'
import { WIDGET_TOKEN_TTL_SECONDS } from '../../domain/widget-tokens.ts'
import { newId } from '../../ids.ts'
import { insertWidgetToken } from '../../db/widget-tokens.ts'
import { defineOp } from '../registry.ts'
import { Input, Out } from '../schemas.ts'

export const createTokenOp = defineOp({
  id: 'tokens.create',
  method: 'POST',
  path: '/tokens',
  summary: 'Mint a widget token',
  description:
    'Server-side only: authenticated by the application\'s `client_secret` in the body, never by a bearer. The token is a JWT for one ' +
    'application, valid `expires_in` seconds (default 3600). `domain` binds it to one hostname: it may then act only on that hostname. ' +
    '`scope` is `connect` (default; the end-user flow) or `app` (also reads application-level data such as billing standing).',
  tag: 'Tokens and members',
  auth: ['NONE'],
  guessable: true,
  body: Input({
    application_id: Type.String({ minLength: 1, maxLength: 100 }),
    client_secret: Type.String({ minLength: 1, maxLength: 200 }),
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    scope: Type.Optional(Type.Union([Type.Literal('connect'), Type.Literal('app')])),
    expires_in: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400, description: 'Seconds (default 3600)' })),
  }),
  response: Out({
    token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    token_id: Type.String({ description: 'The token\'s id: GET /applications/{id}/widget-tokens lists it, DELETE revokes it' }),
  }),
  errors: ['invalid_request', 'unauthorized'],
  kind: 'write',
  internal: true,
  async handler(ctx, input) {
    const app = await applicationSecret(ctx.sql, input.application_id)
    // An unknown application and a wrong secret answer the same.
    const now = ctx.clock.now()
    const current = app && matchesHash(input.client_secret, app.client_secret_hash)
    // The secret a rotation replaced works until the overlap it was given ends (applications:rotate-secret).
    const previous = app && !current && app.previous_client_secret_hash && app.previous_secret_until && app.previous_secret_until > now && matchesHash(input.client_secret, app.previous_client_secret_hash)
    if (!app || (!current && !previous)) throw unauthorized('Unknown application or wrong client_secret')
    let boundHost: string | null = null
    if (input.domain !== undefined) {
      boundHost = normalizeHostname(input.domain)
      if (!boundHost) throw new ApiError('invalid_request', 'domain is not a valid hostname', [{ in: 'body', field: 'domain', message: 'not a hostname' }])
    }
    const ttl = input.expires_in ?? WIDGET_TOKEN_TTL_SECONDS
    const scope = input.scope ?? 'connect'
    // Recorded by id, so the integrator can list the tokens still valid and revoke one (widget_tokens.list).
    const tokenId = newId('wtk', now.getTime())
    await insertWidgetToken(ctx.sql, { id: tokenId, tenant_id: app.tenant_id, application_id: app.id, scope, bound_host: boundHost, created_at: now, expires_at: new Date(now.getTime() + ttl * 1000) })
    const token = await ctx.services.widgetTokens.mint({ tenantId: app.tenant_id, applicationId: app.id, scope, boundHost }, now, ttl, tokenId)
    ctx.audit = { tenantId: app.tenant_id, targetId: app.id, details: { bound_host: boundHost, scope, token_id: tokenId } }
    return { token, token_type: 'Bearer' as const, expires_in: ttl, token_id: tokenId }
  },
})
