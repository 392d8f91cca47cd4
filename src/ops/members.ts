// Tokens and members (CONTRACT.md section 4): widget tokens minted server-side with an application's
// client secret, member invitations, role changes with the owner rules, and acceptance.
import { Type } from '@sinclair/typebox'
import { ApiError, notFound, unauthorized } from '../errors.ts'
import { newId, randomToken } from '../ids.ts'
import { matchesHash } from '../crypto.ts'
import { WIDGET_TOKEN_TTL_SECONDS } from '../domain/widget-tokens.ts'
import { normalizeHostname } from '../domain/hostnames.ts'
import { revokeGrant, REVOKE_REASONS } from '../domain/agent-grants.ts'
import { applicationSecret } from '../db/applications.ts'
import { insertWidgetToken, liveWidgetTokens, revokeWidgetToken, type WidgetTokenRow } from '../db/widget-tokens.ts'
import { KEYS_CHANNEL, notify } from '../db/channels.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import { publishValid } from './tenancy.ts'
import { liveGrantsApprovedBy } from '../db/agent-grants.ts'
import {
  acceptInvitation,
  activeKeysCreatedBy,
  deleteMember,
  insertInvitation,
  lockActiveOwners,
  lockInvitation,
  lockMember,
  lockMemberByEmail,
  memberById,
  membersOf,
  reinvite,
  setMemberRole,
  type MemberRow,
} from '../db/members.ts'
import { defineOp, reply, type Ctx } from './registry.ts'
import { Email, IdParam, Input, Member, Nullable, Out, RoleSchema, Timestamp } from './schemas.ts'

const memberOut = (m: MemberRow, inviteToken?: string) => ({
  id: m.id,
  email: m.email,
  role: m.role,
  status: m.status,
  ...(inviteToken ? { invite_token: inviteToken } : {}),
  created_at: m.created_at,
  accepted_at: m.accepted_at,
})

export const createTokenOp = defineOp({
  id: 'tokens.create',
  method: 'POST',
  path: '/tokens',
  summary: 'Mint a widget token',
  description:
    'Server-side only: authenticated by the application\'s `client_secret` in the body, never by a bearer. The token is a JWT for one ' +
    'application, valid `expires_in` seconds (default 3600). `domain` binds it to one hostname: it may then act only on that hostname. ' +
    '`scope` is `connect` (default; the end-user flow) or `app` (also reads application-level data such as billing standing).',
  tag: 'Tokens and members',
  auth: ['NONE'],
  guessable: true,
  body: Input({
    application_id: Type.String({ minLength: 1, maxLength: 100 }),
    client_secret: Type.String({ minLength: 1, maxLength: 200 }),
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    scope: Type.Optional(Type.Union([Type.Literal('connect'), Type.Literal('app')])),
    expires_in: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400, description: 'Seconds (default 3600)' })),
  }),
  response: Out({
    token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    token_id: Type.String({ description: 'The token\'s id: GET /applications/{id}/widget-tokens lists it, DELETE revokes it' }),
  }),
  errors: ['invalid_request', 'unauthorized'],
  kind: 'write',
  internal: true,
  async handler(ctx, input) {
    const app = await applicationSecret(ctx.sql, input.application_id)
    // An unknown application and a wrong secret answer the same.
    const now = ctx.clock.now()
    const current = app && matchesHash(input.client_secret, app.client_secret_hash)
    // The secret a rotation replaced works until the overlap it was given ends (applications:rotate-secret).
    const previous = app && !current && app.previous_client_secret_hash && app.previous_secret_until && app.previous_secret_until > now && matchesHash(input.client_secret, app.previous_client_secret_hash)
    if (!app || (!current && !previous)) throw unauthorized('Unknown application or wrong client_secret')
    let boundHost: string | null = null
    if (input.domain !== undefined) {
      boundHost = normalizeHostname(input.domain)
      if (!boundHost) throw new ApiError('invalid_request', 'domain is not a valid hostname', [{ in: 'body', field: 'domain', message: 'not a hostname' }])
    }
    const ttl = input.expires_in ?? WIDGET_TOKEN_TTL_SECONDS
    const scope = input.scope ?? 'connect'
    // Recorded by id, so the integrator can list the tokens still valid and revoke one (widget_tokens.list).
    const tokenId = newId('wtk', now.getTime())
    await insertWidgetToken(ctx.sql, { id: tokenId, tenant_id: app.tenant_id, application_id: app.id, scope, bound_host: boundHost, created_at: now, expires_at: new Date(now.getTime() + ttl * 1000) })
    const token = await ctx.services.widgetTokens.mint({ tenantId: app.tenant_id, applicationId: app.id, scope, boundHost }, now, ttl, tokenId)
    ctx.audit = { tenantId: app.tenant_id, targetId: app.id, details: { bound_host: boundHost, scope, token_id: tokenId } }
    return { token, token_type: 'Bearer' as const, expires_in: ttl, token_id: tokenId }
  },
})

