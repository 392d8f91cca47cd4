import { type Static, Type } from '@sinclair/typebox'
import type { Template } from '../../domain/domain-connect/template.ts'
import { discover, type Discovery, withScheme } from '../../domain/domain-connect/discovery.ts'
import { providerRequest } from '../../domain/domain-connect/http.ts'
import { rfc3986Encode } from '../../domain/domain-connect/signing.ts'
import type { ConnectionRow } from '../../db/connections.ts'
import { type ConnectionPlan, planForConnection, uncovered } from '../../domain/domain-connect/connection.ts'
import { ApiError } from '../../errors.ts'
import { named } from '../../domain/named.ts'
import { connectionFor } from '../../domain/connections.ts'
import { assertApiRailOnly } from '../../domain/test-mode.ts'
import { isUrlSyntacticallyAllowed } from '../../adapters/ssrf.ts'
import { randomToken } from '../../ids.ts'
import { type ApplyStep, insertConsentSession } from '../../db/domain-connect-sessions.ts'
import { type Ctx, defineOp } from '../registry.ts'
import { refuseFirst, type Refusal } from '../checks.ts'
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

const StartBody = Input({
  service_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  service_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 20 })),
  managed: Type.Optional(Type.Boolean()),
  rail: Type.Optional(Type.Union([Type.Literal('sync'), Type.Literal('async')])),
  redirect_uri: Type.Optional(Type.String({ maxLength: 2000, description: 'Sync: where the provider sends the browser back (under the template\'s syncRedirectDomain). Async: where the callback sends it. Portico\'s own return page (`<PUBLIC_URL>/widget/return`, which closes the provider\'s window) is always accepted; on the sync rail it is left out of the apply URL when the template\'s syncRedirectDomain does not cover it' })),
  state: Type.Optional(Type.String({ maxLength: 500, description: 'Sync only: echoed back on redirect_uri' })),
})
type StartInput = Static<typeof StartBody>

/** What a start is judged on before templates are chosen. */
interface StartFacts {
  c: ConnectionRow
  dc: Discovery | null
  input: StartInput
}

/**
 * What domainconnect:start refuses before choosing templates, in order (the first that holds answers):
 * what the domain check did not advertise is refused with its reason. Each row may rely on the rows
 * above it (a discovery, then its settings).
 */
export const START_REFUSALS: readonly Refusal<StartFacts>[] = [
  { when: ({ c }) => c.records_source === 'custom', code: 'conflict', reason: 'custom_records', title: 'The one-click rail cannot set an integrator-authored record set; use the manual or API rail' },
  { when: ({ dc }) => !dc, code: 'conflict', reason: 'not_discovered', title: ({ c }) => `${c.apex_domain} has no _domainconnect record: its DNS provider does not offer one-click setup` },
  { when: ({ dc }) => !dc!.settings, code: 'conflict', reason: 'settings_unreachable', title: ({ c, dc }) => `The Domain Connect settings of ${c.apex_domain} could not be read (${dc!.error ?? 'unknown'})` },
  { when: ({ input }) => input.rail === 'sync' && input.managed === true, code: 'invalid_request', title: 'managed: true needs the async rail' },
  // The managed rail asked for but not offered falls through to the sync rail (CONTRACT: "on the sync
  // fallthrough only the first applies"); the sync rail asked for is not offered instead.
  { when: ({ input, dc }) => input.rail === 'sync' && !dc!.sync, code: 'conflict', reason: 'sync_unsupported', title: ({ dc }) => `${dc!.settings!.providerName} does not offer the synchronous rail` },
  { when: ({ dc }) => !dc!.sync && !dc!.async, code: 'conflict', reason: 'provider_unsupported', title: ({ dc }) => `${dc!.settings!.providerName} offers neither rail to this deployment` },
  { when: ({ input }) => Boolean(input.service_ids && input.service_id && !input.service_ids.includes(input.service_id)), code: 'invalid_request', title: 'service_id must be one of service_ids' },
]

/** What a start is judged on once its rail and templates are chosen. */
interface PlanFacts extends StartFacts {
  config: Ctx['config']
  rail: 'sync' | 'async'
  plans: ConnectionPlan[]
  unsupported: Set<string>
}

const notSupported = ({ plans, unsupported }: PlanFacts) => plans.find((p) => unsupported.has(templateKey(p.template)))?.template
const ownReturn = (config: Ctx['config'], redirectUri: string | undefined) => redirectUri?.startsWith(`${config.publicUrl}${RETURN_PATH}`) ?? false
// Where the callback sends the browser: https only (plain http to loopback under the test setting).
const redirectCheck = ({ config, input }: PlanFacts) => isUrlSyntacticallyAllowed(input.redirect_uri!, { allowLoopback: config.webhookAllowLoopback, requireHttps: true })

