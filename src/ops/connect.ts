// Connect (CONTRACT.md section 4, "Domains and connections"): the domain check, connections, their
// desired records, re-check, count, bulk, disconnect, the provider catalog and the connect target.
import { assertFitsEnvironment, isTestDomain, TEST_DNS } from '../domain/test-mode.ts'
import { Type } from '@sinclair/typebox'
import { ApiError, invalid, notFound } from '../errors.ts'
import { ACME_CHALLENGE } from '../adapters/acme.ts'
import { assertHostAllowed, connectionFor, connectionOut, effectiveTarget } from '../domain/connections.ts'
import { type ConnectionRow, findOpen, connectionCounts, markRecordsOutdated, plannedConnectionsOffTarget, replanConnection, setConnectTarget, setCustomRecords } from '../db/connections.ts'
import { disconnectManual, inspectDomain, markPropagating, openConnection, recordVerifications, reviveConnection, type DisconnectOutcome, type Inspection } from '../domain/connect.ts'
import { stepsOf } from '../domain/prevalidation.ts'
import { setHeldRecords } from '../db/prevalidation.ts'
import { checkDomain } from '../domain/domain-check.ts'
import { connectionsPageViews, pageAnswer } from '../domain/connection-views.ts'
import { applicationFace } from '../domain/connection-status.ts'
import { DomainCheckSchema } from './widget-schemas.ts'
import { errorFields, log, logCause } from '../logger.ts'
import { markCertificateRemoved } from '../domain/certificates.ts'
import { markPowerRemoved } from '../domain/power.ts'
import { emitForConnection } from '../domain/events.ts'
import { isPublicHostname, isPublicIPv4, parseConnectable, parseDomain, type ParsedDomain } from '../domain/hostnames.ts'
import { canonicalRecords, DnsRecordSchema, planRecords, recordSetProblems, type DnsRecord } from '../domain/records.ts'
import { parityCensus, providerById, PROVIDERS } from '../domain/providers.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import { type ApplicationRow, applicationsOfTenant } from '../db/applications.ts'
import { verifyConnection } from '../domain/verify.ts'
import { confirmMatches } from '../domain/confirm.ts'
import { assertCanConnect } from '../domain/billing.ts'
import { disconnectReverted, type RailConnection } from '../domain/apply.ts'
import { railConnectionFor, removeThroughGrant } from '../domain/grants.ts'
import type { RevertPlan } from '../domain/record-plan.ts'
import { fingerprintOf, requirePersonConfirmation, spendConfirmation } from '../domain/person-confirm.ts'
import type { ConfirmationRow } from '../db/person-confirmations.ts'
import { cursorOf, idFromCursor } from './cursors.ts'
import { defineOp, reply, type Ctx, type PrepareCtx } from './registry.ts'
import { APP_ONLY, BOUND_ONLY, END_USER } from './authority.ts'
import type { Principal } from '../domain/principal.ts'
import { CUSTOM_RECORDS_SCOPE } from '../domain/rbac.ts'
import { Id, IdParam, Input, Nullable, Out, outside, Timestamp } from './schemas.ts'
import { named } from '../domain/named.ts'
import { MetadataSchema, RemovalSchema, ValidationStageSchema } from '../domain/resource-schemas.ts'
import { Secret } from './provider-accounts.ts'

const TAG = 'Domains and connections'
const StatusSchema = Type.Union(['pending', 'propagating', 'live', 'failed'].map((s) => Type.Literal(s)))
const RecordRef = Out({ type: Type.String(), host: Type.String(), value: Type.String() })
const ValidationSchema = Type.Union([Type.Literal('http'), Type.Literal('before_cutover')], {
  description:
    '`http` (default): the certificate is ordered by HTTP-01 once the domain points at the edge. `before_cutover`: pre-validation ' +
    'through delegated DCV: the connection first asks for an ownership TXT and `_acme-challenge.<host> CNAME <label>.<DCV zone>`, ' +
    'issues the certificate by DNS-01 and puts it on every edge node, and only then asks for the routing records (docs/validation.md)',
})
const StepsSchema = Type.Array(
  Out({
    step: Type.Union([Type.Literal('prove'), Type.Literal('route')], { description: '`prove`: ownership and the DCV delegation; `route`: the records that move traffic' }),
    done: Type.Boolean(),
    asked: Type.Optional(Type.Boolean({ description: '`route` only: whether these records are asked for yet (only once the certificate is on every edge node)' })),
    records: Type.Array(DnsRecordSchema),
  }),
  { description: 'Pre-validation only: the two steps in order (the records of `route` are added only once it is `asked`)' },
)