const WidgetTokenOut = Out({
  id: Type.String(),
  application_id: Type.String(),
  scope: Type.Union([Type.Literal('connect'), Type.Literal('app')]),
  bound_host: Nullable(Type.String()),
  created_at: Timestamp(),
  expires_at: Timestamp(),
  revoked_at: Nullable(Timestamp()),
})

const widgetTokenOut = (t: WidgetTokenRow) => ({ id: t.id, application_id: t.application_id, scope: t.scope as 'connect' | 'app', bound_host: t.bound_host, created_at: t.created_at, expires_at: t.expires_at, revoked_at: t.revoked_at })

export const listWidgetTokensOp = defineOp({
  id: 'widget_tokens.list',
  method: 'GET',
  path: '/applications/{id}/widget-tokens',
  summary: 'List an application\'s widget tokens still valid',
  description:
    'The widget tokens minted for this application that have not expired, newest first (at most 500), revoked ones marked with `revoked_at`. ' +
    'Never the tokens themselves: their ids, scope, bound hostname and times.',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'keys:read',
  params: IdParam,
  response: Out({ widget_tokens: Type.Array(WidgetTokenOut), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const rows = await liveWidgetTokens(ctx.sql, p.tenantId, input.id, ctx.clock.now(), 500)
    return { widget_tokens: rows.map(widgetTokenOut), count: rows.length }
  },
})

export const revokeWidgetTokenOp = defineOp({
  id: 'widget_tokens.revoke',
  method: 'DELETE',
  path: '/applications/{id}/widget-tokens/{tokenId}',
  summary: 'Revoke a widget token',
  description:
    'The token is refused from its next request on, by every process (401, as an expired one). For a token that outlives its page: ' +
    'a long `expires_in`, a page left open, a token that leaked. Revoking a revoked token answers 200 again. Admins and owners (`keys:manage`).',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'keys:manage',
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100 }), tokenId: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: WidgetTokenOut,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const t = await revokeWidgetToken(ctx.sql, p.tenantId, input.id, input.tokenId, ctx.clock.now())
    if (!t) throw notFound('Widget token not found')
    // Every process refuses it from the commit on (the key cache's channel carries token ids too).
    await notify(ctx.sql, KEYS_CHANNEL, t.id)
    ctx.afterCommit(() => ctx.services.widgetTokens.revoked.add(t.id, t.expires_at.getTime()))
    ctx.audit.targetId = t.id
    return widgetTokenOut(t)
  },
})

async function memberInTenant(ctx: Ctx, tenantId: string, id: string): Promise<MemberRow> {
  const m = await memberById(ctx.sql, tenantId, id)
  if (!m) throw notFound('Member not found')
  return m
}

function keyPrincipal(ctx: Ctx) {
  const p = ctx.principal
  if (p.kind !== 'KEY') throw new ApiError('forbidden', 'Only API keys manage members')
  return p
}

export const inviteMemberOp = defineOp({
  id: 'members.invite',
  method: 'POST',
  path: '/members',
  summary: 'Invite a member',
  description:
    'Admins and owners only; only an owner may invite an owner. Answers 201 with the Member and its `invite_token` (shown once). ' +
    'Inviting an email that is still only invited answers 200 with a fresh token (the old one stops working); inviting an active member is 409.',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:manage',
  body: Input({ email: Email, role: Type.Optional(RoleSchema) }),
  response: Member,
  status: 201,
  altStatus: [{ status: 200, description: 'Re-invitation of a pending member with a fresh token' }],
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'conflict'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    const role = input.role ?? 'member'
    if (role === 'owner' && p.role !== 'owner') throw new ApiError('forbidden', 'Only an owner can invite an owner')
    const token = `inv_${randomToken(24)}`
    const now = ctx.clock.now()
    const existing = await lockMemberByEmail(ctx.sql, p, input)
    if (existing) {
      if (existing.status === 'active') throw new ApiError('conflict', 'This person is already a member')
      if (existing.role === 'owner' && p.role !== 'owner') throw new ApiError('forbidden', 'Only an owner can change an owner invitation')
      const m = await reinvite(ctx.sql, existing, { token, role, p, now })
      await publishValid(ctx, token)
      ctx.audit.targetId = existing.id
      return reply(200, memberOut(m, token))
    }
    const m = await insertInvitation(ctx.sql, { token, role, p, now }, input)
    await publishValid(ctx, token)
    return memberOut(m, token)
  },
})

