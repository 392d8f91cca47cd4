// The life of an agent grant after a person approved it. One place decides whether a grant still
// holds, for every face that meets an agent token (MCP, /v1, the token endpoint's extra claims) and
// for the grant list, so they cannot disagree:
// - a revoked grant stays revoked, with `revoked_reason` saying why (REVOKE_REASONS);
// - a grant approved by a member signed in as themselves ends when that member is removed or
//   deactivated; one approved with an API key (before people signed in as themselves) also ends when
//   that key is revoked; either narrows to the scopes the approver's current role may still grant
//   when the role is lowered (and ends when none is left);
// - ending a grant deletes the authorization server's artefacts of it (refresh tokens, codes, the
//   provider's Grant), so nothing can be refreshed, and its access tokens fail on their next use.
import type { Sql } from '../db/sql.ts'
import { endGrant, grantStates, markGrantUsed, narrowGrantScopes, setStepUp, takeStepUpScopes, type AgentGrantState } from '../db/agent-grants.ts'
import { can, ROLES, type MemberRole } from './rbac.ts'
import { agentScope } from './rbac.ts'

/** A grant lasts this long from approval (its refresh tokens as long); then the agent must ask a person again. */
export const GRANT_TTL_S = 30 * 24 * 3600

export const REVOKE_REASONS = {
  /** DELETE /v1/agent-grants/{id} by the workspace. */
  workspace: 'revoked_by_workspace',
  /** RFC 7009 revocation by the agent itself, of either token kind. */
  client: 'revoked_by_client',
  /** A rotated refresh token (or a used code) came back after its grace: a sign it was copied. */
  reuse: 'token_reuse',
  approverKeyRevoked: 'approver_key_revoked',
  approverRemoved: 'approver_removed',
  /** The approver's role was lowered below every scope of the grant. */
  approverRoleLowered: 'approver_role_lowered',
  /** Past its time when the person approved the client again: a new grant took its place. */
  expired: 'expired',
  /** Folded into the person's newer grant for the same client (migration 0110: one grant per person and client). */
  replaced: 'replaced',
} as const
export type RevokeReason = (typeof REVOKE_REASONS)[keyof typeof REVOKE_REASONS]

/**
 * Ends a grant (idempotent: the first time and reason are kept), with any other live grant of the same
 * person and client, and deletes their provider artefacts: every token that client holds from that person.
 */
export async function revokeGrant(db: Sql, grantId: string, reason: RevokeReason, now: Date): Promise<void> {
  await endGrant(db, grantId, reason, now)
}

export interface LiveGrant {
  tenantId: string
  /** The scopes that hold now: the granted ones the approver's current role still permits. */
  scopes: string[]
}

type GrantState = AgentGrantState

/** The weaker of two roles (ROLES runs from owner down to viewer). */
const weaker = (a: MemberRole, b: MemberRole): MemberRole => (ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b)

/** Whether the grant holds and with which scopes, or why it ends. Pure: the caller writes the outcome. */
export function judgeGrant(g: GrantState): { ended: RevokeReason | null; scopes: string[] } {
  // Approved by the member themselves: the grant is theirs alone (no key stands behind it).
  const byMember = g.approved_member_id !== null && g.account_id === g.approved_member_id
  if (!byMember && (g.key_role === null || g.key_revoked_at !== null)) return { ended: REVOKE_REASONS.approverKeyRevoked, scopes: [] }
  let role: MemberRole = byMember ? 'owner' : g.key_role!
  if (g.approved_member_id !== null) {
    if (g.member_role === null || g.member_status !== 'active') return { ended: REVOKE_REASONS.approverRemoved, scopes: [] }
    role = weaker(role, g.member_role)
  }
  const scopes = g.scopes.filter((s) => {
    const scope = agentScope(s)
    return scope !== undefined && can(role, scope.permission)
  })
  return scopes.length ? { ended: null, scopes } : { ended: REVOKE_REASONS.approverRoleLowered, scopes: [] }
}

/** Applies the judgement: ends the grant, or narrows its stored scopes; returns what holds. */
async function settle(db: Sql, g: GrantState, now: Date): Promise<LiveGrant | null> {
  if (g.revoked_at !== null) return null
  const verdict = judgeGrant(g)
  if (verdict.ended) {
    await revokeGrant(db, g.id, verdict.ended, now)
    return null
  }
  if (verdict.scopes.length < g.scopes.length) {
    await narrowGrantScopes(db, g, verdict.scopes)
  }
  return { tenantId: g.tenant_id, scopes: verdict.scopes }
}

/** The grant as it holds now for `clientId`, settling a removed or lowered approver; null when it ended. */
export async function liveGrant(db: Sql, grantId: string, clientId: string, now: Date): Promise<LiveGrant | null> {
  const [g] = await grantStates(db, { grantId })
  return g && g.client_id === clientId ? settle(db, g, now) : null
}

/** Settles every live grant of a tenant (before listing them, so the list says what holds). */
export async function settleTenantGrants(db: Sql, tenantId: string, now: Date): Promise<void> {
  for (const g of await grantStates(db, { tenantId })) await settle(db, g, now)
}

const lastUseWrites = new Map<string, number>()

/** Marks a grant used, at most once a minute per grant per process (a write per request would cost more than the read). */
export function touchGrant(db: Sql, grantId: string, now: Date): void {
  const prev = lastUseWrites.get(grantId) ?? 0
  if (now.getTime() - prev < 60_000) return
  lastUseWrites.set(grantId, now.getTime())
  markGrantUsed(db, grantId, now).catch(() => {})
}

/** How long after an insufficient_scope challenge a refresh of the grant is sent to the person instead. */
export const STEP_UP_WINDOW_MS = 5 * 60_000

/** An agent was told it lacks `scopes`: marks its live grants so the next refresh goes to the person. */
export async function noteStepUp(db: Sql, agent: { tenantId: string; clientId: string; subject: string }, scopes: string[], now: Date): Promise<void> {
  await setStepUp(db, agent, scopes, now)
}

/** The scopes a refresh of this grant cannot give, once, when a step-up was asked for lately; null otherwise. */
export async function takeStepUp(db: Sql, grantId: string, now: Date): Promise<string[] | null> {
  return takeStepUpScopes(db, grantId, new Date(now.getTime() - STEP_UP_WINDOW_MS))
}