export const ConnectionSchema = named('Connection', Out({
  id: Type.String({ description: 'Identifier (`con_…`)' }),
  application_id: Type.String(),
  domain: Type.String(),
  apex_domain: Type.String(),
  subdomain: Type.String({ description: 'Labels left of the apex; empty for the apex' }),
  status: StatusSchema,
  end_user_ref: Nullable(Type.String(outside('end_user'))),
  metadata: MetadataSchema,
  www_redirect: Type.Boolean(),
  rail: Type.Union(['manual', 'api', 'oauth', 'domain_connect'].map((r) => Type.Literal(r)), { description: '`manual` until an automatic rail writes the records' }),
  managed: Type.Boolean({ description: 'Portico holds a grant to change the records later' }),
  provider: Nullable(Type.String()),
  records: Type.Array(DnsRecordSchema, { description: 'The desired records' }),
  records_source: Type.Union([Type.Literal('planned'), Type.Literal('custom')]),
  records_outdated: Type.Boolean({ description: 'The records were computed against a superseded connect target' }),
  error_code: Nullable(Type.String({ description: 'Diagnosis: propagation_timeout, access_denied, ProviderAuthenticationError, setup_incomplete, zone_not_reached, platform_subdomain' })),
  error_message: Nullable(Type.String({ description: 'The diagnosis in words; may quote the DNS provider', ...outside('provider') })),
  propagation: Out({
    records_propagated: Type.Array(RecordRef),
    records_non_propagated: Type.Array(RecordRef),
    checked_via: Type.Optional(
      Type.Union([Type.Literal('authoritative'), Type.Literal('recursive')], {
        description: "Who answered the last check: the zone's own nameservers (asked without recursion), or a recursive resolver when none of them could be asked",
      }),
    ),
    inconclusive: Type.Optional(Type.String({ description: 'Why the last check reached no verdict: a resolver failure, or which nameserver said what when they did not all answer or disagreed', ...outside('dns') })),
  }),
  check_count: Type.Integer(),
  last_checked_at: Nullable(Timestamp()),
  next_check_at: Nullable(Timestamp()),
  propagating_since: Nullable(Timestamp()),
  live_at: Nullable(Timestamp()),
  certificate_status: Nullable(
    Type.Union([Type.Literal('pending'), Type.Literal('issued'), Type.Literal('failed')], {
      description:
        'The HTTPS certificate Portico serves for the domain: `pending` while it is ordered, `issued`, or `failed` (retried). Null ' +
        'while none is tracked: on deployments with a certificate authority (`secure` in `GET /v1/config` `products`) one is ' +
        'ordered as soon as the connection is live; elsewhere, or with an application target of your own, HTTPS is not Portico\'s.',
    }),
  ),
  secure: Type.Boolean({ description: 'Live, and its certificate is issued and served by the edge: say "connected and secure" only then' }),
  validation: ValidationSchema,
  validation_stage: Nullable(ValidationStageSchema),
  validation_detail: Nullable(Type.String({ description: 'What the stage waits on, in words (a DCV zone server that does not answer, an edge node that lacks the certificate)' })),
  failed_at: Nullable(Timestamp()),
  retried_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
}))

const LIFECYCLE_NOTE =
  'Lifecycle: a connection starts `pending` (records not known to be in place). It moves to `propagating` when a rail writes ' +
  'its records or when `:recheck` says they were added; from then it has 24 hours to go `live` before it is `failed` with ' +
  '`propagation_timeout`. Records are checked at the zone\'s own nameservers, every 3 seconds for the first two minutes after ' +
  'creation or `:recheck`, every 10 seconds until ten minutes, then every minute until an hour. A `pending` connection is never ' +
  'failed for late DNS: after its first hour it is re-checked every 15 minutes until three days, then every six hours with ' +
  'diagnosis `setup_incomplete`, and goes `live` whenever its records appear.'

/** The application an operation acts on: the widget's own, or `application_id` (else the key's own application). */
async function applicationOf(ctx: Ctx, given: string | undefined): Promise<ApplicationRow> {
  const p = ctx.principal
  if (!('tenantId' in p)) throw notFound('Application not found')
  if (p.kind === 'WIDGET') {
    if (given !== undefined && given !== p.applicationId) throw notFound('Application not found')
    return getApplicationInTenant(ctx.sql, p.tenantId, p.applicationId)
  }
  const id = given ?? (p.kind === 'KEY' ? p.applicationId : null)
  if (!id && p.kind === 'AGENT') {
    // An agent token belongs to no application: a workspace with one has nothing to choose from.
    const apps = await applicationsOfTenant(ctx.sql, p.tenantId)
    if (apps.length === 1) return apps[0]!
    throw invalid(`application_id is required: this workspace has ${apps.length} applications; find the id with applications_list`, [{ in: 'body', field: 'application_id', message: 'is required' }])
  }
  if (!id) throw invalid('application_id is required', [{ in: 'body', field: 'application_id', message: 'is required' }])
  return getApplicationInTenant(ctx.sql, p.tenantId, id)
}

function parseOrThrow(domain: string, field = 'domain'): ParsedDomain & { wildcard?: boolean } {
  const parsed = parseConnectable(domain)
  if (!parsed) throw invalid(`${JSON.stringify(domain)} is not a domain name`, [{ in: 'body', field, message: 'not a valid domain name' }])
  return parsed
}

function edge(ctx: Pick<Ctx, 'config'>) {
  return { cname_target: ctx.config.edge.cnameTarget, apex_ipv4: ctx.config.edge.apexIpv4 }
}

function checkRecordSet(records: DnsRecord[], parsed: ParsedDomain): void {
  const problems = recordSetProblems(records, parsed)
  if (problems.length) throw invalid('The record set is not valid', problems.map((p) => ({ in: 'body', ...p })))
}

const CATALOG_MAX_AGE = 3600

export const listProvidersOp = defineOp({
  id: 'providers.list',
  method: 'GET',
  path: '/providers',
  summary: 'DNS-provider capability catalog and parity census',
  description:
    'For each provider: nameserver patterns, dashboard, and capabilities per rail. `census` counts how many providers support each rail and capability. ' +
    '`fields=names` answers only `{providers: [{id, name}]}` (what a provider picker needs). The same for everyone: compressed as ' +
    'accepted, with an ETag (`304` when unchanged) and cacheable for an hour.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  query: Input({ fields: Type.Optional(Type.Literal('names', { description: '`names`: only each provider\'s id and name' })) }),
  response: Out({ providers: Type.Array(Type.Object({}, { additionalProperties: true })), census: Type.Optional(Type.Object({}, { additionalProperties: true })) }),
  errors: ['invalid_request'],
  kind: 'read',
  internal: true,
  cache: { maxAge: CATALOG_MAX_AGE },
  handler: async (_ctx, input) => (input.fields === 'names' ? { providers: PROVIDERS.map((p) => ({ id: p.id, name: p.name })) } : { providers: PROVIDERS, census: parityCensus() }),
})

