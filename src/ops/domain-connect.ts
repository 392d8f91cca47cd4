// Domain Connect (CONTRACT.md section 4, "Templates" and "Domains and connections"): the template
// catalog (GET /templates), signed synchronous apply URLs (POST /templates/{serviceId}/apply-url),
// the one-click rail of a connection (POST /connections/{id}/domainconnect:start) and the return of
// the asynchronous (OAuth) rail (GET /connect/domainconnect/callback).
//
// Rules:
// - A rail is offered only when the DNS Provider advertises it in its settings (discovery.ts), the
//   same reading the domain check makes, so start refuses what the check did not advertise.
// - Sync apply URLs of templates with `syncPubKeyDomain` are signed (RS256) with the deployment key;
//   the public key is published at `<DOMAIN_CONNECT_KEY_HOST>.<syncPubKeyDomain>` (see GET /templates).
// - The async rail: a consent session (random state, stored hashed, single use, one hour), then the
//   callback exchanges the code at the provider's registered API (the client's url_api, never the
//   discovered urlAPI, which a forged `_domainconnect` record could point anywhere) and applies each
//   template through it; every request goes through the SSRF guard. The connection becomes managed and propagating and
//   `connection.applied` (`via: async`) is written in the same transaction.
import { assertApiRailOnly } from '../domain/test-mode.ts'
import { named } from '../domain/named.ts'
import { Type } from '@sinclair/typebox'
import { ApiError, invalid, notFound, unavailable, type ErrorReason } from '../errors.ts'
import { connectionFor, assertHostAllowed } from '../domain/connections.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { parseDomain } from '../domain/hostnames.ts'
import { newId, randomToken } from '../ids.ts'
import { signingPublication, templateOut } from '../domain/templates.ts'
import { applyTemplate } from '../domain/domain-connect/apply.ts'
import { buildSyncApplyUrl, rfc3986Encode } from '../domain/domain-connect/signing.ts'
import type { Template } from '../domain/domain-connect/template.ts'
import { discover, withScheme, type Discovery } from '../domain/domain-connect/discovery.ts'
import { planForConnection, uncovered, type ConnectionPlan } from '../domain/domain-connect/connection.ts'
import { providerRequest } from '../domain/domain-connect/http.ts'
import { applySteps, storeGrant, tokenRequest, type Tokens } from '../domain/domain-connect/async-api.ts'
import type { ApplyStep } from '../db/domain-connect-sessions.ts'
import { isUrlSyntacticallyAllowed } from '../adapters/ssrf.ts'
import { markAccessDenied } from '../db/connections.ts'
import { appliedThroughConsent } from '../domain/connect.ts'
import {
  claimConsentSession,
  connectionOpen,
  consentOutcome,
  consentSession,
  insertConsentSession,
  lockConnection,
  saveConsentOutcome,
  type CallbackOutcome,
  type SessionRow,
} from '../db/domain-connect-sessions.ts'
import { defineOp, reply, type Ctx, type PrepareCtx } from './registry.ts'
import { END_USER } from './authority.ts'
import { IdParam, Input, Nullable, Out } from './schemas.ts'

const SESSION_TTL_MS = 60 * 60 * 1000
const CALLBACK_PATH = '/v1/connect/domainconnect/callback'

type BaseCtx = PrepareCtx

function catalog(ctx: Pick<Ctx, 'services'>) {
  const c = ctx.services.templates
  if (!c) throw unavailable('Templates are not loaded on this deployment')
  return c
}

function deps(ctx: BaseCtx) {
  return { dns: ctx.services.dns, allowLoopback: ctx.config.webhookAllowLoopback, asyncClients: ctx.config.domainConnect.asyncClients, timeoutMs: 5000 }
}

// ---------------------------------------------------------------- GET /templates

