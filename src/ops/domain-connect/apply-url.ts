import { Type } from '@sinclair/typebox'
import { parseDomain } from '../../domain/hostnames.ts'
import { invalid } from '../../errors.ts'
import { assertHostAllowed } from '../../domain/connections.ts'
import { applyTemplate } from '../../domain/domain-connect/apply.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { Input, Out } from '../schemas.ts'
import { pickTemplate, signedApplyUrl } from './shared.ts'

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