export const getProviderOp = defineOp({
  id: 'providers.get',
  method: 'GET',
  path: '/providers/{id}',
  summary: 'One DNS provider of the catalog',
  description:
    'One entry of `GET /providers`: what the manual screen of one provider needs (its steps and dashboard) without the whole catalog. ' +
    'Compressed as accepted, with an ETag (`304` when unchanged) and cacheable for an hour. 404 for an id the catalog does not have.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Catalog id, e.g. `cloudflare`' }) }),
  response: Out({ provider: Type.Object({}, { additionalProperties: true }) }),
  errors: ['not_found'],
  kind: 'read',
  internal: true,
  cache: { maxAge: CATALOG_MAX_AGE },
  async handler(_ctx, input) {
    const provider = providerById(input.id)
    if (!provider) throw notFound('No such provider in the catalog')
    return { provider }
  },
})

const CheckBody = Input({
  domain: Type.String({ minLength: 1, maxLength: 300 }),
  application_id: Type.Optional(Id('app', 'Application whose connect target to plan against (KEY: default the key\'s application; WIDGET: its own)')),
  www_redirect: Type.Optional(Type.Boolean()),
  validation: Type.Optional(ValidationSchema),
})

const WILDCARD_NEEDS_DNS_01 = 'A wildcard hostname is validated by DNS-01 only: leave validation out, or send before_cutover'

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

/** Agents need `domains:records` for records of their own choosing (API keys and widgets keep the contract's). */
export function assertAgentMayWriteRecords(p: Principal): void {
  if (p.kind === 'AGENT' && !p.scopes.includes(CUSTOM_RECORDS_SCOPE)) {
    throw new ApiError('insufficient_scope', `Records of your own choosing need the ${CUSTOM_RECORDS_SCOPE} scope, which your person has not given; without it, leave records out to use the application's planned ones`, { required: [CUSTOM_RECORDS_SCOPE] })
  }
}

const CreateBody = Input({
  domain: Type.String({ minLength: 1, maxLength: 300 }),
  application_id: Type.Optional(Id('app', 'KEY and agent tokens: the application (default: the key\'s own); WIDGET: its own')),
  end_user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Your reference for the end user; echoed as `user_id` in webhooks' })),
  metadata: Type.Optional(MetadataSchema),
  www_redirect: Type.Optional(Type.Boolean({ description: 'Apex only: also point www at the target; the edge redirects apex to www' })),
  records: Type.Optional(Type.Array(DnsRecordSchema, { minItems: 1, maxItems: 50, description: 'An integrator-authored record set instead of the planned one (agent tokens: needs the `domains:records` scope)' })),
  validation: Type.Optional(ValidationSchema),
})

interface CreatePrepared {
  parsed: ParsedDomain & { wildcard?: boolean }
  inspection: Inspection | null
}

async function prepareCreate(ctx: PrepareCtx, domain: string, applicationId: string | undefined, validation?: 'http' | 'before_cutover'): Promise<CreatePrepared> {
  const parsed = parseOrThrow(domain)
  // A wildcard's certificate can only be validated by DNS-01: through the delegation, before cutover.
  if (parsed.wildcard && validation === 'http') throw invalid(WILDCARD_NEEDS_DNS_01, [{ in: 'body', field: 'validation', message: 'wildcard_needs_dns_01' }])
  if ((validation === 'before_cutover' || parsed.wildcard) && !ctx.services.dcv) {
    throw new ApiError('invalid_request', `${parsed.wildcard ? 'A wildcard hostname' : 'Validation before cutover'} needs delegated DCV, which this deployment does not have`, { reason: 'dcv_not_configured' })
  }
  assertHostAllowed(ctx.principal, parsed.domain)
  const app = await applicationOf({ ...ctx, sql: ctx.db } as Ctx, applicationId)
  assertFitsEnvironment(app.environment, parsed)
  // A replay of an open connection needs no DNS at all.
  if (await findOpen(ctx.db, app.id, parsed.domain)) return { parsed, inspection: null }
  return { parsed, inspection: await inspectDomain(ctx.services.dns, parsed, ctx.services.dnsHealth) }
}

