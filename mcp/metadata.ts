// Discovery for MCP clients (MCP authorization, revision 2025-11-25): the protected resource metadata
// of the MCP server (RFC 9728), the authorization server metadata (RFC 8414; also served under the
// OpenID discovery name), and the `WWW-Authenticate` challenges that point a client at them.
// The issuer is PUBLIC_URL itself, so its RFC 8414 document is at the root well-known path.
import type { Elysia } from 'elysia'
import type { Mount } from '../src/http/app.ts'
import type { AuthServer } from '../oauth/provider.ts'
import { AGENT_SCOPE_IDS } from '../src/domain/rbac.ts'
import { DPOP_ALGORITHMS } from '../src/http/dpop.ts'

export const PRM_PATH = '/.well-known/oauth-protected-resource'

export function resourceMetadataUrl(auth: AuthServer): string {
  return `${auth.issuer}${PRM_PATH}/mcp`
}

export function protectedResourceMetadata(auth: AuthServer) {
  return {
    resource: auth.resource,
    authorization_servers: [auth.issuer],
    scopes_supported: [...AGENT_SCOPE_IDS],
    bearer_methods_supported: ['header'],
    // RFC 9449 section 5.1: proofs are checked with these; bound tokens are optional (Bearer still works).
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
    dpop_bound_access_tokens_required: false,
    resource_name: 'Portico',
    resource_documentation: `${auth.issuer}/v1/openapi.json`,
  }
}

export interface Challenge {
  error?: 'invalid_token' | 'insufficient_scope'
  description?: string
  /** Every scope the request needs (RFC 6750 section 3). */
  scopes: readonly string[]
}

/** `Bearer resource_metadata="…", scope="…"` (RFC 9728 section 5.1, RFC 6750 section 3). */
export function wwwAuthenticate(auth: AuthServer, c: Challenge): string {
  const q = (v: string) => `"${v.replace(/["\\]/g, '')}"`
  const parts = [`resource_metadata=${q(resourceMetadataUrl(auth))}`]
  if (c.error) parts.push(`error=${q(c.error)}`)
  if (c.description) parts.push(`error_description=${q(c.description)}`)
  parts.push(`scope=${q(c.scopes.join(' '))}`)
  return `Bearer ${parts.join(', ')}`
}

const JSON_CORS = {
  'content-type': 'application/json',
  'access-control-allow-origin': '*',
  'cache-control': 'public, max-age=300',
}

const jsonDoc = (doc: unknown) => new Response(JSON.stringify(doc), { headers: JSON_CORS })

/** A browser's preflight for a discovery document (an MCP client in a page sends MCP-Protocol-Version): any origin, any header, GET. */
const preflight = ({ request }: { request: Request }) =>
  new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': request.headers.get('access-control-request-headers') ?? '',
      'access-control-max-age': '600',
    },
  })

export function metadataMount(auth: AuthServer): Mount {
  const prm = () => jsonDoc(protectedResourceMetadata(auth))
  const asm = async () => jsonDoc(await auth.metadata())
  return (app: Elysia) => {
    for (const path of [PRM_PATH, `${PRM_PATH}/mcp`, '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) app.options(path, preflight)
    app
      .get(PRM_PATH, prm)
      .get(`${PRM_PATH}/mcp`, prm)
      .get('/.well-known/oauth-authorization-server', asm)
      .get('/.well-known/openid-configuration', asm)
    return app
  }
}
