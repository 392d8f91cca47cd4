// Sharing (CONTRACT.md sections 1 and 8): share links hand a connection's manual setup to whoever
// controls the DNS. `POST /connections/{id}/share` mints a link (WIDGET or KEY; a domain-bound widget
// token only for its hostname); `GET /share/{token}` and `POST /share/{token}:recheck` need no
// credential: the unguessable token is the capability, and an expired (30 days) or unknown one is 404.
// The widget SDK, not the server, emits the `shared` window event when it produces a link.
import { named } from '../domain/named.ts'
import { ValidationStageSchema } from '../domain/resource-schemas.ts'
import { Type } from '@sinclair/typebox'
import { connectionFor, connectionOut } from '../domain/connections.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { markPropagating, recordVerifications, reviveConnection } from '../domain/connect.ts'
import { providerById } from '../domain/providers.ts'
import { canonicalRecords, DnsRecordSchema } from '../domain/records.ts'
import { createShareLink, sharedConnection } from '../domain/share.ts'
import { deleteShareLink, liveShareLinks } from '../db/share-links.ts'
import { notFound } from '../errors.ts'
import { verifyConnection } from '../domain/verify.ts'
import { defineOp, type Ctx } from './registry.ts'
import { publishValid } from './tenancy.ts'
import { END_USER } from './authority.ts'
import { Branding, IdParam, Input, Nullable, Out, Timestamp } from './schemas.ts'
import { applicationFace } from '../db/applications.ts'
import { brandingOut } from '../domain/branding.ts'

const TAG = 'Sharing'
const TokenParam = Input({ token: Type.String({ minLength: 10, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) })
const RecordRef = Out({ type: Type.String(), host: Type.String(), value: Type.String() })

const SharedFlow = named('SharedFlow', Out({
  connection_id: Type.String(),
  domain: Type.String(),
  apex_domain: Type.String(),
  status: Type.Union(['pending', 'propagating', 'live', 'failed'].map((s) => Type.Literal(s))),
  error_code: Nullable(Type.String({ description: 'Why the connection failed, when it did' })),
  error_message: Nullable(Type.String()),
  records: Type.Array(DnsRecordSchema, { description: 'The records to add, `host` relative to the zone apex' }),
  propagation: Out({ records_propagated: Type.Array(RecordRef), records_non_propagated: Type.Array(RecordRef) }),
  provider: Nullable(Type.String()),
  provider_name: Nullable(Type.String()),
  manual_steps: Type.Array(Type.String(), { description: 'Provider-specific steps, where the catalog has them' }),
  dashboard_url: Nullable(Type.String()),
  expires_at: Timestamp('When the link stops answering'),
  application_name: Nullable(
    Type.String({ description: 'Who asks for the records, named on the share page: the application\'s branding display name, else its workspace\'s name' }),
  ),
  branding: Nullable(Branding),
  last_checked_at: Nullable(Timestamp()),
  validation_stage: Nullable(ValidationStageSchema),
  secure: Type.Boolean({ description: 'Live, and its HTTPS certificate is issued and served (as on the connection)' }),
}))

async function sharedOut(sql: Ctx['sql'], c: ConnectionRow, expiresAt: Date) {
  const provider = providerById(c.provider_id)
  const app = await applicationFace(sql, c.application_id)
  const branding = brandingOut(app?.branding)
  return {
    connection_id: c.id,
    domain: c.domain,
    apex_domain: c.apex_domain,
    status: c.status,
    error_code: c.error_code,
    error_message: c.error_message,
    records: c.desired_records,
    propagation: c.last_result ?? { records_propagated: [], records_non_propagated: [] },
    provider: c.provider_id,
    provider_name: provider?.name ?? null,
    manual_steps: provider?.manual_steps ?? [],
    dashboard_url: provider?.dashboard_url ?? null,
    expires_at: expiresAt,
    application_name: branding?.display_name ?? app?.workspace ?? null,
    branding,
    last_checked_at: c.last_checked_at,
    validation_stage: c.validation_stage ?? null,
    secure: connectionOut(c).secure,
  }
}

function creator(ctx: Ctx): string {
  const p = ctx.principal
  return p.kind === 'KEY' ? `key:${p.keyId}` : p.kind === 'WIDGET' ? `widget:${p.tokenId}` : p.kind
}

export const createShareOp = defineOp({
  id: 'share.create',
  method: 'POST',
  path: '/connections/{id}/share',
  summary: 'Create a share link for a connection\'s manual setup',
  description:
    'Answers `{url, token, expires_at}`. The `url` opens the manual setup of this connection for whoever controls the DNS (the widget\'s ' +
    '`loadSharedFlow`); the link needs no credential and expires after 30 days, then answers 404. Each call mints a new link. ' +
    'A domain-bound widget token may share only its own hostname.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: Out({
    id: Type.String({ description: 'The link\'s id: GET /connections/{id}/share-links lists it, DELETE ends it' }),
    url: Type.String(),
    token: Type.String({ description: 'Shown once; the capability behind the link' }),
    expires_at: Timestamp(),
  }),
  status: 201,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  zone: 'none',
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const link = await createShareLink(ctx.sql, c, creator(ctx), ctx.config.publicUrl, ctx.clock.now())
    ctx.audit.details = { domain: c.domain, expires_at: link.expires_at.toISOString() }
    // A link just made works for whoever opens it, on any process, whatever guessers near them did (src/domain/throttle.ts).
    await publishValid(ctx, link.token)
    return link
  },
})

