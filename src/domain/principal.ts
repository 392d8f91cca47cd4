// Who is calling: the credential kinds an operation may accept and the principal each resolves to
// (the API contract, section 5). The faces (REST, MCP, OAuth) resolve a credential into a principal; rules
// and operations only read it, so it lives on the floor that knows no transport.
import type { MemberRole } from './rbac.ts'

export type Credential = 'MGMT' | 'PROV' | 'KEY' | 'WIDGET' | 'AGENT' | 'EDGE' | 'NONE'

/** Each credential kind and what it resolves to. */
interface PrincipalByKind {
  NONE: { kind: 'NONE' }
  MGMT: { kind: 'MGMT' }
  PROV: { kind: 'PROV' }
  EDGE: { kind: 'EDGE' }
  KEY: { kind: 'KEY'; tenantId: string; keyId: string; role: MemberRole; applicationId: string | null }
  WIDGET: { kind: 'WIDGET'; tenantId: string; applicationId: string; scope: 'connect' | 'app'; boundHost: string | null; tokenId: string }
  AGENT: { kind: 'AGENT'; tenantId: string; clientId: string; subject: string; scopes: string[] }
}

/** The principal a set of accepted credentials can resolve to: `PrincipalOf<'KEY' | 'AGENT'>`. */
export type PrincipalOf<A extends Credential> = PrincipalByKind[A]
export type Principal = PrincipalOf<Credential>

/** Credentials that belong to one workspace (tenant). */
export type TenantCredential = 'KEY' | 'WIDGET' | 'AGENT'
export type TenantPrincipal = PrincipalOf<TenantCredential>
export type KeyPrincipal = PrincipalOf<'KEY'>
export type WidgetPrincipal = PrincipalOf<'WIDGET'>

/**
 * The three kinds of widget token, by what they were minted for (POST /tokens):
 * - `app`: scope `app` and no domain, for the integrator's own pages (application-level reads, webhooks);
 * - `connect`: scope `connect` and no domain, the end user's flow for any domain of the application;
 * - `domain`: bound to one hostname (whatever its scope), acting on that hostname's connection only.
 * A token bound to a domain is always `domain`: the narrower grant wins.
 */
export type WidgetClass = 'app' | 'connect' | 'domain'

export function widgetClass(p: WidgetPrincipal): WidgetClass {
  return p.boundHost ? 'domain' : p.scope === 'app' ? 'app' : 'connect'
}
export type AgentPrincipal = PrincipalOf<'AGENT'>

/** How an agent token was presented (src/http/dpop.ts reads it from the request): what a DPoP proof must match. */
export interface Presentation {
  scheme: 'bearer' | 'dpop'
  method: string
  /** The URL the client addressed, as PUBLIC_URL plus the request path (a proxy may have rewritten the host); empty for Bearer. */
  url: string
  /** The `DPoP` header, when sent. */
  proof: string | null
}
