import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { liveWidgetTokens } from '../../db/widget-tokens.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Out } from '../schemas.ts'
import { keyPrincipal, widgetTokenOut, WidgetTokenOut } from './shared.ts'

export const listWidgetTokensOp = defineOp({
  id: 'widget_tokens.list',
  method: 'GET',
  path: '/applications/{id}/widget-tokens',
  summary: 'List an application\'s widget tokens still valid',
  description:
    'The widget tokens minted for this application that have not expired, newest first (at most 500), revoked ones marked with `revoked_at`. ' +
    'Never the tokens themselves: their ids, scope, bound hostname and times.',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'keys:read',
  params: IdParam,
  response: Out({ widget_tokens: Type.Array(WidgetTokenOut), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const rows = await liveWidgetTokens(ctx.sql, p.tenantId, input.id, ctx.clock.now(), 500)
    return { widget_tokens: rows.map(widgetTokenOut), count: rows.length }
  },
})