const ShareLinkOut = Out({ id: Type.String(), connection_id: Type.String(), created_by: Type.String(), created_at: Timestamp(), expires_at: Timestamp() })

export const listShareLinksOp = defineOp({
  id: 'share.list',
  method: 'GET',
  path: '/connections/{id}/share-links',
  summary: 'List a connection\'s open share links',
  description: 'The links still open for this connection, newest first: ids, who made them and until when; never the tokens.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:read',
  params: IdParam,
  response: Out({ share_links: Type.Array(ShareLinkOut), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const rows = await liveShareLinks(ctx.sql, c.id, ctx.clock.now())
    return { share_links: rows, count: rows.length }
  },
})

export const revokeShareLinkOp = defineOp({
  id: 'share.revoke',
  method: 'DELETE',
  path: '/connections/{id}/share-links/{linkId}',
  summary: 'End a share link',
  description: 'The link answers 404 from now on, as an expired one; the connection and its other links stay as they are.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100 }), linkId: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: Out({ id: Type.String(), revoked: Type.Literal(true) }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  zone: 'none',
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    if (!(await deleteShareLink(ctx.sql, c.id, input.linkId))) throw notFound('Share link not found')
    ctx.audit.targetId = input.linkId
    ctx.audit.details = { domain: c.domain }
    return { id: input.linkId, revoked: true as const }
  },
})

export const getShareOp = defineOp({
  id: 'share.get',
  method: 'GET',
  path: '/share/{token}',
  summary: 'Read a shared manual setup',
  description:
    'No credential: the share token is the capability. Answers the connection\'s domain, status, failure reason and the records to add, ' +
    'with provider-specific steps. An unknown or expired (older than 30 days) token, or a disconnected connection, is 404.',
  tag: TAG,
  auth: ['NONE'],
  guessable: true,
  params: TokenParam,
  response: SharedFlow,
  errors: ['not_found'],
  kind: 'read',
  internal: true,
  async handler(ctx, input) {
    const { row, expiresAt } = await sharedConnection(ctx.sql, input.token, ctx.clock.now())
    return sharedOut(ctx.sql, row, expiresAt)
  },
})

export const recheckShareOp = defineOp({
  id: 'share.recheck',
  method: 'POST',
  path: '/share/{token}:recheck',
  summary: 'Say the shared records were added, and re-check now',
  description:
    'What "I have added them" sends in a shared flow: like `POST /connections/{id}:recheck`, a pending connection starts propagating ' +
    'and a failed one is revived, then its records are verified at once. No credential; unknown or expired tokens are 404.',
  tag: TAG,
  auth: ['NONE'],
  guessable: true,
  params: TokenParam,
  bodyOptional: true,
  body: Input({}),
  response: SharedFlow,
  errors: ['not_found'],
  kind: 'write',
  internal: true,
  // The lookup is outside I/O: done before the transaction, against the records the connection had then.
  async prepare(ctx, input) {
    const { row } = await sharedConnection(ctx.db, input.token, ctx.clock.now())
    if (row.status === 'live') return null
    return { records: canonicalRecords(row.desired_records), verification: await verifyConnection(ctx.services.verifyDns, row, ctx.clock.now()) }
  },
  async handler(ctx, input, prepared) {
    const now = ctx.clock.now()
    const { row, expiresAt } = await sharedConnection(ctx.sql, input.token, now)
    ctx.audit.tenantId = row.tenant_id
    ctx.audit.targetId = row.id
    const c = row.status === 'failed' ? await reviveConnection(ctx.sql, row, now) : row.status === 'pending' ? await markPropagating(ctx.sql, row, now) : row
    if (c.status === 'live' || !prepared || prepared.records !== canonicalRecords(c.desired_records)) return sharedOut(ctx.sql, c, expiresAt)
    await recordVerifications(ctx.sql, [{ row: c, verification: prepared.verification }], now)
    return sharedOut(ctx.sql, (await sharedConnection(ctx.sql, input.token, now)).row, expiresAt)
  },
})