export const listTemplatesOp = defineOp({
  id: 'templates.list',
  method: 'GET',
  path: '/templates',
  summary: 'One-click setup service templates',
  description:
    'The Domain Connect templates this deployment serves, loaded at start from `DOMAIN_CONNECT_TEMPLATES_DIR` (files in the public ' +
    'template format). A file that failed validation is listed under `rejected` with its name and reasons (it is also logged at ' +
    'start), never dropped silently. `signing` gives the TXT records to publish at `<key>.<syncPubKeyDomain>` so DNS Providers can ' +
    'verify signed apply URLs.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  response: Out({
    templates: Type.Array(Type.Object({}, { additionalProperties: true })),
    count: Type.Integer(),
    rejected: Type.Array(Out({ file: Type.String(), errors: Type.Array(Type.String()) })),
    ignored: Type.Array(Type.String(), { description: 'Files of the directory that are not `*.json`, not read as templates' }),
    signing: Nullable(Out({ key: Type.String(), algorithm: Type.String(), publish_at: Type.Array(Type.String()), txt: Type.Array(Type.String()) })),
  }),
  errors: ['service_unavailable'],
  kind: 'read',
  internal: true,
  async handler(ctx) {
    const c = catalog(ctx)
    const dc = ctx.config.domainConnect
    return { templates: c.templates.map(templateOut), count: c.templates.length, rejected: c.rejected, ignored: c.ignored, signing: signingPublication(dc.privateKeyPem, dc.keyHost, c.templates) }
  },
})

// ---------------------------------------------------------------- apply URLs

function pickTemplate(ctx: Pick<Ctx, 'services'>, serviceId: string, providerId?: string): Template {
  const found = catalog(ctx).find(serviceId, providerId)
  if (found.length === 0) throw notFound(`No template ${providerId ? `${providerId}/` : ''}${serviceId} is loaded`)
  if (found.length > 1) {
    throw invalid(`Several providers publish a template ${serviceId}; name one with provider_id`, [
      { in: 'body', field: 'provider_id', message: `one of ${found.map((t) => t.providerId).join(', ')}` },
    ])
  }
  return found[0]!
}

/** Portico's own page that closes the provider's window when it comes back (src/widget/route.ts). */
export const RETURN_PATH = '/widget/return'

const redirectAllowed = (t: Template, url: URL) => {
  const allowed = (t.syncRedirectDomain ?? '').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean)
  const host = url.hostname.toLowerCase()
  return allowed.some((d) => host === d || host.endsWith(`.${d}`))
}

/**
 * The widget asks for Portico's own return page; a template whose syncRedirectDomain does not cover
 * Portico's host cannot take it, and the apply URL then goes without one (the provider's window stays
 * open, as it would with none asked for) rather than being refused.
 */
function redirectFor(ctx: Pick<Ctx, 'config'>, t: Template, redirectUri: string | undefined): string | undefined {
  if (redirectUri === undefined || !redirectUri.startsWith(`${ctx.config.publicUrl}${RETURN_PATH}`)) return redirectUri
  return redirectAllowed(t, new URL(redirectUri)) ? redirectUri : undefined
}

/** The spec: the redirect_uri's host must be in the template's syncRedirectDomain list (or at a name below one). */
function checkRedirect(t: Template, redirectUri: string | undefined): void {
  if (redirectUri === undefined) return
  let url: URL
  try {
    url = new URL(redirectUri)
  } catch {
    throw invalid('redirect_uri is not a URL', [{ in: 'body', field: 'redirect_uri', message: 'must be an absolute URL' }])
  }
  const allowed = (t.syncRedirectDomain ?? '').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean)
  if (!redirectAllowed(t, url)) {
    throw invalid(`redirect_uri must be under the template's syncRedirectDomain (${allowed.join(', ') || 'none'})`, [{ in: 'body', field: 'redirect_uri', message: 'host not allowed by the template' }])
  }
}

interface SyncUrlInput {
  template: Template
  providerBase: string
  domain: string
  host: string
  params: Record<string, string>
  groupIds?: string[]
  redirectUri?: string
  state?: string
}

function signedApplyUrl(ctx: Pick<Ctx, 'config'>, i: SyncUrlInput): string {
  if (i.template.syncBlock) throw invalid(`${i.template.serviceId} does not allow the synchronous flow (syncBlock)`)
  checkRedirect(i.template, i.redirectUri)
  const dc = ctx.config.domainConnect
  const signed = i.template.syncPubKeyDomain !== undefined
  if (signed && !dc.privateKeyPem) throw unavailable('Signed apply URLs need DOMAIN_CONNECT_PRIVATE_KEY on this deployment')
  try {
    return buildSyncApplyUrl({
      providerBase: withScheme(i.providerBase, ctx.config.webhookAllowLoopback),
      providerId: i.template.providerId,
      serviceId: i.template.serviceId,
      domain: i.domain,
      host: i.host || undefined,
      params: i.params,
      groupId: i.groupIds,
      redirectUri: i.redirectUri,
      state: i.state,
      ...(signed ? { keyHost: dc.keyHost, privateKeyPem: dc.privateKeyPem! } : {}),
    })
  } catch (err) {
    throw invalid((err as Error).message)
  }
}