/** What domainconnect:start refuses once the templates are chosen, in order. Portico's own return page needs no check. */
export const PLAN_REFUSALS: readonly Refusal<PlanFacts>[] = [
  { when: (f) => notSupported(f) !== undefined, code: 'conflict', reason: 'template_unsupported', title: (f) => `${f.dc!.settings!.providerName} does not support the template ${notSupported(f)!.providerId}/${notSupported(f)!.serviceId}` },
  { when: ({ rail, plans }) => rail === 'async' && new Set(plans.map((p) => p.template.providerId.toLowerCase())).size > 1, code: 'invalid_request', title: 'Templates under one consent must share their providerId' },
  {
    when: (f) => f.rail === 'async' && f.input.redirect_uri !== undefined && !ownReturn(f.config, f.input.redirect_uri) && !redirectCheck(f).ok,
    code: 'invalid_request',
    title: (f) => `redirect_uri is not allowed: ${(redirectCheck(f) as { reason: string }).reason}`,
    details: () => [{ in: 'body', field: 'redirect_uri', message: 'must be an absolute https URL' }],
  },
]

/** Opens the managed rail's consent session and answers the provider's consent URL: one consent covers every template. */
async function startConsent(ctx: Ctx, c: ConnectionRow, dc: Discovery, plans: ConnectionPlan[], input: StartInput): Promise<string> {
  const settings = dc.settings!
  const first = plans[0]!
  const serviceIds = plans.map((p) => p.template.serviceId)
  const client = ctx.config.domainConnect.asyncClients[settings.providerId.toLowerCase()]!
  const state = randomToken(24)
  const now = ctx.clock.now()
  const callback = `${ctx.config.publicUrl}${CALLBACK_PATH}`
  // The groups and variables of each template are sent with its own apply call.
  const applies: ApplyStep[] = plans.map((p) => ({ service_id: p.template.serviceId, group_ids: p.groupIds ?? null, params: p.params }))
  await insertConsentSession(ctx.sql, { state, c, dc: settings, client, first, serviceIds, applies, callback, input, now, ttlMs: SESSION_TTL_MS })
  const q = [
    ['domain', first.domain],
    ...(first.host ? [['host', first.host]] : []),
    ['client_id', client.client_id],
    ['redirect_uri', callback],
    ['response_type', 'code'],
    ['scope', serviceIds.join(' ')],
    ['state', state],
  ]
  return `${withScheme(settings.urlAsyncUX!, ctx.config.webhookAllowLoopback)}/v2/domainTemplates/providers/${rfc3986Encode(first.template.providerId)}?${q.map(([k, v]) => `${k}=${rfc3986Encode(v!)}`).join('&')}`
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
  body: StartBody,
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
    refuseFirst(START_REFUSALS, { c, dc: pre.discovery, input })
    // START_REFUSALS refused a provider without a discovery or settings, and one offering neither rail.
    const dc = pre.discovery!
    const settings = dc.settings!
    // The managed rail when asked for and offered; sync is the default, unless the provider offers only the managed rail.
    const wantsAsync = input.rail === 'async' || input.managed === true
    const rail: 'sync' | 'async' = (wantsAsync && dc.async) || !dc.sync ? 'async' : 'sync'
    const ids = input.service_ids ?? (input.service_id ? [input.service_id] : [])
    const plans = plansFor(ctx, c, rail === 'sync' ? ids.slice(0, 1) : ids)
    refuseFirst(PLAN_REFUSALS, { c, dc, input, config: ctx.config, rail, plans, unsupported: pre.unsupported })
    const serviceIds = plans.map((p) => p.template.serviceId)
    const answer = { service_id: serviceIds[0]!, service_ids: serviceIds, dc_provider: settings.providerId, dc_provider_name: settings.providerDisplayName ?? settings.providerName, dc_host: dc.host, rail }
    ctx.audit.details = { rail, service_ids: serviceIds, dc_provider: settings.providerId }
    if (rail === 'sync') {
      const first = plans[0]!
      const applyUrl = signedApplyUrl(ctx, {
        template: first.template,
        providerBase: settings.urlSyncUX!,
        domain: first.domain,
        host: first.host,
        params: first.params,
        groupIds: first.groupIds,
        redirectUri: redirectFor(ctx, first.template, input.redirect_uri),
        state: input.state,
      })
      return { apply_url: applyUrl, consent_url: null, ...answer, managed: false }
    }
    return { apply_url: null, consent_url: await startConsent(ctx, c, dc, plans, input), ...answer, managed: true }
  },
})
