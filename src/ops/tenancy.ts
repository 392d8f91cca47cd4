// Tenancy and keys (CONTRACT.md section 4): tenants, one-call provisioning, the workspace default key,
// applications and their API keys.
import { Type } from '@sinclair/typebox'
import { ApiError, invalid, notFound } from '../errors.ts'
import { failpoint } from '../failpoints.ts'
import { newId } from '../ids.ts'
import { sha256Hex } from '../crypto.ts'
import { activeDefaultKey, keyRoleInApplication, keysOfApplication, notifyKeyRevoked, notifyValid, revokeKey } from '../db/api-keys.ts'
import { applicationById, applicationsOfTenant, firstApplication, rotateClientSecret, setBranding } from '../db/applications.ts'
import { newClientSecret } from '../domain/secrets.ts'
import { validateBranding } from '../domain/branding.ts'
import { addressResolver } from '../domain/webhook-delivery.ts'
import { insertOwnerMember } from '../db/members.ts'
import { roleRank } from '../domain/rbac.ts'
import type { KeyEnvironment } from '../db/applications.ts'
import { applicationOut, createApplication, createKey, createTenant, getApplicationInTenant, getTenant, keyOut, tenantOut } from '../domain/tenancy.ts'
import type { ApplicationRow } from '../db/applications.ts'
import { defineOp, reply, type Ctx } from './registry.ts'
import { APP_ONLY } from './authority.ts'
import { ApiKeyMeta, Application, ApplicationWithSecret, Email, EnvironmentSchema, IdParam, Input, Name, Nullable, Out, RoleSchema, Tenant, Timestamp } from './schemas.ts'

const TAG = 'Tenancy and keys'


/**
 * A credential just minted (an API key, a client secret, an invitation) is valid: once committed, its
 * holder's neighbours' failed guesses never refuse it, on this process or any other (the keys channel
 * tells them: src/domain/throttle.ts).
 */
export async function publishValid(ctx: Pick<Ctx, 'sql' | 'services' | 'afterCommit'>, secret: string): Promise<void> {
  await publishValidHash(ctx, sha256Hex(secret))
}

/** As `publishValid`, for a credential known by its stored hash (hex) only (a previous client secret). */
async function publishValidHash(ctx: Pick<Ctx, 'sql' | 'services' | 'afterCommit'>, hex: string): Promise<void> {
  await notifyValid(ctx.sql, hex)
  ctx.afterCommit(() => ctx.services.throttle?.vouch(hex))
}

export const createTenantOp = defineOp({
  id: 'tenants.create',
  method: 'POST',
  path: '/tenants',
  summary: 'Create a tenant',
  tag: TAG,
  auth: ['MGMT'],
  body: Input({ name: Name('Tenant name') }),
  response: Tenant,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'write',
  internal: true,
  async handler(ctx, input) {
    const t = await createTenant(ctx.sql, input.name, ctx.clock.now())
    ctx.audit.tenantId = t.id
    return tenantOut(t)
  },
})

export const getTenantOp = defineOp({
  id: 'tenants.get',
  method: 'GET',
  path: '/tenants/{id}',
  summary: 'Read a tenant',
  tag: TAG,
  auth: ['MGMT'],
  params: IdParam,
  response: Tenant,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  internal: true,
  handler: async (ctx, input) => tenantOut(await getTenant(ctx.sql, input.id)),
})

