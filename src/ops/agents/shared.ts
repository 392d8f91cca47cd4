// Agents (the API contract, section 4): the consent request a consent screen reads. The registration
// endpoint speaks RFC 7591 and lives in oauth/register.ts; the consent page in oauth/consent.ts.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { GRANT_TTL_S, REVOKE_REASONS } from '../../domain/agent-grants.ts'
import type { GrantRow } from '../../db/agent-grants.ts'
import { Nullable, Out, Timestamp } from '../schemas.ts'

export const TAG = 'Agents'

export const AgentGrant = named('AgentGrant', Out({
  id: Type.String(),
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  approved_by: Type.String({ description: 'The credential that approved it on the consent screen' }),
  approved_by_member: Nullable(Type.String({ description: 'The member behind that API key: removing them ends the grant, lowering their role narrows it' })),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
  created_at: Timestamp(),
  last_used_at: Nullable(Timestamp('Last request an agent token of this grant made (to the minute)')),
  expires_at: Timestamp('When the agent must ask a person again, unless revoked before'),
  revoked_at: Nullable(Timestamp()),
  revoked_reason: Nullable(
    Type.String({
      description: `Why the grant ended: ${Object.values(REVOKE_REASONS).map((r) => '`' + r + '`').join(', ')}`,
    }),
  ),
}))

export const grantOut = (g: GrantRow, now: Date) => {
  const expiresAt = new Date(g.created_at.getTime() + GRANT_TTL_S * 1000)
  return {
    id: g.id,
    client_id: g.client_id,
    client_name: g.client_name,
    redirect_uris: g.redirect_uris,
    scopes: g.scopes,
    approved_by: g.account_id,
    approved_by_member: g.approved_member_id,
    status: g.revoked_at ? (g.revoked_reason === REVOKE_REASONS.expired ? ('expired' as const) : ('revoked' as const)) : expiresAt <= now ? ('expired' as const) : ('active' as const),
    created_at: g.created_at,
    last_used_at: g.last_used_at,
    expires_at: expiresAt,
    revoked_at: g.revoked_at,
    revoked_reason: g.revoked_reason,
  }
}
