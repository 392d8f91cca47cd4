// Connect (the API contract, section 4, "Domains and connections"): the domain check, connections, their
// desired records, re-check, count, bulk, disconnect, the provider catalog and the connect target.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { type DnsRecord, DnsRecordSchema, recordSetProblems } from '../../domain/records.ts'
import { named } from '../../domain/named.ts'
import { MetadataSchema, RemovalSchema, ValidationStageSchema } from '../../domain/resource-schemas.ts'
import { type ApplicationRow, applicationsOfTenant } from '../../db/applications.ts'
import { ApiError, invalid, notFound } from '../../errors.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { parseConnectable, type ParsedDomain } from '../../domain/hostnames.ts'
import type { ConnectionRow } from '../../db/connections.ts'
import { providerById } from '../../domain/providers.ts'
import { stepsOf } from '../../domain/prevalidation.ts'
import { markPowerRemoved } from '../../domain/power.ts'
import { markCertificateRemoved } from '../../domain/certificates.ts'
import { errorFields, log } from '../../logger.ts'
import type { ConfirmationRow } from '../../db/person-confirmations.ts'
import type { RevertPlan } from '../../domain/record-plan.ts'
import { disconnectManual, type DisconnectOutcome } from '../../domain/connect.ts'
import { connectionFor, effectiveTarget } from '../../domain/connections.ts'
import { spendConfirmation } from '../../domain/person-confirm.ts'
import { disconnectReverted } from '../../domain/apply.ts'
import { Nullable, Out, outside, Timestamp } from '../schemas.ts'
import type { Ctx } from '../registry.ts'

export const TAG = 'Domains and connections'

export const StatusSchema = Type.Union(['pending', 'propagating', 'live', 'failed'].map((s) => Type.Literal(s)))

const RecordRef = Out({ type: Type.String(), host: Type.String(), value: Type.String() })

export const ValidationSchema = Type.Union([Type.Literal('http'), Type.Literal('before_cutover')], {
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

export const LIFECYCLE_NOTE =
  'Lifecycle: a connection starts `pending` (records not known to be in place). It moves to `propagating` when a rail writes ' +
  'its records or when `:recheck` says they were added; from then it has 24 hours to go `live` before it is `failed` with ' +
  '`propagation_timeout`. Records are checked at the zone\'s own nameservers, every 3 seconds for the first two minutes after ' +
  'creation or `:recheck`, every 10 seconds until ten minutes, then every minute until an hour. A `pending` connection is never ' +
  'failed for late DNS: after its first hour it is re-checked every 15 minutes until three days, then every six hours with ' +
  'diagnosis `setup_incomplete`, and goes `live` whenever its records appear.'

/** The application an operation acts on: the widget's own, or `application_id` (else the key's own application). */
export async function applicationOf(ctx: Ctx, given: string | undefined): Promise<ApplicationRow> {
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

export function parseOrThrow(domain: string, field = 'domain'): ParsedDomain & { wildcard?: boolean } {
  const parsed = parseConnectable(domain)
  if (!parsed) throw invalid(`${JSON.stringify(domain)} is not a domain name`, [{ in: 'body', field, message: 'not a valid domain name' }])
  return parsed
}

export function edge(ctx: Pick<Ctx, 'config'>) {
  return { cname_target: ctx.config.edge.cnameTarget, apex_ipv4: ctx.config.edge.apexIpv4 }
}

export function checkRecordSet(records: DnsRecord[], parsed: ParsedDomain): void {
  const problems = recordSetProblems(records, parsed)
  if (problems.length) throw invalid('The record set is not valid', problems.map((p) => ({ in: 'body', ...p })))
}

export const CATALOG_MAX_AGE = 3600

export const WILDCARD_NEEDS_DNS_01 = 'A wildcard hostname is validated by DNS-01 only: leave validation out, or send before_cutover'

export const RecordsResponse = named('ConnectionRecords', Out({
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

export function recordsOut(c: ConnectionRow) {
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

export async function disconnect(ctx: Ctx, id: string, confirmed: ConfirmationRow | null, reverted?: { plan: RevertPlan; via: string } | null): Promise<DisconnectOutcome> {
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

export const DISCONNECT_NOTE =
  'Stops serving, removes the certificate and stops monitoring. For records set up by hand the outcome lists them under ' +
  '`left_in_place` with `manual_steps`. Repeating the call answers the same outcome. A widget token must be bound to the domain. ' +
  'Records an automatic rail wrote are reverted first, through the kept grant (a continuous provider account, an OAuth grant or a Domain Connect grant) or a ' +
  'one-time `credential`: Portico\'s own records are removed and what they replaced is restored (`restored`); a set changed at the ' +
  'provider since is left alone (`left_in_place`). When no grant can remove them (none kept, or the provider refuses it) the answer ' +
  'is 409 `reauthorization_required` with `plan`, the full removal plan, and nothing is removed: 409 because the request is well ' +
  'formed and the connection\'s state (no usable grant) is what stands in the way; resend with `credential`, or follow the plan and resend ' +
  '`:disconnect` with `leave_records: true`, which finishes without the provider and lists every record left with its prior values. ' +
  'When the zone itself is gone at the host (deleted there, or no longer reachable with a credential the host accepts), nothing can be ' +
  'written there ever again: the disconnect finishes with `outcome: manual`, every set Portico wrote or removed listed in `left_in_place` ' +
  'with `prior_values` (what it held before connecting), and `manual_steps` saying what to do wherever the zone lives now. ' +
  'While another write to the same records is in progress (an apply, a reapply, a repair) the answer is 409 `conflict` with ' +
  '`details.reason: write_in_progress` and Retry-After; nothing was removed, send it again then.'

export const TargetResponse = named('ConnectTarget', Out({
  application_id: Type.String(),
  mode: Type.Union([Type.Literal('edge'), Type.Literal('custom')], { description: '`edge`: the platform edge is the target' }),
  connect_target: Out({ cname_target: Type.String(), apex_ipv4: Type.Array(Type.String()) }),
  edge: Out({ cname_target: Type.String(), apex_ipv4: Type.Array(Type.String()) }),
}))

export function targetOut(ctx: Pick<Ctx, 'config'>, app: ApplicationRow) {
  return { application_id: app.id, mode: app.cname_target ? ('custom' as const) : ('edge' as const), connect_target: effectiveTarget(app, edge(ctx)), edge: edge(ctx) }
}
