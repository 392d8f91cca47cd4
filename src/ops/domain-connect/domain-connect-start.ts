import { Type } from '@sinclair/typebox'
import type { Template } from '../../domain/domain-connect/template.ts'
import { discover, type Discovery, withScheme } from '../../domain/domain-connect/discovery.ts'
import { providerRequest } from '../../domain/domain-connect/http.ts'
import { rfc3986Encode } from '../../domain/domain-connect/signing.ts'
import type { ConnectionRow } from '../../db/connections.ts'
import { type ConnectionPlan, planForConnection, uncovered } from '../../domain/domain-connect/connection.ts'
import { ApiError, type ErrorReason, invalid } from '../../errors.ts'
import { named } from '../../domain/named.ts'
import { connectionFor } from '../../domain/connections.ts'
import { assertApiRailOnly } from '../../domain/test-mode.ts'
import { isUrlSyntacticallyAllowed } from '../../adapters/ssrf.ts'
import { randomToken } from '../../ids.ts'
import { type ApplyStep, insertConsentSession } from '../../db/domain-connect-sessions.ts'
import { type Ctx, defineOp } from '../registry.ts'
import { IdParam, Input, Nullable, Out } from '../schemas.ts'
import { END_USER } from '../authority.ts'
import { BaseCtx, catalog, deps, pickTemplate, redirectAllowed, signedApplyUrl } from './shared.ts'

const SESSION_TTL_MS = 60 * 60 * 1000

const CALLBACK_PATH = '/v1/connect/domainconnect/callback'

/** Portico's own page that closes the provider's window when it comes back (src/widget/route.ts). */
export const RETURN_PATH = '/widget/return'

/**
 * The widget asks for Portico's own return page; a template whose syncRedirectDomain does not cover
 * Portico's host cannot take it, and the apply URL then goes without one (the provider's window stays
 * open, as it would with none asked for) rather than being refused.
 */
function redirectFor(ctx: Pick<Ctx, 'config'>, t: Template, redirectUri: string | undefined): string | undefined {
  if (redirectUri === undefined || !redirectUri.startsWith(`${ctx.config.publicUrl}${RETURN_PATH}`)) return redirectUri
  return redirectAllowed(t, new URL(redirectUri)) ? redirectUri : undefined
}


interface StartPrepared {
  discovery: Discovery | null
  /** Templates the provider said it does not support (spec "Query Supported Template"), by `providerId/serviceId`. */
  unsupported: Set<string>
}

const templateKey = (t: Template) => `${t.providerId}/${t.serviceId}`.toLowerCase()

/** Asks the provider's API whether it has onboarded each template; only a 404 counts as "no". */
async function unsupportedTemplates(ctx: BaseCtx, urlApi: string, templates: Template[]): Promise<Set<string>> {
  const out = new Set<string>()
  const base = withScheme(urlApi, ctx.config.webhookAllowLoopback)
  await Promise.all(
    templates.map(async (t) => {
      const r = await providerRequest(deps(ctx), `${base}/v2/domainTemplates/providers/${rfc3986Encode(t.providerId)}/services/${rfc3986Encode(t.serviceId)}`, { method: 'GET' })
      if (r.ok && r.status === 404) out.add(templateKey(t))
    }),
  )
  return out
}

/** The templates a connection can be set up with: the named ones, else the first loaded template that fits it. */
function plansFor(ctx: Pick<Ctx, 'services'>, c: ConnectionRow, serviceIds: string[]): ConnectionPlan[] {
  if (serviceIds.length > 0) {
    const several = serviceIds.length > 1
    const plans = serviceIds.map((id) => {
      const plan = planForConnection(pickTemplate(ctx, id), c, { cover: !several })
      if (!plan.ok) throw new ApiError('conflict', `Template ${id} cannot set this connection's records: ${plan.error}`, { reason: 'template_mismatch' })
      return plan.plan
    })
    const missing = uncovered(plans.map((p) => p.records), c)
    if (missing.length > 0) throw new ApiError('conflict', `The templates do not set ${missing.join(', ')}`, { reason: 'template_mismatch' })
    return plans
  }
  const all = catalog(ctx).templates
  for (const t of all) {
    const plan = planForConnection(t, c)
    if (plan.ok) return [plan.plan]
  }
  throw new ApiError('conflict', 'No loaded template sets this connection\'s records; name one with service_id', { reason: 'no_template' })
}

function refuse(reason: ErrorReason, title: string): never {
  throw new ApiError('conflict', title, { reason })
}