export const createConnectionOp = defineOp({
  id: 'connections.create',
  method: 'POST',
  path: '/connections',
  summary: 'Connect a domain',
  description:
    'Creates a connection (201, status `pending`) with its desired records, or answers the open connection for the same application ' +
    'and domain with 200 (a failed one is revived into verification). When that open connection was made for another `end_user_ref` ' +
    'than the one sent, the answer is 409 `conflict` with `details.connection_id` and `details.reason: end_user_mismatch` (sent ' +
    'without `end_user_ref`, the open connection is answered). Likewise when it was made with another `validation` than the one sent: 409 ' +
    '`conflict` with `details.reason: validation_mismatch` (sent without `validation`, the open connection is answered). ' +
    'A `_acme-challenge` name another workspace delegates already (an apex and its wildcard share one) is 409 `conflict` with ' +
    '`details.reason: dcv_delegation_taken`. Hosting-platform subdomains are refused with 422 ' +
    '`platform_subdomain`; unregistered or undelegated domains with 422 `InvalidNameservers`; an apex the provider cannot point at a ' +
    'hostname, when the application has no `apex_ipv4`, with 422 `apex_not_supported`; a resolver failure is 503 (retry). ' +
    LIFECYCLE_NOTE,
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:write',
  scope: 'domains:write',
  body: CreateBody,
  response: ConnectionSchema,
  status: 201,
  altStatus: [{ status: 200, description: 'The open connection for this application and domain (replayed or revived)' }],
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'platform_subdomain', 'InvalidNameservers', 'apex_not_supported', 'service_unavailable', 'billing_required', 'quota_exceeded', 'conflict'],
  kind: 'write',
  zone: 'looks',
  idempotent: true,
  prepare: (ctx, input) => prepareCreate(ctx, input.domain, input.application_id, input.validation),
  async handler(ctx, input, pre: CreatePrepared) {
    const app = await applicationOf(ctx, input.application_id)
    if (input.records) {
      // An agent writes the application's planned records; a record set of its own needs its own scope.
      assertAgentMayWriteRecords(ctx.principal)
      checkRecordSet(input.records, pre.parsed)
    }
    await assertCanConnect(ctx.sql, app.tenant_id, ctx.clock.now(), ctx.config, pre.parsed.domain)
    const now = ctx.clock.now()
    // The open connection seen before may have been disconnected since: inspect after all (rare).
    const inspection = pre.inspection ?? ((await findOpen(ctx.sql, app.id, pre.parsed.domain)) ? { provider: null, nameservers: [] } : await inspectDomain(ctx.services.dns, pre.parsed, ctx.services.dnsHealth))
    const { row, outcome } = await openConnection(ctx.sql, now, app, effectiveTarget(app, edge(ctx)), pre.parsed, inspection, {
      endUserRef: input.end_user_ref ?? null,
      wwwRedirect: input.www_redirect ?? false,
      records: input.records ?? null,
      metadata: input.metadata,
      validation: pre.parsed.wildcard ? 'before_cutover' : input.validation,
      dcvZone: ctx.services.dcv ? ctx.config.dcv!.zone : null,
    })
    // The domain is connected under this application for someone else: say so rather than hand over their connection.
    if (outcome !== 'created' && input.end_user_ref !== undefined && row.end_user_ref !== input.end_user_ref) {
      throw new ApiError('conflict', `${row.domain} is already connected under this application for another end user`, { connection_id: row.id, reason: 'end_user_mismatch' })
    }
    // Asked for with another validation than it was made with: say so rather than answer the other mode.
    const validation = pre.parsed.wildcard ? 'before_cutover' : input.validation
    if (outcome !== 'created' && validation !== undefined && row.validation !== validation) {
      throw new ApiError('conflict', `${row.domain} is already connected under this application with validation ${row.validation}; disconnect it to connect it with validation ${validation}`, { connection_id: row.id, reason: 'validation_mismatch' })
    }
    if (outcome === 'created') ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { outcome }
    return outcome === 'created' ? connectionOut(row) : reply(200, connectionOut(row))
  },
})


