// Tokens and members (the API contract, section 4): widget tokens minted server-side with an application's
// client secret, member invitations, role changes with the owner rules, and acceptance.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import type { MemberRow } from '../../db/members.ts'
import type { WidgetTokenRow } from '../../db/widget-tokens.ts'
import { ApiError } from '../../errors.ts'
import { Nullable, Out, Timestamp } from '../schemas.ts'
import type { Ctx } from '../registry.ts'

export const memberOut = (m: MemberRow, inviteToken?: string) => ({
  id: m.id,
  email: m.email,
  role: m.role,
  status: m.status,
  ...(inviteToken ? { invite_token: inviteToken } : {}),
  created_at: m.created_at,
  accepted_at: m.accepted_at,
})

export const WidgetTokenOut = Out({
  id: Type.String(),
  application_id: Type.String(),
  scope: Type.Union([Type.Literal('connect'), Type.Literal('app')]),
  bound_host: Nullable(Type.String()),
  created_at: Timestamp(),
  expires_at: Timestamp(),
  revoked_at: Nullable(Timestamp()),
})

export const widgetTokenOut = (t: WidgetTokenRow) => ({ id: t.id, application_id: t.application_id, scope: t.scope as 'connect' | 'app', bound_host: t.bound_host, created_at: t.created_at, expires_at: t.expires_at, revoked_at: t.revoked_at })

export function keyPrincipal(ctx: Ctx) {
  const p = ctx.principal
  if (p.kind !== 'KEY') throw new ApiError('forbidden', 'Only API keys manage members')
  return p
}