export const provisionOp = defineOp({
  id: 'tenants.provision',
  method: 'POST',
  path: '/tenants:provision',
  summary: 'Provision a workspace in one call',
  description:
    'Atomically creates the tenant, its first owner member (when `owner_email` is given), a default application and ' +
    'an owner-role default API key. Either everything is created or nothing is. `api_key` and `client_secret` are shown once.',
  tag: TAG,
  auth: ['PROV'],
  body: Input({
    tenant_name: Name('Workspace name'),
    app_name: Type.Optional(Name('Name of the default application (default: "Default")')),
    owner_email: Type.Optional(Email),
    environment: Type.Optional(EnvironmentSchema),
  }),
  response: Out({ tenant_id: Type.String(), application_id: Type.String(), api_key: Type.String(), client_secret: Type.String(), member_id: Type.Optional(Type.String()) }),
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'service_unavailable'],
  kind: 'write',
  internal: true,
  async handler(ctx, input) {
    const now = ctx.clock.now()
    const env: KeyEnvironment = input.environment ?? 'live'
    const tenant = await createTenant(ctx.sql, input.tenant_name, now)
    failpoint('provision.after_tenant')
    let memberId: string | undefined
    if (input.owner_email) {
      memberId = newId('mem', now.getTime())
      await insertOwnerMember(ctx.sql, memberId, tenant, { owner_email: input.owner_email }, now)
    }
    failpoint('provision.after_member')
    const { app, clientSecret } = await createApplication(ctx.sql, tenant.id, input.app_name ?? 'Default', env, now)
    await publishValid(ctx, clientSecret)
    failpoint('provision.after_application')
    const created = await createKey(ctx.sql, { tenantId: tenant.id, applicationId: app.id, environment: env, role: 'owner', name: 'Default key', isDefault: true, createdBy: memberId ?? null, now })
    if (!created) throw new Error('a new tenant already had a default key')
    failpoint('provision.after_key')
    await publishValid(ctx, created.key)
    ctx.audit.tenantId = tenant.id
    ctx.audit.targetId = tenant.id
    return { tenant_id: tenant.id, application_id: app.id, api_key: created.key, client_secret: clientSecret, ...(memberId ? { member_id: memberId } : {}) }
  },
})

export const defaultKeyOp = defineOp({
  id: 'tenants.default_key',
  method: 'POST',
  path: '/tenants/{id}/default-key',
  summary: 'Ensure the workspace default API key',
  description:
    'With no active default key, creates one (owner role) and answers 201 with the key shown once. When one exists, answers 200 ' +
    'with its id and prefix, `created: false`, and no secret. Two concurrent calls create at most one key.',
  tag: TAG,
  auth: ['PROV'],
  params: IdParam,
  bodyOptional: true,
  response: Out({ key_id: Type.String(), prefix: Type.String(), created: Type.Boolean(), api_key: Type.Optional(Type.String()) }),
  status: 201,
  altStatus: [{ status: 200, description: 'A default key already exists; no secret is returned' }],
  errors: ['unauthorized', 'not_found'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const tenant = await getTenant(ctx.sql, input.id)
    ctx.audit.tenantId = tenant.id
    const existing = () => activeDefaultKey(ctx.sql, tenant)
    const have = await existing()
    if (have) return reply(200, { key_id: have.id, prefix: have.prefix, created: false })
    const a = await firstApplication(ctx.sql, tenant)
    const created = await createKey(ctx.sql, {
      tenantId: tenant.id,
      applicationId: a?.id ?? null,
      environment: a?.environment ?? 'live',
      role: 'owner',
      name: 'Default key',
      isDefault: true,
      createdBy: null,
      now: ctx.clock.now(),
    })
    if (!created) {
      const raced = await existing()
      if (!raced) throw new Error('default key conflict without a default key')
      return reply(200, { key_id: raced.id, prefix: raced.prefix, created: false })
    }
    ctx.audit.targetId = created.row.id
    await publishValid(ctx, created.key)
    return { key_id: created.row.id, prefix: created.row.prefix, created: true, api_key: created.key }
  },
})

/** The tenant an application operation acts in: the key's own, or `tenant_id` for the management key. */
function tenantFor(ctx: Ctx, given: string | undefined): string {
  const p = ctx.principal
  if ('tenantId' in p) return p.tenantId
  if (!given) throw invalid('tenant_id is required with the management key', [{ in: 'body', field: 'tenant_id', message: 'is required' }])
  return given
}

/** Reads one application the principal may see; a widget token sees only its own. */
export async function applicationFor(ctx: Ctx, id: string): Promise<ApplicationRow> {
  const p = ctx.principal
  if (p.kind === 'MGMT') {
    const a = await applicationById(ctx.sql, id)
    if (!a) throw notFound('Application not found')
    return a
  }
  if (!('tenantId' in p)) throw notFound('Application not found')
  if (p.kind === 'WIDGET' && p.applicationId !== id) throw notFound('Application not found')
  return getApplicationInTenant(ctx.sql, p.tenantId, id)
}