export const listConnectionsOp = defineOp({
  id: 'connections.list',
  method: 'GET',
  path: '/connections',
  summary: 'List connections',
  description:
    'Tenant-scoped, oldest first. Filters `app_id`, `status`, `domain` (the connected hostname, exactly; case and a trailing dot ' +
    'are ignored) and `end_user_ref` (your reference for the end user): a customer\'s connections are found without an id mapping ' +
    'of your own. Pages of `limit` (1 to 200, default 50) with the opaque `next_cursor`, absent on the last page.',
  tag: TAG,
  auth: ['KEY', 'AGENT'],
  permission: 'connections:read',
  scope: 'domains:read',
  query: Input({
    app_id: Type.Optional(Id('app')),
    status: Type.Optional(StatusSchema),
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Only the connection of this hostname' })),
    end_user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only connections made for this end user' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: Out({ connections: Type.Array(ConnectionSchema), count: Type.Integer(), next_cursor: Type.Optional(Type.String()) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  zone: 'none',
  async handler(ctx, input) {
    const p = ctx.principal
    // A foreign app_id filter is 404, as a foreign id is everywhere (not an empty page).
    if (input.app_id) await getApplicationInTenant(ctx.sql, p.tenantId, input.app_id)
    const limit = input.limit ?? 50
    const after = input.cursor ? idFromCursor(input.cursor, 'con') : ''
    const domain = input.domain === undefined ? undefined : (parseDomain(input.domain)?.domain ?? input.domain.toLowerCase())
    const { page, window } = await connectionsPageViews(ctx.sql, ctx.services.connectionViews, p, { ...input, domain }, after, limit)
    return pageAnswer(page, window.length > limit ? cursorOf(window[limit - 1]!.id) : undefined)
  },
})

export const countConnectionsOp = defineOp({
  id: 'connections.count',
  method: 'GET',
  path: '/connections:count',
  summary: 'Count connections by status and application',
  description: '`by_status` has only the statuses that occur (an absent key means zero). A widget token cannot read it.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:read',
  query: Input({ app_id: Type.Optional(Id('app')), status: Type.Optional(StatusSchema) }),
  response: Out({
    total: Type.Integer(),
    by_status: Type.Record(Type.String(), Type.Integer()),
    by_application: Type.Array(Out({ application_id: Type.String(), total: Type.Integer(), by_status: Type.Record(Type.String(), Type.Integer()) })),
  }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx, input) {
    const p = ctx.principal
    if (input.app_id) await getApplicationInTenant(ctx.sql, p.tenantId, input.app_id)
    const rows = await connectionCounts(ctx.sql, p, input)
    const byApp = new Map<string, { application_id: string; total: number; by_status: Record<string, number> }>()
    const byStatus: Record<string, number> = {}
    let total = 0
    for (const r of rows) {
      total += r.n
      byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n
      const a = byApp.get(r.application_id) ?? { application_id: r.application_id, total: 0, by_status: {} }
      a.total += r.n
      a.by_status[r.status] = r.n
      byApp.set(r.application_id, a)
    }
    return { total, by_status: byStatus, by_application: [...byApp.values()] }
  },
})

export const BULK_MAX = 200

export const bulkConnectOp = defineOp({
  id: 'connections.bulk',
  method: 'POST',
  path: '/connections:bulk',
  summary: 'Connect up to 200 domains',
  description:
    'Each domain is handled on its own, in its own transaction: a bad one is `failed` with a message and the batch goes on; a ' +
    'domain already connected under the application is `already` (or `failed` with code `conflict` when it was connected for ' +
    'another `end_user_ref` than the one sent); a new one is `connected` (created, status `pending`). An item may be an object ' +
    '`{domain, end_user_ref, metadata}`: each domain then has its own end user and metadata (the batch\'s `end_user_ref` is for ' +
    'plain strings). ' +
    'One result per domain, in order. More than 200 domains is 400.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  body: Input({
    domains: Type.Array(
      Type.Union([
        Type.String({ maxLength: 300 }),
        Input({
          domain: Type.String({ maxLength: 300 }),
          end_user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'This domain\'s end user (instead of the batch\'s)' })),
          metadata: Type.Optional(MetadataSchema),
        }, { description: 'A domain with its own end user and metadata' }),
      ]),
      { minItems: 1, maxItems: BULK_MAX, description: 'Domain names, or objects `{domain, end_user_ref?, metadata?}` each with their own end user and metadata' },
    ),
    application_id: Type.Optional(Id('app')),
    end_user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The end user of every domain given as a plain string' })),
  }),
  response: Out({
    results: Type.Array(
      Out({
        domain: Type.String(),
        connection_id: Nullable(Type.String()),
        status: Type.Union([Type.Literal('connected'), Type.Literal('failed'), Type.Literal('already')]),
        message: Type.String(),
        code: Type.Optional(Type.String()),
      }),
    ),
  }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  zone: 'looks',
  transactions: 'steps',
  deadline: 'bulk',
  countsItems: 'domains',
  async handler(ctx, input) {
    const app = await applicationOf(ctx, input.application_id)
    const target = effectiveTarget(app, edge(ctx))
    const seen = new Map<string, string>()
    const taken = (domain: string, id: string) =>
      ({ domain, connection_id: id, status: 'failed' as const, message: 'Already connected under this application for another end user', code: 'conflict' })
    const one = async (item: (typeof input.domains)[number]) => {
      const { domain, end_user_ref: endUserRef = input.end_user_ref, metadata } = typeof item === 'string' ? { domain: item } : item
      // A domain already connected for another end user is not this caller's: said per domain, as POST /connections says 409.
      const otherEndUser = (c: { end_user_ref: string | null }) => endUserRef !== undefined && c.end_user_ref !== endUserRef
      try {
        const parsed = parseOrThrow(domain)
        assertHostAllowed(ctx.principal, parsed.domain)
        assertFitsEnvironment(app.environment, parsed)
        const open = seen.has(parsed.domain) ? undefined : await findOpen(ctx.db, app.id, parsed.domain)
        if (open && otherEndUser(open)) return taken(domain, open.id)
        const prior = seen.get(parsed.domain) ?? open?.id
        if (prior) return { domain, connection_id: prior, status: 'already' as const, message: 'Already connected under this application' }
        await assertCanConnect(ctx.db, app.tenant_id, ctx.clock.now(), ctx.config, parsed.domain)
        const inspection = await inspectDomain(ctx.services.dns, parsed, ctx.services.dnsHealth)
        // Each domain commits with its own audit row: a batch cut short leaves no connection unaudited.
        const { row, outcome } = await ctx.tx(async (tx, note) => {
          const opened = await openConnection(tx, ctx.clock.now(), app, target, parsed, inspection, { endUserRef: endUserRef ?? null, wwwRedirect: false, records: null, metadata })
          note.targetId = opened.row.id
          note.details = { domain: parsed.domain, outcome: opened.outcome }
          return opened
        })
        seen.set(parsed.domain, row.id)
        if (outcome !== 'created' && otherEndUser(row)) return taken(domain, row.id)
        return outcome === 'created'
          ? { domain, connection_id: row.id, status: 'connected' as const, message: 'Connection created' }
          : { domain, connection_id: row.id, status: 'already' as const, message: 'Already connected under this application' }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        logCause(err, { request_id: ctx.requestId, op: 'connections.bulk', domain, code: err.code })
        return { domain, connection_id: null, status: 'failed' as const, message: err.title, code: err.code }
      }
    }
    // In order, so a repeated domain in the batch is `already` after its first appearance.
    const results = []
    for (const d of input.domains) results.push(await one(d))
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { connected: results.filter((r) => r.status === 'connected').length, total: results.length }
    return { results }
  },
})

export const getConnectionOp = defineOp({
  id: 'connections.get',
  method: 'GET',
  path: '/connections/{id}',
  summary: 'Read a connection',
  description: LIFECYCLE_NOTE,
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:read',
  scope: 'domains:read',
  params: IdParam,
  response: ConnectionSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  handler: async (ctx, input) => connectionOut(await connectionFor(ctx.sql, ctx.principal, input.id)),
})

