// The MCP server end to end with the SDK's own client: 401 → discovery → registration → PKCE sign-in
// through the real consent page → token → tools/list → a tool call reading real data; plus the
// refusals (other audience, other credential, missing scope, foreign Origin) and the generated check
// that every operation an agent may call is a tool.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { SignJWT, importJWK, type JWK } from 'jose'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { OPERATIONS } from '../../src/ops/index.ts'
import { decrypt } from '../../src/crypto.ts'
import { agentOperations, agentText, buildTools, toolName } from '../../mcp/tools.ts'
import { livePortico, agentToken, documentToken, token, type LivePortico, approveInBrowser } from '../harness/agents.ts'
import { provision, widgetToken, type Workspace } from '../harness/portico.ts'

let p: LivePortico
let ws: Workspace
beforeAll(async () => {
  // Loopback allowed: tests that only need a token use a metadata document served from loopback
  // (documentToken), which spends no registration budget.
  p = await livePortico({ WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
})
afterAll(async () => {
  await p.stop()
})

/** An MCP client's OAuth side, with the person's part (consent page, API key, approve) done by fetch. */
class TestAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  code: string | null = null
  consentPage = ''
  constructor(
    private readonly base: string,
    private readonly apiKey: string,
  ) {}
  get redirectUrl() {
    return 'http://127.0.0.1:9/mcp-callback'
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK test agent', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t
  }
  saveCodeVerifier(v: string) {
    this.verifier = v
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'client') this.info = undefined
  }
  codeVerifier() {
    return this.verifier
  }
  async redirectToAuthorization(url: URL) {
    const done = await approveInBrowser(this.base, url, this.apiKey, this.redirectUrl)
    this.consentPage = done.page
    this.code = done.code
  }
}

async function rpc(token: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${p.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null }
}

describe('MCP with the SDK client', () => {
  test('401 without a token points at the resource metadata', async () => {
    const r = await rpc(undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(r.status).toBe(401)
    const challenge = r.headers.get('www-authenticate')!
    expect(challenge).toContain(`resource_metadata="${p.url}/.well-known/oauth-protected-resource/mcp"`)
    // Reading and writing only: disconnecting is asked for by step-up when a client needs it.
    expect(challenge).toContain('scope="domains:read domains:write"')
    const prm = await (await fetch(`${p.url}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(prm).toMatchObject({ resource: `${p.url}/mcp`, authorization_servers: [p.url] })
  })

  test('discovery, registration, PKCE sign-in through the consent page, tools/list and a call that reads real data', async () => {
    const auth = new TestAuthProvider(p.url, ws.apiKey)
    const client = new Client({ name: 'portico-test', version: '1.0.0' })
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/mcp`), { authProvider: auth }))).rejects.toBeInstanceOf(UnauthorizedError)
    // The client registered itself and the person saw the consent page for it.
    expect(auth.info?.client_id).toMatch(/^agc_/)
    expect(auth.consentPage).toContain('SDK test agent')
    expect(auth.consentPage).toContain('127.0.0.1:9')
    expect(auth.code).toBeTruthy()

    const transport = new StreamableHTTPClientTransport(new URL(`${p.url}/mcp`), { authProvider: auth })
    await transport.finishAuth(auth.code!)
    expect(auth.saved?.access_token).toBeTruthy()
    expect(auth.saved?.refresh_token).toBeTruthy()
    await client.connect(transport)
    expect(client.getServerVersion()?.name).toBe('portico')

    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toContain('applications_list')
    expect(names).toContain('connections_create')
    // The SDK asked for the challenge's scopes: no disconnecting until a step-up.
    expect(names).not.toContain('connections_disconnect')
    const list = tools.find((t) => t.name === 'applications_list')!
    expect(list.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })

    const result = await client.callTool({ name: 'applications_list', arguments: {} })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({ count: 1, applications: [{ id: ws.appId, tenant_id: ws.tenantId }] })
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent)

    // A refusal the model can act on is a tool error with the contract's envelope.
    const missing = await client.callTool({ name: 'applications_get', arguments: { id: 'app_unknown' } })
    expect(missing.isError).toBe(true)
    expect(JSON.parse((missing.content as { text: string }[])[0]!.text)).toMatchObject({ code: 'not_found', title: expect.any(String) })
    const bad = await client.callTool({ name: 'applications_get', arguments: { id: 'x', nope: 1 } })
    expect(bad.isError).toBe(true)
    expect(JSON.parse((bad.content as { text: string }[])[0]!.text).code).toBe('invalid_request')

    // Step-up with the official v1 SDK: a tool needing domains:disconnect gets 403 insufficient_scope;
    // the SDK tries a refresh first, which cannot widen the grant and is refused, so it goes to the person
    // with the wider scope, who sees it on the consent page and approves.
    auth.consentPage = ''
    auth.code = null
    const stepUp = await client.callTool({ name: 'connections_disconnect', arguments: { id: 'con_unknown' } }).then(
      () => 'answered',
      (err: unknown) => err,
    )
    expect(stepUp).toBeInstanceOf(UnauthorizedError)
    expect(auth.consentPage).toContain('domains:disconnect')
    expect(auth.code).toBeTruthy()
    await transport.finishAuth(auth.code!)
    expect(auth.saved?.scope?.split(' ')).toContain('domains:disconnect')
    const after = await client.callTool({ name: 'connections_disconnect', arguments: { id: 'con_unknown' } })
    expect(JSON.parse((after.content as { text: string }[])[0]!.text).code).toBe('not_found')
    // The refusal happens once: a later refresh of the first grant works again.
    await client.close()
  })
})