export const listMembersOp = defineOp({
  id: 'members.list',
  method: 'GET',
  path: '/members',
  summary: 'List members',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:read',
  response: Out({ members: Type.Array(Member), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx) {
    const p = keyPrincipal(ctx)
    const rows = await membersOf(ctx.sql, p)
    return { members: rows.map((m) => memberOut(m)), count: rows.length }
  },
})

export const updateMemberOp = defineOp({
  id: 'members.update',
  method: 'PATCH',
  path: '/members/{id}',
  summary: 'Change a member\'s role',
  description: 'Admins and owners only. Only an owner may make someone an owner or change an owner\'s role (403); the last owner cannot be demoted (400).',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:manage',
  params: IdParam,
  body: Input({ role: RoleSchema }),
  response: Member,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    const m = await memberInTenant(ctx, p.tenantId, input.id)
    if ((input.role === 'owner' || m.role === 'owner') && m.role !== input.role && p.role !== 'owner') {
      throw new ApiError('forbidden', 'Only an owner can create or demote an owner')
    }
    if (m.role === 'owner' && input.role !== 'owner' && m.status === 'active') {
      // Lock the tenant's owners so two concurrent demotions cannot leave none.
      const owners = await lockActiveOwners(ctx.sql, p)
      if (owners.length <= 1) throw new ApiError('invalid_request', 'A workspace keeps at least one owner')
    }
    const u = await setMemberRole(ctx.sql, m, input, ctx.clock.now())
    ctx.audit.details = { from: m.role, to: input.role }
    return memberOut(u)
  },
})

export const removeMemberOp = defineOp({
  id: 'members.remove',
  method: 'DELETE',
  path: '/members/{id}',
  summary: 'Remove a member',
  description:
    'Admins and owners only; only an owner may remove an owner (403), and the last active owner cannot be removed (409). ' +
    'Removing a pending invitation cancels it (its token stops working). Every agent grant the member approved ends at once ' +
    '(`revoked_reason: approver_removed`): the agent\'s next call with its tokens is refused, and `ended_agent_grants` lists them. ' +
    'API keys the member created belong to their application and keep working; `api_keys_kept` lists them so they can be revoked ' +
    'too. Removing a removed member answers 404.',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:manage',
  params: IdParam,
  response: Out({
    ...Member.properties,
    removed: Type.Literal(true),
    ended_agent_grants: Type.Array(Type.String(), { description: 'Ids of the agent grants this member approved, now revoked' }),
    api_keys_kept: Type.Array(Out({ id: Type.String(), application_id: Type.Union([Type.String(), Type.Null()]) }), {
      description: 'Active API keys the member created, left working',
    }),
  }),
  errors: ['unauthorized', 'forbidden', 'not_found', 'conflict'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const p = keyPrincipal(ctx)
    const m = await lockMember(ctx.sql, p.tenantId, input.id)
    if (!m) throw notFound('Member not found')
    if (m.role === 'owner' && p.role !== 'owner') throw new ApiError('forbidden', 'Only an owner can remove an owner')
    if (m.role === 'owner' && m.status === 'active') {
      // Locked as for a demotion, so two concurrent removals cannot leave no owner.
      const owners = await lockActiveOwners(ctx.sql, p)
      if (owners.length <= 1) throw new ApiError('conflict', 'A workspace keeps at least one owner; make another member owner first')
    }
    const now = ctx.clock.now()
    const grants = await liveGrantsApprovedBy(ctx.sql, p.tenantId, m.id)
    for (const g of grants) await revokeGrant(ctx.sql, g.id, REVOKE_REASONS.approverRemoved, now)
    const kept = await activeKeysCreatedBy(ctx.sql, m)
    await deleteMember(ctx.sql, m)
    ctx.audit.targetId = m.id
    ctx.audit.details = { email: m.email, role: m.role, status: m.status, ended_agent_grants: grants.length }
    return { ...memberOut(m), removed: true as const, ended_agent_grants: grants.map((g) => g.id), api_keys_kept: kept }
  },
})

export const acceptMemberOp = defineOp({
  id: 'members.accept',
  method: 'POST',
  path: '/members:accept',
  summary: 'Accept an invitation',
  description: 'Authenticated by the invitation token in the body. Accepting again with the same token answers the same member (idempotent); an unknown token is 404.',
  tag: 'Tokens and members',
  auth: ['NONE'],
  guessable: true,
  body: Input({ invite_token: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: Member,
  errors: ['invalid_request', 'not_found'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const m = await lockInvitation(ctx.sql, input.invite_token)
    if (!m) throw notFound('Invitation not found')
    ctx.audit = { tenantId: m.tenant_id, targetId: m.id }
    if (m.status === 'active') return memberOut(m)
    const u = await acceptInvitation(ctx.sql, m, ctx.clock.now())
    return memberOut(u)
  },
})