const RecordsResponse = named('ConnectionRecords', Out({
  connection_id: Type.String(),
  domain: Type.String(),
  records: Type.Array(DnsRecordSchema),
  records_source: Type.Union([Type.Literal('planned'), Type.Literal('custom')]),
  manual_steps: Type.Array(Type.String(), { description: 'Provider-specific steps for adding the records by hand, where the catalog has them' }),
  dashboard_url: Nullable(Type.String()),
  validation: ValidationSchema,
  validation_stage: Nullable(ValidationStageSchema),
  steps: Nullable(StepsSchema),
}))

function recordsOut(c: ConnectionRow) {
  const provider = providerById(c.provider_id)
  return {
    connection_id: c.id,
    domain: c.domain,
    records: c.desired_records,
    records_source: c.records_source,
    manual_steps: provider?.manual_steps ?? ['Sign in to your DNS provider', 'Open the DNS settings of ' + c.apex_domain, 'Add each record below exactly as shown', 'Save, then choose "I have added them"'],
    dashboard_url: provider?.dashboard_url ?? null,
    validation: c.validation ?? 'http',
    validation_stage: c.validation_stage ?? null,
    steps: stepsOf(c),
  }
}

export const getRecordsOp = defineOp({
  id: 'connections.records.get',
  method: 'GET',
  path: '/connections/{id}/records',
  summary: 'The desired records of a connection',
  description: 'The manual rail: the records to add, `host` relative to the zone apex (`@` is the apex), with provider-specific steps where the catalog has them.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:read',
  scope: 'domains:read',
  params: IdParam,
  response: RecordsResponse,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  handler: async (ctx, input) => recordsOut(await connectionFor(ctx.sql, ctx.principal, input.id)),
})

export const putRecordsOp = defineOp({
  id: 'connections.records.put',
  method: 'PUT',
  path: '/connections/{id}/records',
  summary: 'Replace the desired records with an integrator-authored set',
  description:
    'Server to server only. Hosts must be the connected hostname or below it. Sending the set the connection already has answers 200 ' +
    'and changes nothing. A new set puts the connection back to `pending` until it resolves; the one-click template rail refuses a ' +
    'connection with a custom set. Before cutover, while the routing records are held back (`validation_stage` `awaiting_records` ' +
    'or `issuing`), the set replaces them instead: it is asked for once the certificate is on every edge node.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  body: Input({ records: Type.Array(DnsRecordSchema, { minItems: 1, maxItems: 50 }) }),
  response: RecordsResponse,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id, { lock: true })
    const parsed = parseOrThrow(c.domain)
    checkRecordSet(input.records, parsed)
    if (canonicalRecords(input.records) === canonicalRecords(c.desired_records)) {
      ctx.audit.details = { changed: false }
      return recordsOut(c)
    }
    const now = ctx.clock.now()
    // Before cutover, until the certificate is on the edge: the set replaces the held routing records
    // (the first step's stay what the connection asks for now).
    const held = c.validation_stage === 'awaiting_records' || c.validation_stage === 'issuing' ? await setHeldRecords(ctx.sql, c.id, input.records, now) : undefined
    if (held) {
      ctx.audit.details = { changed: true, held: true }
      return recordsOut(held)
    }
    const row = await setCustomRecords(ctx.sql, c, input, now)
    ctx.audit.details = { changed: true }
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    return recordsOut(row)
  },
})

export const recheckOp = defineOp({
  id: 'connections.recheck',
  method: 'POST',
  path: '/connections/{id}:recheck',
  summary: 'Re-check a connection now',
  description:
    'Verifies the records at once and answers the connection. A `failed` connection is revived into verification (`propagating`, ' +
    '`retried_at` set, diagnosis cleared, a fresh 24 hours); a `pending` one moves to `propagating` (the caller says the records ' +
    'were added: what the widget\'s "I have added them" sends).',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:write',
  scope: 'domains:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: ConnectionSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  zone: 'looks',
  idempotent: true,
  // The lookup is outside I/O: done before the transaction, against the records the connection had then.
  async prepare(ctx, input) {
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    if (c.status === 'live') return null
    return { records: canonicalRecords(c.desired_records), verification: await verifyConnection(ctx.services.verifyDns, c, ctx.clock.now()) }
  },
  async handler(ctx, input, prepared) {
    const now = ctx.clock.now()
    let c = await connectionFor(ctx.sql, ctx.principal, input.id, { lock: true })
    if (c.status === 'failed') c = await reviveConnection(ctx.sql, c, now)
    else if (c.status === 'pending') c = await markPropagating(ctx.sql, c, now)
    // Live already, or its records changed while they were being looked up: the next sweep verifies them.
    if (c.status === 'live' || !prepared || prepared.records !== canonicalRecords(c.desired_records)) return connectionOut(c)
    await recordVerifications(ctx.sql, [{ row: c, verification: prepared.verification }], now)
    return connectionOut(await connectionFor(ctx.sql, ctx.principal, input.id))
  },
})

export const DisconnectOutcomeSchema = named('DisconnectOutcome', Out({
  connection_id: Type.String(),
  domain: Type.String(),
  disconnected: Type.Boolean(),
  records: RemovalSchema,
  serving: Type.Literal('stopped'),
  certificate: Type.Literal('removed'),
  monitoring: Type.Literal('stopped'),
}))