const ProviderBase = Type.String({ minLength: 1, maxLength: 500, description: 'The DNS Provider\'s `urlSyncUX` from its Domain Connect settings' })

export const applyUrlOp = defineOp({
  id: 'templates.apply_url',
  method: 'POST',
  path: '/templates/{serviceId}/apply-url',
  summary: 'Build a synchronous Domain Connect apply URL',
  description:
    'Builds `{provider_base}/v2/domainTemplates/providers/{providerId}/services/{serviceId}/apply?…` for `domain` (a hostname: the ' +
    'zone and host are split at the registrable domain unless `host` is given), with the template variables in `params`. The ' +
    'template is rendered first, so a missing variable, an unknown group or a value DNS cannot hold is a 400 here rather than at the ' +
    'DNS Provider. Templates with `syncPubKeyDomain` are signed with RS256 (`sig` and `key` parameters) with the deployment key ' +
    '(`DOMAIN_CONNECT_PRIVATE_KEY`; 503 when a production deployment has none); the provider fetches the public key from TXT at ' +
    '`<key>.<syncPubKeyDomain>` (`key` is `DOMAIN_CONNECT_KEY_HOST`, default `_dck1`; the records to publish are in `GET /templates` ' +
    'under `signing`). `redirect_uri` must be under the template\'s `syncRedirectDomain`.',
  tag: 'Templates, Secure, Monitor',
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:write',
  params: Input({ serviceId: Type.String({ minLength: 1, maxLength: 200 }) }),
  body: Input({
    domain: Type.String({ minLength: 1, maxLength: 300 }),
    provider_base: ProviderBase,
    provider_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The template\'s providerId, when several providers publish this serviceId' })),
    host: Type.Optional(Type.String({ maxLength: 253, description: 'The host within `domain`; omitted: split from `domain`' })),
    params: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' }), Type.String({ maxLength: 2000 }))),
    group_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2000 })),
    state: Type.Optional(Type.String({ maxLength: 1000 })),
  }),
  response: Out({ apply_url: Type.String(), signed: Type.Boolean(), provider_id: Type.String(), service_id: Type.String() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'read',
  async handler(ctx, input) {
    const template = pickTemplate(ctx, input.serviceId, input.provider_id)
    let domain: string
    let host: string
    if (input.host !== undefined) {
      const d = parseDomain(input.domain)
      if (!d) throw invalid('domain is not a domain name', [{ in: 'body', field: 'domain', message: 'not a valid domain name' }])
      domain = d.domain
      host = input.host.trim().toLowerCase().replace(/^@$/, '')
    } else {
      const d = parseDomain(input.domain)
      if (!d) throw invalid('domain is not a domain name', [{ in: 'body', field: 'domain', message: 'not a valid domain name' }])
      domain = d.apex
      host = d.subdomain
    }
    assertHostAllowed(ctx.principal, host ? `${host}.${domain}` : domain)
    const params = input.params ?? {}
    const rendered = applyTemplate({ template, domain, host, params, groupIds: input.group_ids, zone: [] })
    if (!rendered.ok) throw invalid(rendered.error, [{ in: 'body', field: rendered.code === 'missing_variable' ? 'params' : rendered.code === 'no_matching_group' ? 'group_ids' : 'domain', message: rendered.code }])
    const url = signedApplyUrl(ctx, { template, providerBase: input.provider_base, domain, host, params, groupIds: input.group_ids, redirectUri: input.redirect_uri, state: input.state })
    return { apply_url: url, signed: template.syncPubKeyDomain !== undefined, provider_id: template.providerId, service_id: template.serviceId }
  },
})

// ---------------------------------------------------------------- domainconnect:start

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

// ---------------------------------------------------------------- the async callback


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

