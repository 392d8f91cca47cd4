import { Type } from '@sinclair/typebox'
import { applicationOut, getApplicationInTenant } from '../../domain/tenancy.ts'
import { validateBranding } from '../../domain/branding.ts'
import { addressResolver } from '../../domain/webhook-delivery.ts'
import { invalid } from '../../errors.ts'
import { setBranding } from '../../db/applications.ts'
import { defineOp } from '../registry.ts'
import { Application, IdParam, Input, Nullable } from '../schemas.ts'
import { TAG } from './shared.ts'

export const putBrandingOp = defineOp({
  id: 'applications.branding.put',
  method: 'PUT',
  path: '/applications/{id}/branding',
  summary: 'Set how an application presents itself to people',
  description:
    'Replaces the application\'s branding, shown on the share page, the consent page and the widget (which reads it from ' +
    '`GET /v1/applications/{id}` with its widget token: the `branding` field). A field left out or null is cleared; all three ' +
    'null (or an empty body) removes the branding, and the pages go back to the workspace\'s name and neutral colours. ' +
    '`display_name`: up to 80 characters. `logo_url`: an https URL whose host resolves only to public addresses (Portico never ' +
    'fetches it; visitors\' browsers do), or a `data:image/(png|jpeg|gif|webp|svg+xml);base64,…` URL of at most 32 KB whose bytes ' +
    'are that format. `accent_color`: `#rrggbb`; the answer adds `accent_foreground` (black or white, whichever contrasts more ' +
    'with the accent) and `accent_text` (the accent darkened to 4.5:1 on white), which the pages use so text stays readable ' +
    'whatever the colour. Admins and owners only. Sending the same branding again changes nothing.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({
    display_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    logo_url: Type.Optional(Nullable(Type.String({ maxLength: 48 * 1024 }))),
    accent_color: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
  }),
  response: Application,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = ctx.principal
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const { branding, problems } = await validateBranding(input ?? {}, { allowLoopback: ctx.config.webhookAllowLoopback, resolve: addressResolver(ctx.services.dns) })
    if (problems.length) throw invalid('The branding is not valid', problems)
    const empty = !branding.display_name && !branding.logo_url && !branding.accent_color
    const row = await setBranding(ctx.sql, input.id, p.tenantId, empty ? null : branding, ctx.clock.now())
    ctx.audit.details = { display_name: branding.display_name, logo: branding.logo_url ? (branding.logo_url.startsWith('data:') ? 'data' : 'url') : null, accent_color: branding.accent_color }
    return applicationOut(row)
  },
})