/** Serving and the certificate stop with the connection: marked removed now, taken off the edge once committed. */
async function stopServing(ctx: Ctx, c: ConnectionRow): Promise<void> {
  const now = ctx.clock.now()
  const [site, cert] = [await markPowerRemoved(ctx.sql, c, now), await markCertificateRemoved(ctx.sql, c, now)]
  const edge = ctx.services.edge
  if (!edge || (!site && !cert)) return
  ctx.afterCommit(() => {
    void Promise.all([site && edge.removeSite(c.id), cert && edge.removeCertificate(c.id)]).catch((err) =>
      log.warn('edge: removal after disconnect failed', { connection_id: c.id, ...errorFields(err) }),
    )
  })
}

/** What an agent's disconnect needs first: its person's yes for this connection (src/domain/person-confirm.ts). */
async function agentDisconnectConfirmed(ctx: PrepareCtx, c: RailConnection, confirm: string | undefined): Promise<ConfirmationRow | null> {
  const p = ctx.principal
  if (p.kind !== 'AGENT') return null
  // Done already (a retry after a lost answer): the handler answers that, nothing to confirm.
  if (c.disconnected_at) return null
  // A `confirm` naming another domain is refused as before; naming the right one is never enough.
  if (confirm !== undefined && !confirmMatches(confirm, c.domain)) {
    throw new ApiError('confirmation_mismatch', 'confirm does not name the domain of this connection; nothing was removed')
  }
  const agent = { tenantId: p.tenantId, clientId: p.clientId, subject: p.subject }
  return requirePersonConfirmation({ db: ctx.db, config: ctx.config, now: ctx.clock.now() }, agent, { connectionId: c.id, action: 'disconnect', domain: c.domain, summary: {}, fingerprint: fingerprintOf({ disconnect: c.id }) })
}

async function disconnect(ctx: Ctx, id: string, confirmed: ConfirmationRow | null, reverted?: { plan: RevertPlan; via: string } | null): Promise<DisconnectOutcome> {
  const c = await connectionFor(ctx.sql, ctx.principal, id, { lock: true, removal: true })
  if (c.disconnected_at) return c.disconnect_outcome as DisconnectOutcome
  if (ctx.principal.kind === 'AGENT') {
    // The person's yes, used once, with the removal it allowed.
    if (!confirmed || !(await spendConfirmation(ctx.sql, confirmed, ctx.clock.now()))) {
      throw new ApiError('confirmation_required', 'Your person must confirm this disconnect; nothing was removed')
    }
  }
  // Records a rail wrote were taken out through its grant before this transaction (src/domain/grants.ts `removeThroughGrant`).
  const outcome = reverted ? await disconnectReverted(ctx.sql, c, ctx.clock.now(), reverted.plan, reverted.via) : await disconnectManual(ctx.sql, c, ctx.clock.now())
  await stopServing(ctx, c)
  ctx.audit.details = { domain: c.domain }
  return outcome
}

const DISCONNECT_NOTE =
  'Stops serving, removes the certificate and stops monitoring. For records set up by hand the outcome lists them under ' +
  '`left_in_place` with `manual_steps`. Repeating the call answers the same outcome. A widget token must be bound to the domain. ' +
  'Records an automatic rail wrote are reverted first, through the kept grant (a continuous provider account, an OAuth grant or a Domain Connect grant) or a ' +
  'one-time `credential`: Portico\'s own records are removed and what they replaced is restored (`restored`); a set changed at the ' +
  'provider since is left alone (`left_in_place`). When no grant can remove them (none kept, or the provider refuses it) the answer ' +
  'is 409 `reauthorization_required` with `plan`, the full removal plan, and nothing is removed: 409 because the request is well ' +
  'formed and the connection\'s state (no usable grant) is what stands in the way; resend with `credential` or follow the plan.'

export const deleteConnectionOp = defineOp({
  id: 'connections.delete',
  method: 'DELETE',
  path: '/connections/{id}',
  summary: 'Remove a domain',
  description: DISCONNECT_NOTE,
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: BOUND_ONLY,
  permission: 'connections:disconnect',
  params: IdParam,
  response: DisconnectOutcomeSchema,
  errors: ['unauthorized', 'forbidden', 'not_found', 'reauthorization_required', 'dns_write_failed', 'service_unavailable'],
  kind: 'destroy',
  idempotent: true,
  prepare: async (ctx, input) => removeThroughGrant({ ...ctx, dns: ctx.services.dns }, await railConnectionFor(ctx.db, ctx.principal, input.id, { removal: true })),
  handler: (ctx, input, reverted) => disconnect(ctx, input.id, null, reverted),
})

