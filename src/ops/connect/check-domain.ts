import { Type } from '@sinclair/typebox'
import { invalid } from '../../errors.ts'
import { assertHostAllowed, effectiveTarget } from '../../domain/connections.ts'
import { checkDomain } from '../../domain/domain-check.ts'
import { isTestDomain, TEST_DNS } from '../../domain/test-mode.ts'
import { ACME_CHALLENGE } from '../../adapters/acme.ts'
import { applicationFace } from '../../domain/connection-status.ts'
import { Id, Input } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { DomainCheckSchema } from '../widget-schemas.ts'
import { APP_HINT, APPLICATION_ID } from '../agent-text.ts'
import { applicationOf, edge, parseOrThrow, TAG, ValidationSchema, WILDCARD_NEEDS_DNS_01 } from './shared.ts'

const CheckBody = Input({
  domain: Type.String({ minLength: 1, maxLength: 300 }),
  application_id: Type.Optional(Id('app', 'Application whose connect target to plan against (KEY: default the key\'s application; WIDGET: its own)')),
  www_redirect: Type.Optional(Type.Boolean()),
  validation: Type.Optional(ValidationSchema),
})

export const checkDomainOp = defineOp({
  id: 'domains.check',
  method: 'POST',
  path: '/domains:check',
  summary: 'Pre-flight check of a domain',
  description:
    'Looks the domain up through the configured resolvers: the DNS provider from its nameservers, `registered` (false only on ' +
    'NXDOMAIN; omitted with `detection_error: resolver` when the resolver failed), which rails are available and why not, the ' +
    'recommended rail, records already published that conflict with the desired ones, the apex strategy, and the desired records. ' +
    'Each conflict has a `kind`: `routing` (a record where a desired one goes: `replace` or `remove` it), or, on deployments with a ' +
    'certificate authority, `certificate`: a CAA record set that does not allow that authority to issue (`reason: caa_forbids_ca`, ' +
    '`action: add`, `desired` the CAA record to add beside the existing ones) or an `_acme-challenge` CNAME that hands certificate ' +
    'validation to another service (`reason: acme_challenge_delegated`, `action: remove`); each says in `fix` what to do and in ' +
    '`blocks_certificate` whether HTTPS cannot be set up until it is done. ' +
    'Where the nameservers serve several providers (NS1\'s fleet also serves Netlify DNS; Route 53\'s also serves Amazon Lightsail), ' +
    '`provider_name` names them all ("IBM NS1 Connect or Netlify DNS") and `provider_candidates` lists each with whether the API rail ' +
    'takes its credential. `application` is the asking application as the widget shows it (name and branding). With `validation: ' +
    'before_cutover` (implied for a wildcard, which refuses `validation: http` with 400 as create does) `validation` answers whether ' +
    'this deployment offers it and its two steps. Read-only.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:read',
  scope: 'domains:read',
  body: CheckBody,
  response: DomainCheckSchema,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'looks',
  agent: {
    description:
      `Checks a domain before connecting it, with live DNS lookups: who hosts its DNS, whether it is registered, which ways of connecting are available (rails: oauth, domainConnect, apiKey, manual) and the recommended one, records that would conflict, and the records that will be needed. Changes nothing. ${APP_HINT}`,
    toolset: 'connect',
    describe: { application_id: APPLICATION_ID },
    outputSchema: {
      type: 'object',
      properties: {
        domain: { type: 'string', description: 'The domain checked, normalized' },
        apex_domain: { type: 'string', description: 'Its registrable domain (the zone\'s apex)' },
        is_apex: { type: 'boolean' },
        provider: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Id of the DNS provider detected from the nameservers; null when unknown' },
        provider_name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        registered: { type: 'boolean', description: 'False only when the domain does not exist; absent when the lookup failed (detection_error)' },
        detection_error: { type: 'string', description: '`resolver` when DNS could not be asked; try again' },
        nameservers: { type: 'array', items: { type: 'string' } },
        rails: {
          type: 'object',
          description: 'Each way of connecting: available, and why not (reason) or what to mind (caveat)',
          properties: Object.fromEntries(
            ['oauth', 'domainConnect', 'apiKey', 'manual'].map((k) => [
              k,
              { type: 'object', properties: { available: { type: 'boolean' }, reason: { type: 'string' }, caveat: { type: 'string' } }, required: ['available'] },
            ]),
          ),
          required: ['oauth', 'domainConnect', 'apiKey', 'manual'],
        },
        recommended_rail: { anyOf: [{ type: 'string', enum: ['oauth', 'domainConnect', 'apiKey', 'manual'] }, { type: 'null' }], description: 'The first available rail; null when none is' },
        apex_strategy: { type: 'string', description: 'How the domain would point at the application: `not_apex` (a subdomain: a CNAME), the provider\'s apex record (`flattening`, `alias`, `aname`), `a_records`, or `unsupported`' },
        conflicts: {
          type: 'array',
          description: 'Records already published that stand in the way of the needed ones',
          items: { type: 'object', properties: { type: { type: 'string' }, host: { type: 'string' }, value: { type: 'string' }, action: { type: 'string', enum: ['replace', 'remove'] } } },
        },
        desired_records: {
          type: 'array',
          description: 'The records connecting would need (host relative to the domain, "@" is the domain itself)',
          items: { type: 'object', properties: { type: { type: 'string' }, host: { type: 'string' }, value: { type: 'string' } } },
        },
        blocked_reason: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Why the domain cannot be connected at all (platform_subdomain, not_registered, not_delegated, apex_not_supported); null when it can' },
        dashboard_url: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The DNS provider\'s dashboard, for setting records by hand' },
      },
      required: ['domain', 'rails', 'recommended_rail', 'conflicts', 'desired_records', 'blocked_reason'],
    },
  },
  async handler(ctx, input) {
    const parsed = parseOrThrow(input.domain)
    // As on create: a wildcard is validated by DNS-01 only, so before cutover is implied and http refused.
    if (parsed.wildcard && input.validation === 'http') throw invalid(WILDCARD_NEEDS_DNS_01, [{ in: 'body', field: 'validation', message: 'wildcard_needs_dns_01' }])
    const validation = parsed.wildcard ? 'before_cutover' : input.validation
    assertHostAllowed(ctx.principal, parsed.domain)
    const app = await applicationOf(ctx, input.application_id)
    const acme = ctx.config.acme
    const checked = await checkDomain(isTestDomain(parsed.domain) ? TEST_DNS : ctx.services.dns, parsed, effectiveTarget(app, edge(ctx)), ctx.services.connectAdapters, {
      wwwRedirect: input.www_redirect,
      // Without an ACME directory the edge's own issuers are used: only a CAA set that allows no CA is judged.
      certificates: { caaIdentities: acme?.caaIdentities ?? [], challenge: ACME_CHALLENGE },
      ...(validation === 'before_cutover' ? { validation: { mode: 'before_cutover' as const, dcvZone: ctx.services.dcv ? ctx.config.dcv!.zone : null } } : {}),
    })
    const result = { ...checked, application: applicationFace(app) }
    const health = ctx.services.dnsHealth
    if (result.detection_error !== 'resolver' || !health) return result
    // Say which resolvers failed and how they are set, and warn in the log (at most once a minute).
    health.failed(`domain check of ${parsed.domain}`)
    return { ...result, dns: health.describe() }
  },
})
