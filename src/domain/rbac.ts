// The role/permission matrix (the API contract, section 5 rule 4). `GET /rbac` publishes this table and the
// server enforces from the same table, so the published matrix cannot drift from what is enforced.

import type { MemberRole as StoredRole } from '../db/members.ts'

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const satisfies readonly StoredRole[]
export type MemberRole = (typeof ROLES)[number]

export const PERMISSIONS = {
  'tenant:read': 'Read the workspace',
  'app:read': 'Read applications and their settings',
  'app:write': 'Create applications and change their settings',
  'keys:read': 'List API key metadata',
  'keys:manage': 'Create and revoke API keys',
  'members:read': 'List members',
  'members:manage': 'Invite and remove members, change roles',
  'connections:read': 'Read domain connections and their records',
  'connections:write': 'Create, apply and re-check domain connections',
  'connections:disconnect': 'Disconnect domains',
  'webhooks:read': 'List webhook endpoints and deliveries',
  'webhooks:manage': 'Create and remove webhook endpoints, replay deliveries',
  'billing:read': 'Read billing standing',
  'billing:manage': 'Save a card (billing setup)',
  'billing:owner': 'Buy plans and read invoices',
  'audit:read': 'Read the audit log',
} as const
export type Permission = keyof typeof PERMISSIONS

const ALL = Object.keys(PERMISSIONS) as Permission[]
const READS: Permission[] = ['tenant:read', 'app:read', 'keys:read', 'members:read', 'connections:read', 'webhooks:read', 'billing:read']

export const ROLE_PERMISSIONS: Record<MemberRole, readonly Permission[]> = {
  owner: ALL,
  admin: ALL.filter((p) => p !== 'billing:owner'),
  member: [...READS, 'connections:write', 'connections:disconnect', 'webhooks:manage'],
  viewer: READS,
}

const index = new Map<MemberRole, Set<Permission>>(ROLES.map((r) => [r, new Set(ROLE_PERMISSIONS[r])]))

export function can(role: MemberRole, permission: Permission): boolean {
  return index.get(role)?.has(permission) ?? false
}

/** Rank for "may not grant more than you hold": owner 3 … viewer 0. */
export function roleRank(role: MemberRole): number {
  return 3 - ROLES.indexOf(role)
}

// The scopes a person can grant an agent (the API contract, section 5, "Delegated agent token"). Each scope
// says in plain words what it lets an agent do, for the consent page, and names the role permission
// that covers it: a person may grant a scope only when their own key's role holds that permission, so
// approving an agent never hands out more than the approver has. Published by GET /rbac.
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
  { id: 'domains:disconnect', description: 'Disconnect domains (you confirm each one before it goes)', permission: 'connections:disconnect' },
  {
    id: 'domains:records',
    description:
      'Write DNS records of its own choosing at your domains, instead of only the ones your application plans: these can include mail (MX) records, which decide where your email goes, and nameserver (NS) records, which hand the domain to another DNS host',
    permission: 'connections:write',
  },
]

/** The scope an agent needs to give a connection records of its own (a custom record set). */
export const CUSTOM_RECORDS_SCOPE = 'domains:records'

export const AGENT_SCOPE_IDS: readonly string[] = AGENT_SCOPES.map((s) => s.id)

/**
 * What a client that names no scope, and the first 401 challenge, ask for: reading and writing (the
 * application's planned records only). Disconnecting and custom records are asked for by step-up
 * (403 insufficient_scope) when a client needs them.
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

export function rbacMatrix() {
  return {
    roles: ROLES.map((role) => ({ role, permissions: [...ROLE_PERMISSIONS[role]] })),
    permissions: Object.entries(PERMISSIONS).map(([id, description]) => ({ id, description })),
    // Scopes a person can grant a delegated agent token, and the permission an approver needs for each.
    agent_scopes: AGENT_SCOPES.map(({ id, description, permission }) => ({ id, description, permission })),
    rules: [
      'Managing members and minting or revoking API keys require admin or owner.',
      'Only an owner can create or demote an owner; a workspace keeps at least one owner.',
      'A key cannot be minted with a role above the role of the key that mints it.',
      'Billing requires owner; saving a card (billing:manage) accepts owners and admins.',
    ],
  }
}