describe('MCP refusals', () => {
  test('a token of another audience, or another credential, is refused', async () => {
    const [row] = await p.db`select sealed from oauth_keys where id = 'signing'`
    const [jwk] = JSON.parse(decrypt(p.config.secretsKey, row.sealed, 'oauth-jwks')) as JWK[]
    const { tokens } = await documentToken(p.url, ws.apiKey, 'domains:read')
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString())
    const key = await importJWK(jwk!, 'ES256')
    const otherAudience = await new SignJWT({ ...claims, aud: 'https://elsewhere.example/mcp' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk!.kid })
      .sign(key)
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    expect((await rpc(tokens.access_token, list)).status).toBe(200)
    const r = await rpc(otherAudience, list)
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect((await rpc(ws.apiKey, list)).status).toBe(401)
    expect((await rpc(await widgetToken(p, ws), list)).status).toBe(401)
  })

  test('a token without domains:disconnect does not see or call the disconnect tool', async () => {
    const { tokens } = await documentToken(p.url, ws.apiKey, 'domains:read')
    const list = await rpc(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    const names = list.body.result.tools.map((t: { name: string }) => t.name)
    expect(names).toContain('connections_list')
    expect(names).not.toContain('connections_disconnect')
    expect(names).not.toContain('connections_create')
    const call = await rpc(tokens.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'connections_disconnect', arguments: { id: 'con_x', confirm: 'a.example' } } })
    expect(call.status).toBe(403)
    const challenge = call.headers.get('www-authenticate')!
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toContain('scope="domains:read domains:disconnect"')
    // The REST face refuses the same token the same way (the executor's scope check).
    const rest = await fetch(`${p.url}/v1/connections/con_x:disconnect?confirm=a.example`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(rest.status).toBe(403)
    expect((await rest.json()).code).toBe('insufficient_scope')
  })

  test('a browser Origin that is not allowed is refused (DNS rebinding)', async () => {
    const { tokens } = await documentToken(p.url, ws.apiKey, 'domains:read')
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    expect((await rpc(tokens.access_token, list, { origin: 'http://evil.example' })).status).toBe(403)
    expect((await rpc(tokens.access_token, list, { origin: p.url })).status).toBe(200)
  })

  test('a revoked grant stops working at once', async () => {
    const { tokens, clientId } = await documentToken(p.url, ws.apiKey, 'domains:read')
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    expect((await rpc(tokens.access_token, list)).status).toBe(200)
    await p.db`update agent_grants set revoked_at = now() where client_id = ${clientId}`
    expect((await rpc(tokens.access_token, list)).status).toBe(401)
  })

  test('a workspace lists the agents it approved and revokes one: its tokens and refresh token stop working', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read offline_access', 'Revocable agent')
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    expect((await rpc(tokens.access_token, list)).status).toBe(200)
    const grants = await p.api('GET', '/v1/agent-grants', { token: ws.apiKey })
    expect(grants.status).toBe(200)
    const g = grants.body.grants.find((x: { client_id: string }) => x.client_id === clientId)
    expect(g).toMatchObject({ client_name: 'Revocable agent', scopes: ['domains:read'], revoked_at: null })

    // Another workspace neither sees nor revokes it.
    const other = await provision(p)
    expect((await p.api('GET', '/v1/agent-grants', { token: other.apiKey })).body.grants).toEqual([])
    expect((await p.api('DELETE', `/v1/agent-grants/${g.id}`, { token: other.apiKey })).status).toBe(404)
    expect((await rpc(tokens.access_token, list)).status).toBe(200)

    // Before the revocation the refresh token works (and is rotated).
    expect(tokens.refresh_token).toBeString()
    const before = await token(p.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId })
    expect(before.status).toBe(200)
    const refreshToken = (before.body.refresh_token ?? tokens.refresh_token) as string

    const revoked = await p.api('DELETE', `/v1/agent-grants/${g.id}`, { token: ws.apiKey })
    expect(revoked.status).toBe(200)
    expect(revoked.body.revoked_at).toBeString()
    expect((await rpc(tokens.access_token, list)).status).toBe(401)
    const refreshed = await token(p.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId })
    expect(refreshed.status).toBe(400)
    expect(refreshed.body.error).toBe('invalid_grant')
    // Idempotent: the same answer again, the first revocation time kept.
    const again = await p.api('DELETE', `/v1/agent-grants/${g.id}`, { token: ws.apiKey })
    expect(again.status).toBe(200)
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at)
  })
})

