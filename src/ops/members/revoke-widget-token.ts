import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { revokeWidgetToken } from '../../db/widget-tokens.ts'
import { notFound } from '../../errors.ts'
import { KEYS_CHANNEL, notify } from '../../db/channels.ts'
import { defineOp } from '../registry.ts'
import { Input } from '../schemas.ts'
import { keyPrincipal, widgetTokenOut, WidgetTokenOut } from './shared.ts'

export const revokeWidgetTokenOp = defineOp({
  id: 'widget_tokens.revoke',
  method: 'DELETE',
  path: '/applications/{id}/widget-tokens/{tokenId}',
  summary: 'Revoke a widget token',
  description:
    'The token is refused from its next request on, by every process (401, as an expired one). For a token that outlives its page: ' +
    'a long `expires_in`, a page left open, a token that leaked. Revoking a revoked token answers 200 again. Admins and owners (`keys:manage`).',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'keys:manage',
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100 }), tokenId: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: WidgetTokenOut,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const t = await revokeWidgetToken(ctx.sql, p.tenantId, input.id, input.tokenId, ctx.clock.now())
    if (!t) throw notFound('Widget token not found')
    // Every process refuses it from the commit on (the key cache's channel carries token ids too).
    await notify(ctx.sql, KEYS_CHANNEL, t.id)
    ctx.afterCommit(() => ctx.services.widgetTokens.revoked.add(t.id, t.expires_at.getTime()))
    ctx.audit.targetId = t.id
    return widgetTokenOut(t)
  },
})
