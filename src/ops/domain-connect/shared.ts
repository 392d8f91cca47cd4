// Domain Connect (the API contract, section 4, "Templates" and "Domains and connections"): the template
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
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { invalid, notFound, unavailable } from '../../errors.ts'
import type { Template } from '../../domain/domain-connect/template.ts'
import { buildSyncApplyUrl } from '../../domain/domain-connect/signing.ts'
import { withScheme } from '../../domain/domain-connect/discovery.ts'
import type { Ctx, PrepareCtx } from '../registry.ts'

export type BaseCtx = PrepareCtx

export function catalog(ctx: Pick<Ctx, 'services'>) {
  const c = ctx.services.templates
  if (!c) throw unavailable('Templates are not loaded on this deployment')
  return c
}

export function deps(ctx: BaseCtx) {
  return { dns: ctx.services.dns, allowLoopback: ctx.config.webhookAllowLoopback, asyncClients: ctx.config.domainConnect.asyncClients, timeoutMs: 5000 }
}


export function pickTemplate(ctx: Pick<Ctx, 'services'>, serviceId: string, providerId?: string): Template {
  const found = catalog(ctx).find(serviceId, providerId)
  if (found.length === 0) throw notFound(`No template ${providerId ? `${providerId}/` : ''}${serviceId} is loaded`)
  if (found.length > 1) {
    throw invalid(`Several providers publish a template ${serviceId}; name one with provider_id`, [
      { in: 'body', field: 'provider_id', message: `one of ${found.map((t) => t.providerId).join(', ')}` },
    ])
  }
  return found[0]!
}

export const redirectAllowed = (t: Template, url: URL) => {
  const allowed = (t.syncRedirectDomain ?? '').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean)
  const host = url.hostname.toLowerCase()
  return allowed.some((d) => host === d || host.endsWith(`.${d}`))
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

export function signedApplyUrl(ctx: Pick<Ctx, 'config'>, i: SyncUrlInput): string {
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
