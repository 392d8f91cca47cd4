// The MCP server at /mcp: Streamable HTTP (web-standard transport, stateless: a fresh server and
// transport per request, JSON responses), protected by delegated agent tokens. Per request, in order:
// 1. Origin: a browser Origin not in the allow-list is refused with 403 (DNS rebinding; MCP transport
//    spec, "Security Warning");
// 2. the bearer (or a DPoP-bound token with its proof) must be an agent access token for exactly this resource (issuer, audience `…/mcp`,
//    expiry, live grant); otherwise 401 with a WWW-Authenticate challenge naming the resource
//    metadata and scopes. Other credentials are never accepted here or passed on (no token passthrough);
// 3. a tools/call for a tool whose scope the token lacks is 403 insufficient_scope naming every scope
//    needed, so a client can step up; tools/list shows only the tools the token may call, and the
//    executor refuses anyway.
import type { Elysia } from 'elysia'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { AppDeps, Mount } from '../src/http/app.ts'
import { randomToken } from '../src/ids.ts'
import { log } from '../src/logger.ts'
import type { Principal } from '../src/domain/principal.ts'
import type { AgentIdentity, AuthServer } from '../oauth/provider.ts'
import { AGENT_SCOPE_IDS, DEFAULT_AGENT_SCOPE_IDS } from '../src/domain/rbac.ts'
import { presentation } from '../oauth/dpop.ts'
import { wwwAuthenticate } from './metadata.ts'
import { buildTools, callTool, type AgentTool } from './tools.ts'

export const MCP_PATH = '/mcp'

export interface McpDeps extends AppDeps {
  auth: AuthServer
  /** Browser origins allowed besides PUBLIC_URL's own. */
  allowedOrigins?: string[]
}

const INSTRUCTIONS =
  'Portico attaches customers\' domains to an integrator\'s product. Use applications_list to find application ids, ' +
  'domains_check before connections_create, and connections_get to follow a connection through pending, propagating, live or failed. ' +
  'Disconnecting needs `confirm` set to the domain being removed.'

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

const rpcError = (status: number, code: number, message: string, headers?: Record<string, string>) =>
  jsonResponse(status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers)


/** Scopes, catalog order, without duplicates. */
const ordered = (scopes: Iterable<string>) => {
  const set = new Set(scopes)
  return AGENT_SCOPE_IDS.filter((s) => set.has(s))
}

/** The scopes a tools/call (or a batch) needs that the token lacks. */
function missingScopes(body: unknown, tools: Map<string, AgentTool>, have: string[]): string[] {
  const messages = Array.isArray(body) ? body : [body]
  const missing = new Set<string>()
  for (const m of messages) {
    const msg = m as { method?: unknown; params?: { name?: unknown } } | null
    if (msg?.method !== 'tools/call' || typeof msg.params?.name !== 'string') continue
    const tool = tools.get(msg.params.name)
    if (tool && !have.includes(tool.scope)) missing.add(tool.scope)
  }
  return ordered(missing)
}

function mcpServer(deps: McpDeps, tools: Map<string, AgentTool>, principal: Extract<Principal, { kind: 'AGENT' }>, ip: string | null): Server {
  const server = new Server({ name: 'portico', title: 'Portico', version: deps.config.version }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS })
  const visible = [...tools.values()].filter((t) => principal.scopes.includes(t.scope))
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: visible.map((t) => t.descriptor) }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.get(request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    const base = { principal, db: deps.db, clock: deps.clock, config: deps.config, services: deps.services, requestId: `mcp_${randomToken(9)}`, ip }
    return callTool(tool, request.params.arguments ?? {}, base)
  })
  return server
}

export function createMcpHandler(deps: McpDeps) {
  const tools = new Map(buildTools(deps.ops).map((t) => [t.name, t]))
  const origins = new Set([new URL(deps.config.publicUrl).origin, ...(deps.allowedOrigins ?? [])])
  const challenge = (error?: 'invalid_token', description?: string) =>
    rpcError(401, -32001, description ?? 'Authorization required', { 'www-authenticate': wwwAuthenticate(deps.auth, { error, description, scopes: DEFAULT_AGENT_SCOPE_IDS }) })

  // A Bearer token, or a DPoP-bound one with its proof (oauth/dpop.ts).
  const authorize = async (req: Request): Promise<(AgentIdentity & { token: string }) | Response> => {
    const presented = presentation(req, deps.config.publicUrl)
    if (!presented) return challenge()
    const identity = await deps.auth.verifyAccessToken(presented.token, presented.presented)
    return identity ? { ...identity, token: presented.token } : challenge('invalid_token', 'The access token is not valid for this resource')
  }

  return async function handle(req: Request, ip: string | null): Promise<Response> {
    const started = performance.now()
    const origin = req.headers.get('origin')
    if (origin !== null && !origins.has(origin)) return rpcError(403, -32000, 'Origin not allowed')
    const identity = await authorize(req)
    if (identity instanceof Response) return identity
    if (req.method !== 'POST') return rpcError(405, -32000, 'This server is stateless: use POST', { allow: 'POST' })
    let body: unknown
    try {
      body = JSON.parse(await req.text())
    } catch {
      return rpcError(400, ErrorCode.ParseError, 'Parse error: the body is not JSON')
    }
    const missing = missingScopes(body, tools, identity.scopes)
    if (missing.length) {
      const description = `This needs the ${missing.join(', ')} scope`
      const scopes = ordered([...identity.scopes, ...missing])
      return rpcError(403, -32001, description, { 'www-authenticate': wwwAuthenticate(deps.auth, { error: 'insufficient_scope', description, scopes }) })
    }
    const { token, ...agent } = identity
    const principal = { kind: 'AGENT' as const, ...agent }
    const server = mcpServer(deps, tools, principal, ip)
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    try {
      const res = await transport.handleRequest(req, {
        parsedBody: body,
        authInfo: { token, clientId: identity.clientId, scopes: identity.scopes, extra: { tenantId: identity.tenantId } },
      })
      const method = Array.isArray(body) ? 'batch' : (body as { method?: string })?.method
      log.info('mcp', { method, status: res.status, client_id: identity.clientId, duration_ms: Math.round((performance.now() - started) * 100) / 100 })
      return res
    } finally {
      await server.close()
    }
  }
}

export function mcpMount(deps: McpDeps): Mount {
  const handle = createMcpHandler(deps)
  return (app: Elysia) => {
    app.all(MCP_PATH, ({ request, server }) => handle(request, server?.requestIP(request)?.address ?? null), { parse: 'none' })
    return app
  }
}