const StartResponse = named('DomainConnectStart', Out({
  apply_url: Nullable(Type.String({ description: 'Synchronous rail: open this URL in the end user\'s browser' })),
  consent_url: Nullable(Type.String({ description: 'Asynchronous (managed) rail: the DNS Provider\'s consent page' })),
  service_id: Type.String(),
  service_ids: Type.Array(Type.String()),
  dc_provider: Type.String({ description: 'The DNS provider\'s Domain Connect `providerId` (from its settings)' }),
  dc_provider_name: Type.String(),
  dc_host: Type.String({ description: 'The `_domainconnect` host the settings were read from' }),
  rail: Type.Union([Type.Literal('sync'), Type.Literal('async')]),
  managed: Type.Boolean({ description: 'True on the async rail: Portico keeps a grant to change the records later' }),
}))

export const domainConnectStartOp = defineOp({
  id: 'connections.domainconnect_start',
  method: 'POST',
  path: '/connections/{id}/domainconnect:start',
  summary: 'Start the one-click (Domain Connect) rail',
  description:
    'Discovers the DNS Provider of the connection\'s zone (`_domainconnect` TXT, then its settings) and answers the URL to send the ' +
    'end user to. Default: the synchronous rail (`apply_url`, signed when the template asks). `rail: async` or `managed: true` ' +
    'requests the managed rail: when the provider offers it, `consent_url` at the provider, `rail: async`, `managed: true`, and ' +
    'several `service_ids` go under one consent; when it does not, the request falls through to the sync rail (`rail: sync`, ' +
    '`managed: false`) where only the first template applies. A provider offering only the managed rail gets it by default. ' +
    '`service_id` may be omitted: the first loaded template that sets the connection\'s desired records is used. Refused with 409 ' +
    '(`details.reason`) what the domain check did not advertise: `not_discovered` (no `_domainconnect` record), ' +
    '`settings_unreachable`, `sync_unsupported` (`rail: sync` at a provider without it), `provider_unsupported` (neither rail), ' +
    '`template_unsupported` (the provider\'s API says it has not onboarded the template); or when ' +
    'the connection carries an integrator-authored record set (`custom_records`) or no template fits (`template_mismatch`, `no_template`).',
  tag: 'Domains and connections',
  auth: ['WIDGET', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({
    service_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    service_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 20 })),
    managed: Type.Optional(Type.Boolean()),
    rail: Type.Optional(Type.Union([Type.Literal('sync'), Type.Literal('async')])),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2000, description: 'Sync: where the provider sends the browser back (under the template\'s syncRedirectDomain). Async: where the callback sends it. Portico\'s own return page (`<PUBLIC_URL>/widget/return`, which closes the provider\'s window) is always accepted; on the sync rail it is left out of the apply URL when the template\'s syncRedirectDomain does not cover it' })),
    state: Type.Optional(Type.String({ maxLength: 500, description: 'Sync only: echoed back on redirect_uri' })),
  }),
  response: StartResponse,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'service_unavailable'],
  kind: 'write',
  zone: 'looks',
  agent: {
    description: 'Starts the one-click setup (Domain Connect) at the domain\'s DNS provider: returns the link for the person to open and confirm there; the provider then writes the records. Use when domains_check says the domainConnect rail is available.',
    toolset: 'connect',
    inputs: ['id'],
    output: ['apply_url', 'consent_url', 'dc_provider_name'],
  },
  async prepare(ctx, input): Promise<StartPrepared> {
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    assertApiRailOnly(c.domain)
    const discovery = await discover(deps(ctx), ctx.services.dns, c.apex_domain)
    let candidates: Template[] = []
    try {
      const ids = input.service_ids ?? (input.service_id ? [input.service_id] : [])
      candidates = ids.length > 0 ? ids.map((id) => pickTemplate(ctx, id)) : plansFor(ctx, c, []).map((p) => p.template)
    } catch {
      // The handler answers the refusal with its reason.
    }
    const urlApi = discovery?.settings?.urlAPI
    return { discovery, unsupported: urlApi ? await unsupportedTemplates(ctx, urlApi, candidates) : new Set() }
  },
  async handler(ctx, input, pre: StartPrepared) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    if (c.records_source === 'custom') refuse('custom_records', 'The one-click rail cannot set an integrator-authored record set; use the manual or API rail')
    const dc = pre.discovery
    if (!dc) refuse('not_discovered', `${c.apex_domain} has no _domainconnect record: its DNS provider does not offer one-click setup`)
    if (!dc.settings) refuse('settings_unreachable', `The Domain Connect settings of ${c.apex_domain} could not be read (${dc.error ?? 'unknown'})`)
    const wantsAsync = input.rail === 'async' || input.managed === true
    if (input.rail === 'sync' && input.managed === true) throw invalid('managed: true needs the async rail')
    // The managed rail when asked for and offered; asked for but not offered, the request falls through to
    // the sync rail (CONTRACT: "on the sync fallthrough only the first applies"). Sync is the default,
    // unless the provider offers only the managed rail.
    if (input.rail === 'sync' && !dc.sync) refuse('sync_unsupported', `${dc.settings.providerName} does not offer the synchronous rail`)
    if (!dc.sync && !dc.async) refuse('provider_unsupported', `${dc.settings.providerName} offers neither rail to this deployment`)
    const rail: 'sync' | 'async' = (wantsAsync && dc.async) || !dc.sync ? 'async' : 'sync'
    const ids = input.service_ids ?? (input.service_id ? [input.service_id] : [])
    if (input.service_ids && input.service_id && !input.service_ids.includes(input.service_id)) throw invalid('service_id must be one of service_ids')
    const plans = plansFor(ctx, c, rail === 'sync' ? ids.slice(0, 1) : ids)
    const notThere = plans.find((p) => pre.unsupported.has(templateKey(p.template)))
    if (notThere) refuse('template_unsupported', `${dc.settings.providerName} does not support the template ${notThere.template.providerId}/${notThere.template.serviceId}`)
    const first = plans[0]!
    const dcProvider = { dc_provider: dc.settings.providerId, dc_provider_name: dc.settings.providerDisplayName ?? dc.settings.providerName, dc_host: dc.host }
    const serviceIds = plans.map((p) => p.template.serviceId)
    ctx.audit.details = { rail, service_ids: serviceIds, dc_provider: dc.settings.providerId }
    if (rail === 'sync') {
      const applyUrl = signedApplyUrl(ctx, {
        template: first.template,
        providerBase: dc.settings.urlSyncUX!,
        domain: first.domain,
        host: first.host,
        params: first.params,
        groupIds: first.groupIds,
        redirectUri: redirectFor(ctx, first.template, input.redirect_uri),
        state: input.state,
      })
      return { apply_url: applyUrl, consent_url: null, service_id: serviceIds[0]!, service_ids: serviceIds, ...dcProvider, rail, managed: false }
    }
    if (new Set(plans.map((p) => p.template.providerId.toLowerCase())).size > 1) throw invalid('Templates under one consent must share their providerId')
    // Portico's own return page is where the widget asks to come back; it needs no check.
    const ownReturn = input.redirect_uri?.startsWith(`${ctx.config.publicUrl}${RETURN_PATH}`) ?? false
    if (input.redirect_uri !== undefined && !ownReturn) {
      // Where the callback sends the browser: https only (plain http to loopback under the test setting).
      const ok = isUrlSyntacticallyAllowed(input.redirect_uri, { allowLoopback: ctx.config.webhookAllowLoopback, requireHttps: true })
      if (!ok.ok) throw invalid(`redirect_uri is not allowed: ${ok.reason}`, [{ in: 'body', field: 'redirect_uri', message: 'must be an absolute https URL' }])
    }
    const client = ctx.config.domainConnect.asyncClients[dc.settings.providerId.toLowerCase()]!
    const state = randomToken(24)
    const now = ctx.clock.now()
    const callback = `${ctx.config.publicUrl}${CALLBACK_PATH}`
    // One consent covers every template; the groups and variables of each are sent with its own apply call.
    const applies: ApplyStep[] = plans.map((p) => ({ service_id: p.template.serviceId, group_ids: p.groupIds ?? null, params: p.params }))
    await insertConsentSession(ctx.sql, { state, c, dc: dc.settings, client, first, serviceIds, applies, callback, input, now, ttlMs: SESSION_TTL_MS })
    const q = [
      ['domain', first.domain],
      ...(first.host ? [['host', first.host]] : []),
      ['client_id', client.client_id],
      ['redirect_uri', callback],
      ['response_type', 'code'],
      ['scope', serviceIds.join(' ')],
      ['state', state],
    ]
    const consentUrl = `${withScheme(dc.settings.urlAsyncUX!, ctx.config.webhookAllowLoopback)}/v2/domainTemplates/providers/${rfc3986Encode(first.template.providerId)}?${q.map(([k, v]) => `${k}=${rfc3986Encode(v!)}`).join('&')}`
    return { apply_url: null, consent_url: consentUrl, service_id: serviceIds[0]!, service_ids: serviceIds, ...dcProvider, rail, managed: true }
  },
})