describe('tools come from the registry', () => {
  test('every operation an agent may call is a tool, with its scope, schemas and hints', () => {
    const tools = new Map(buildTools(OPERATIONS).map((t) => [t.name, t]))
    const agentOps = agentOperations(OPERATIONS)
    expect(agentOps.length).toBeGreaterThan(0)
    expect(tools.size).toBe(agentOps.length)
    for (const op of agentOps) {
      const tool = tools.get(toolName(op))
      expect({ op: op.id, tool: tool?.op.id, scope: tool?.scope }).toEqual({ op: op.id, tool: op.id, scope: op.scope })
      const d = tool!.descriptor
      expect(d.inputSchema.type).toBe('object')
      // Every input of the op, or exactly the ones its agent text offers.
      const offered = agentText(op).inputs
      for (const part of [op.params, op.query, op.body]) {
        for (const k of Object.keys(part?.properties ?? {})) expect(k in (d.inputSchema.properties ?? {})).toBe(offered ? offered.includes(k) : true)
      }
      expect(d.annotations?.readOnlyHint).toBe(op.kind === 'read')
      // Destructive when it may replace or remove a customer's records (test/unit/tool-annotations.test.ts has the rules).
      expect(d.annotations?.destructiveHint).toBe(op.kind === 'destroy' || op.zone === 'replaces' || op.zone === 'removes')
    }
    for (const op of OPERATIONS.filter((o) => !agentOps.includes(o))) expect(tools.has(toolName(op))).toBe(false)
  })

  test('a full-scope token lists exactly the agent operations', async () => {
    const { tokens } = await documentToken(p.url, ws.apiKey, 'domains:read domains:write domains:disconnect')
    const list = await rpc(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    const names = list.body.result.tools.map((t: { name: string }) => t.name).sort()
    expect(names).toEqual(agentOperations(OPERATIONS).map(toolName).sort())
  })
})