export const createApplicationOp = defineOp({
  id: 'applications.create',
  method: 'POST',
  path: '/applications',
  summary: 'Create an application',
  description: 'With an API key the application is created in the key\'s own tenant and `tenant_id` is ignored; with the management key `tenant_id` is required. `client_secret` is returned once.',
  tag: TAG,
  auth: ['MGMT', 'KEY'],
  permission: 'app:write',
  body: Input({ tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), name: Name('Application name'), environment: Type.Optional(EnvironmentSchema) }),
  response: ApplicationWithSecret,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const tenantId = tenantFor(ctx, input.tenant_id)
    await getTenant(ctx.sql, tenantId)
    const { app, clientSecret } = await createApplication(ctx.sql, tenantId, input.name, input.environment ?? 'live', ctx.clock.now())
    await publishValid(ctx, clientSecret)
    ctx.audit.tenantId = tenantId
    return { ...applicationOut(app), client_secret: clientSecret }
  },
})

export const listApplicationsOp = defineOp({
  id: 'applications.list',
  method: 'GET',
  path: '/applications',
  summary: 'List applications',
  tag: TAG,
  auth: ['KEY', 'MGMT', 'AGENT'],
  permission: 'app:read',
  scope: 'domains:read',
  query: Input({ tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Needed only with the management key' })) }),
  response: Out({ applications: Type.Array(Application), count: Type.Integer() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  zone: 'none',
  async handler(ctx, input) {
    const tenantId = tenantFor(ctx, input.tenant_id)
    const rows = await applicationsOfTenant(ctx.sql, tenantId)
    return { applications: rows.map(applicationOut), count: rows.length }
  },
})

export const getApplicationOp = defineOp({
  id: 'applications.get',
  method: 'GET',
  path: '/applications/{id}',
  summary: 'Read an application',
  description: 'A widget token may read only its own application.',
  tag: TAG,
  auth: ['KEY', 'MGMT', 'WIDGET', 'AGENT'],
  widget: APP_ONLY,
  permission: 'app:read',
  scope: 'domains:read',
  params: IdParam,
  response: Application,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  handler: async (ctx, input) => applicationOut(await applicationFor(ctx, input.id)),
})

export const createKeyOp = defineOp({
  id: 'keys.create',
  method: 'POST',
  path: '/applications/{id}/keys',
  summary: 'Create an API key',
  description:
    'Admins and owners only. The key is tenant-wide, carries `role` (default: the role of the calling key, never above it) and ' +
    'its prefix follows the application environment (`ptc_live_` / `ptc_test_`). The full key is returned once.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:manage',
  params: IdParam,
  body: Input({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), role: Type.Optional(RoleSchema) }),
  bodyOptional: true,
  response: Type.Composite([ApiKeyMeta, Out({ key: Type.String({ description: 'Shown once' }) })]),
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const p = ctx.principal
    if (p.kind !== 'KEY') throw new ApiError('forbidden', 'Only API keys can mint API keys')
    const app = await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const role = input.role ?? p.role
    if (roleRank(role) > roleRank(p.role)) throw new ApiError('forbidden', `A ${p.role} key cannot mint a ${role} key`)
    const created = await createKey(ctx.sql, { tenantId: p.tenantId, applicationId: app.id, environment: app.environment, role, name: input.name ?? null, isDefault: false, createdBy: p.keyId, now: ctx.clock.now() })
    if (!created) throw new Error('non-default key insert reported a conflict')
    await publishValid(ctx, created.key)
    return { ...keyOut(created.row), key: created.key }
  },
})

export const listKeysOp = defineOp({
  id: 'keys.list',
  method: 'GET',
  path: '/applications/{id}/keys',
  summary: 'List API keys (metadata only)',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:read',
  params: IdParam,
  response: Out({ keys: Type.Array(ApiKeyMeta), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const p = ctx.principal
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const rows = await keysOfApplication(ctx.sql, p, input)
    return { keys: rows.map(keyOut), count: rows.length }
  },
})

export const revokeKeyOp = defineOp({
  id: 'keys.revoke',
  method: 'DELETE',
  path: '/applications/{id}/keys/{keyId}',
  summary: 'Revoke an API key',
  description: 'The key stops authenticating on its next request. Revoking a revoked key answers 200 again. A key may revoke keys of its own role or below: an admin key cannot revoke an owner\'s key (403).',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:manage',
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100 }), keyId: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: Out({ id: Type.String(), revoked: Type.Literal(true), revoked_at: Timestamp() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const p = ctx.principal
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    // As with members (only an owner may demote an owner), only an owner's key may revoke an owner's key.
    const role = await keyRoleInApplication(ctx.sql, p, input)
    if (role !== undefined && roleRank(role) > roleRank(p.role)) throw new ApiError('forbidden', `A ${p.role} key cannot revoke a ${role} key`)
    const k = await revokeKey(ctx.sql, ctx.clock.now(), p, input)
    if (!k) throw notFound('API key not found')
    // Every process evicts its cached lookup of this key when the revocation commits.
    const hex = Buffer.from(k.key_hash).toString('hex')
    await notifyKeyRevoked(ctx.sql, hex)
    ctx.afterCommit(() => {
      ctx.services.keyCache?.evict(hex)
      ctx.services.throttle?.known.forget(hex)
    })
    ctx.audit.targetId = input.keyId
    return { id: k.id, revoked: true as const, revoked_at: k.revoked_at }
  },
})

/** How long a rotated-out client secret keeps working unless the caller says otherwise. */
export const DEFAULT_SECRET_OVERLAP_S = 24 * 3600

export const rotateSecretOp = defineOp({
  id: 'applications.rotate_secret',
  method: 'POST',
  path: '/applications/{id}:rotate-secret',
  summary: 'Rotate an application\'s client_secret',
  description:
    'Answers a new `client_secret` (shown once). The previous secret keeps minting widget tokens at `POST /tokens` until `previous_valid_until`: ' +
    '`overlap_seconds` after now (default 86400, one day; at most 604800; 0 ends it at once), time to roll the new one out to every server. ' +
    'Rotating again ends the earlier secret at once: only the one just replaced overlaps. Admins and owners (`keys:manage`).',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:manage',
  params: IdParam,
  body: Input({ overlap_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, description: 'How long the previous secret stays valid (seconds; default 86400)' })) }),
  bodyOptional: true,
  response: Out({ application_id: Type.String(), client_secret: Type.String({ description: 'Shown once' }), previous_valid_until: Timestamp() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const p = ctx.principal
    const app = await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const now = ctx.clock.now()
    const until = new Date(now.getTime() + (input.overlap_seconds ?? DEFAULT_SECRET_OVERLAP_S) * 1000)
    const { secret, hash } = newClientSecret()
    const previous = await rotateClientSecret(ctx.sql, p.tenantId, app.id, hash, until, now)
    if (previous === null) throw notFound('Application not found')
    // The new secret, and the previous one for its overlap (a stale worker still holding it is who the overlap is for).
    await publishValid(ctx, secret)
    await publishValidHash(ctx, previous)
    ctx.audit.targetId = app.id
    ctx.audit.details = { previous_valid_until: until.toISOString() }
    return { application_id: app.id, client_secret: secret, previous_valid_until: until }
  },
})

