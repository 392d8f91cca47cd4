// The scopes a person can grant an agent (CONTRACT.md section 5, "Delegated agent token"). Each scope
// says in plain words what it lets an agent do, for the consent page, and names the API-key role
// permission that covers it: a person may grant a scope only when their own key's role holds that
// permission, so approving an agent never hands out more than the approver has. Published by GET /rbac.
import type { Permission } from '../src/domain/rbac.ts'

export interface AgentScope {
  id: string
  /** What the scope allows, in words for the person approving. */
  description: string
  /** The role permission an approver needs to grant it. */
  permission: Permission
}

export const AGENT_SCOPES: readonly AgentScope[] = [
  { id: 'domains:read', description: 'See your domain connections, their DNS records and status, and your applications', permission: 'connections:read' },
  { id: 'domains:write', description: 'Add domains and check, apply or re-check their DNS setup', permission: 'connections:write' },
  { id: 'domains:disconnect', description: 'Disconnect domains (the agent must name each domain it removes)', permission: 'connections:disconnect' },
]

export const AGENT_SCOPE_IDS: readonly string[] = AGENT_SCOPES.map((s) => s.id)

/**
 * What a client that names no scope, and the first 401 challenge, ask for: reading and writing.
 * Disconnecting is asked for by step-up (403 insufficient_scope) when a client needs it.
 */
export const DEFAULT_AGENT_SCOPE_IDS: readonly string[] = ['domains:read', 'domains:write']

const byId = new Map(AGENT_SCOPES.map((s) => [s.id, s]))

export function agentScope(id: string): AgentScope | undefined {
  return byId.get(id)
}

/** The known agent scopes in a space-separated scope string, in catalog order, without duplicates. */
export function parseScopes(scope: string | undefined | null): string[] {
  const asked = new Set((scope ?? '').split(' ').filter(Boolean))
  return AGENT_SCOPE_IDS.filter((id) => asked.has(id))
}
