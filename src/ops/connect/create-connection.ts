import { Type } from '@sinclair/typebox'
import type { Principal } from '../../domain/principal.ts'
import { CUSTOM_RECORDS_SCOPE } from '../../domain/rbac.ts'
import { ApiError } from '../../errors.ts'
import { MetadataSchema } from '../../domain/resource-schemas.ts'
import { DnsRecordSchema } from '../../domain/records.ts'
import type { ParsedDomain } from '../../domain/hostnames.ts'
import { inspectDomain, type Inspection, openConnection } from '../../domain/connect.ts'
import { assertHostAllowed, connectionOut, effectiveTarget } from '../../domain/connections.ts'
import { assertFitsEnvironment } from '../../domain/test-mode.ts'
import { findOpen, type ConnectionRow } from '../../db/connections.ts'
import { assertCanConnect } from '../../domain/billing.ts'
import { Id, Input } from '../schemas.ts'
import { type Ctx, defineOp, type PrepareCtx, reply } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { refuseFirst, type Refusal } from '../checks.ts'
import { APP_HINT, APPLICATION_ID } from '../agent-text.ts'
import { applicationOf, checkRecordSet, ConnectionSchema, edge, LIFECYCLE_NOTE, parseOrThrow, TAG, ValidationSchema, WILDCARD_NEEDS_DNS_01 } from './shared.ts'

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

/** What a request is judged on before anything is read: the hostname and the validation asked for. */
interface AskedFacts {
  wildcard: boolean
  validation: 'http' | 'before_cutover' | undefined
  dcv: boolean
}

/** Refusals of what was asked, before the domain is looked at (src/ops/checks.ts). */
export const ASKED_REFUSALS: readonly Refusal<AskedFacts>[] = [
  // A wildcard's certificate can only be validated by DNS-01: through the delegation, before cutover.
  { when: ({ wildcard, validation }) => wildcard && validation === 'http', code: 'invalid_request', title: WILDCARD_NEEDS_DNS_01, details: () => [{ in: 'body', field: 'validation', message: 'wildcard_needs_dns_01' }] },
  {
    when: ({ wildcard, validation, dcv }) => (validation === 'before_cutover' || wildcard) && !dcv,
    code: 'invalid_request',
    reason: 'dcv_not_configured',
    title: ({ wildcard }) => `${wildcard ? 'A wildcard hostname' : 'Validation before cutover'} needs delegated DCV, which this deployment does not have`,
  },
]

/** What an open connection already there is judged on: who and which validation it was made for, against what was sent. */
interface OpenFacts {
  row: ConnectionRow
  created: boolean
  endUserRef: string | undefined
  validation: 'http' | 'before_cutover' | undefined
}

/** Refusals of an open connection the request found instead of creating one (src/ops/checks.ts). */
export const FOUND_REFUSALS: readonly Refusal<OpenFacts>[] = [
  // Connected under this application for someone else: say so rather than hand over their connection.
  {
    when: ({ created, endUserRef, row }) => !created && endUserRef !== undefined && row.end_user_ref !== endUserRef,
    code: 'conflict',
    reason: 'end_user_mismatch',
    title: ({ row }) => `${row.domain} is already connected under this application for another end user`,
    details: ({ row }) => ({ connection_id: row.id }),
  },
  // Asked for with another validation than it was made with: say so rather than answer the other mode.
  {
    when: ({ created, validation, row }) => !created && validation !== undefined && row.validation !== validation,
    code: 'conflict',
    reason: 'validation_mismatch',
    title: ({ row, validation }) => `${row.domain} is already connected under this application with validation ${row.validation}; disconnect it to connect it with validation ${validation}`,
    details: ({ row }) => ({ connection_id: row.id }),
  },
]

async function prepareCreate(ctx: PrepareCtx, domain: string, applicationId: string | undefined, validation?: 'http' | 'before_cutover'): Promise<CreatePrepared> {
  const parsed = parseOrThrow(domain)
  refuseFirst(ASKED_REFUSALS, { wildcard: !!parsed.wildcard, validation, dcv: !!ctx.services.dcv })
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
  agent: {
    description:
      `Starts connecting a domain to an application. Returns the connection (status pending) with the DNS records the person must add; then follow it with connections_get, or use a connect tool (apply, provider sign-in, one-click) to write the records. ${APP_HINT}`,
    app: true,
    toolset: 'connect',
    describe: {
      application_id: APPLICATION_ID,
      records: 'Leave out: the application\'s planned records are used. A record set of your own needs the domains:records scope, which your person grants separately because it can change where mail goes (MX) or who runs the domain\'s DNS (NS).',
    },
    output: ['id', 'domain', 'status', 'rail', 'records', 'error_code', 'error_message'],
  },
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
    const validation = pre.parsed.wildcard ? 'before_cutover' : input.validation
    refuseFirst(FOUND_REFUSALS, { row, created: outcome === 'created', endUserRef: input.end_user_ref, validation })
    if (outcome === 'created') ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { outcome }
    return outcome === 'created' ? connectionOut(row) : reply(200, connectionOut(row))
  },
})