export const putBrandingOp = defineOp({
  id: 'applications.branding.put',
  method: 'PUT',
  path: '/applications/{id}/branding',
  summary: 'Set how an application presents itself to people',
  description:
    'Replaces the application\'s branding, shown on the share page, the consent page and the widget (which reads it from ' +
    '`GET /v1/applications/{id}` with its widget token: the `branding` field). A field left out or null is cleared; all three ' +
    'null (or an empty body) removes the branding, and the pages go back to the workspace\'s name and neutral colours. ' +
    '`display_name`: up to 80 characters. `logo_url`: an https URL whose host resolves only to public addresses (Portico never ' +
    'fetches it; visitors\' browsers do), or a `data:image/(png|jpeg|gif|webp|svg+xml);base64,…` URL of at most 32 KB whose bytes ' +
    'are that format. `accent_color`: `#rrggbb`; the answer adds `accent_foreground` (black or white, whichever contrasts more ' +
    'with the accent) and `accent_text` (the accent darkened to 4.5:1 on white), which the pages use so text stays readable ' +
    'whatever the colour. Admins and owners only. Sending the same branding again changes nothing.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({
    display_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    logo_url: Type.Optional(Nullable(Type.String({ maxLength: 48 * 1024 }))),
    accent_color: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
  }),
  response: Application,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = ctx.principal
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const { branding, problems } = await validateBranding(input ?? {}, { allowLoopback: ctx.config.webhookAllowLoopback, resolve: addressResolver(ctx.services.dns) })
    if (problems.length) throw invalid('The branding is not valid', problems)
    const empty = !branding.display_name && !branding.logo_url && !branding.accent_color
    const row = await setBranding(ctx.sql, input.id, p.tenantId, empty ? null : branding, ctx.clock.now())
    ctx.audit.details = { display_name: branding.display_name, logo: branding.logo_url ? (branding.logo_url.startsWith('data:') ? 'data' : 'url') : null, accent_color: branding.accent_color }
    return applicationOut(row)
  },
})