export const disconnectOp = defineOp({
  id: 'connections.disconnect',
  method: 'POST',
  path: '/connections/{id}:disconnect',
  summary: 'Disconnect a domain',
  description:
    DISCONNECT_NOTE +
    ' A delegated agent token needs the `domains:disconnect` scope and its person\'s yes: without one the answer is 400 ' +
    '`confirmation_required` with `details.confirm_url`, a one-time link (ten minutes, bound to the agent and the connection) the person ' +
    'opens, signed in as themselves (the member who approved the agent, whose role may disconnect), and confirms; the agent\'s retry then goes through. The `confirm` query parameter alone never disconnects; ' +
    'naming another domain there is 409 `confirmation_mismatch` (case, scheme, path and a trailing dot ignored). Nothing is removed before the yes. ' +
    '`credential` is a DNS-provider API key used once for this removal and never stored.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: BOUND_ONLY,
  permission: 'connections:disconnect',
  scope: 'domains:disconnect',
  params: IdParam,
  query: Input({ confirm: Type.Optional(Type.String({ maxLength: 300, description: 'Agent tokens: the domain being disconnected, checked when given; never enough on its own (the person confirms)' })) }),
  body: Input({ credential: Type.Optional(Secret) }),
  bodyOptional: true,
  response: DisconnectOutcomeSchema,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'confirmation_required', 'confirmation_mismatch', 'reauthorization_required', 'dns_write_failed', 'service_unavailable'],
  kind: 'destroy',
  zone: 'removes',
  idempotent: true,
  async prepare(ctx, input) {
    // An agent's person confirms first: nothing is taken out at the provider before their yes.
    const c = await railConnectionFor(ctx.db, ctx.principal, input.id, { removal: true })
    const confirmed = await agentDisconnectConfirmed(ctx, c, input.confirm)
    const reverted = await removeThroughGrant({ ...ctx, dns: ctx.services.dns }, c, input.credential)
    return { confirmed, reverted }
  },
  handler: (ctx, input, pre) => disconnect(ctx, input.id, pre.confirmed, pre.reverted),
})

const TargetResponse = named('ConnectTarget', Out({
  application_id: Type.String(),
  mode: Type.Union([Type.Literal('edge'), Type.Literal('custom')], { description: '`edge`: the platform edge is the target' }),
  connect_target: Out({ cname_target: Type.String(), apex_ipv4: Type.Array(Type.String()) }),
  edge: Out({ cname_target: Type.String(), apex_ipv4: Type.Array(Type.String()) }),
}))

function targetOut(ctx: Pick<Ctx, 'config'>, app: ApplicationRow) {
  return { application_id: app.id, mode: app.cname_target ? ('custom' as const) : ('edge' as const), connect_target: effectiveTarget(app, edge(ctx)), edge: edge(ctx) }
}

export const getConnectTargetOp = defineOp({
  id: 'applications.connect_target.get',
  method: 'GET',
  path: '/applications/{id}/connect-target',
  summary: 'Read an application\'s connect target',
  tag: 'Tenancy and keys',
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'app:read',
  params: IdParam,
  response: TargetResponse,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const app = await applicationOf(ctx, input.id)
    return targetOut(ctx, app)
  },
})

export const putConnectTargetOp = defineOp({
  id: 'applications.connect_target.put',
  method: 'PUT',
  path: '/applications/{id}/connect-target',
  summary: 'Point an application\'s connections at your own target',
  description:
    '`cname_target` is a public hostname that is not the platform edge (empty string returns to the edge); `apex_ipv4` up to 4 ' +
    'public IPv4 addresses for apex domains. Available on every plan. Connections whose records are not yet in place pick up the ' +
    'new target; connections whose records were already put in place by hand keep them and get `connection.records_outdated` ' +
    '(with `connect_link`) so the end user can update them. Sending the current target again changes nothing.',
  tag: 'Tenancy and keys',
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  body: Input({
    cname_target: Type.String({ maxLength: 253 }),
    apex_ipv4: Type.Optional(Type.Array(Type.String({ maxLength: 15 }), { maxItems: 4 })),
  }),
  response: TargetResponse,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = ctx.principal
    const app = await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const problems: { in: string; field: string; message: string }[] = []
    let cname: string | null = null
    if (input.cname_target !== '') {
      cname = parseDomain(input.cname_target)?.domain ?? null
      const edgeHost = ctx.config.edge.cnameTarget
      if (!cname || !isPublicHostname(cname)) problems.push({ in: 'body', field: 'cname_target', message: 'must be a public hostname' })
      else if (cname === edgeHost || cname.endsWith('.' + edgeHost)) problems.push({ in: 'body', field: 'cname_target', message: 'is the platform edge; send an empty string to use the edge' })
    }
    const ips = [...new Set(input.apex_ipv4 ?? [])]
    ips.forEach((ip, i) => {
      if (!isPublicIPv4(ip)) problems.push({ in: 'body', field: `apex_ipv4.${i}`, message: 'must be a public IPv4 address' })
    })
    if (problems.length) throw invalid('The connect target is not valid', problems)
    const now = ctx.clock.now()
    const fresh = await setConnectTarget(ctx.sql, app, cname, ips, now)
    const target = effectiveTarget(fresh, edge(ctx))
    const targetJson = target
    const affected = await plannedConnectionsOffTarget(ctx.sql, app, targetJson)
    let replanned = 0
    let outdated = 0
    for (const c of affected) {
      const parsed = parseDomain(c.domain)!
      const apexCap = providerById(c.provider_id)?.capabilities.apex ?? null
      if (c.status === 'pending' && c.records_written_at === null) {
        // Nothing is in place yet: the records simply follow the new target.
        const records = planRecords(parsed, target, apexCap, c.www_redirect, c.verification_token)
        await replanConnection(ctx.sql, c, records, targetJson, now)
        replanned++
      } else if (c.records_outdated_at === null) {
        const row = await markRecordsOutdated(ctx.sql, c, now)
        const suggested = planRecords(parsed, target, apexCap, c.www_redirect, c.verification_token)
        await emitForConnection(ctx.sql, row, 'connection.records_outdated', now, { records: suggested.map(({ type, host, value }) => ({ type, host, value })) }, {
          connect_link: `${ctx.config.publicUrl}/v1/connections/${c.id}/records`,
        })
        outdated++
      }
    }
    ctx.audit.details = { cname_target: cname, apex_ipv4: ips, replanned, outdated }
    return targetOut(ctx, fresh)
  },
})
