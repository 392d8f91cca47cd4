// Both protocol eras end to end, each with its own SDK client and its own way of identifying itself:
// - SDK v2 on 2026-07-28 with a client ID metadata document served from loopback: 401 → discovery →
//   the authorization server fetches the document → consent (showing the document's host) → token →
//   tools/list → a write tool call;
// - SDK v1 on 2025-11-25 with dynamic registration, the same path;
// plus the document's refusals (client_id not its URL, a secret, a brand name on a foreign host).
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js'
import { livePortico, authorize, pkce, type LivePortico, approveInBrowser as approveInHarness } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { startPdns } from '../harness/pdns.ts'

let p: LivePortico
let ws: Workspace
let docs: ReturnType<typeof Bun.serve>
let zone: string
const documents = new Map<string, { body: unknown; requests: number }>()
const docUrl = (name: string) => `http://127.0.0.1:${docs.port}/clients/${name}.json`

beforeAll(async () => {
  docs = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const d = documents.get(new URL(req.url).pathname)
      if (!d) return new Response('not found', { status: 404 })
      d.requests++
      return Response.json(d.body, { headers: { 'cache-control': 'max-age=600' } })
    },
  })
  const pdns = await startPdns()
  p = await livePortico({ WEBHOOK_ALLOW_LOOPBACK: 'true', DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico-test.test' })
  ws = await provision(p)
  zone = `z${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
})
afterAll(async () => {
  docs.stop(true)
  await p.stop()
})

function publish(name: string, body: Record<string, unknown>) {
  documents.set(`/clients/${name}.json`, { body: { client_id: docUrl(name), ...body }, requests: 0 })
  return docUrl(name)
}

const REDIRECT = 'http://127.0.0.1:9/mcp-callback'

/** The person's part: open the authorization URL, read the consent page, sign in as themselves, approve. */
const approveInBrowser = (base: string, url: URL, apiKey: string) => approveInHarness(base, url, apiKey, REDIRECT)

/** An OAuth client provider for either SDK (their interfaces agree on these members). */
class Provider {
  info: { client_id: string } | undefined
  saved: { access_token: string } | undefined
  verifier = ''
  page = ''
  code = ''
  callback = new URLSearchParams()
  registered = false
  constructor(
    private readonly apiKey: string,
    private readonly metadataUrl?: string,
  ) {}
  get redirectUrl() {
    return REDIRECT
  }
  get clientMetadata() {
    return { client_name: 'SDK agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
  }
  // SDK v2 takes its metadata-document path by itself only for https URLs; the document here is on
  // plain-http loopback, so this provider hands the document URL over as its client id, which puts
  // the same `client_id=<URL>` on the wire.
  clientInformation() {
    return this.info ?? (this.metadataUrl ? { client_id: this.metadataUrl } : undefined)
  }
  saveClientInformation(info: { client_id: string }) {
    this.registered = true
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(t: { access_token: string }) {
    this.saved = t
  }
  saveCodeVerifier(v: string) {
    this.verifier = v
  }
  codeVerifier() {
    return this.verifier
  }
  async redirectToAuthorization(url: URL) {
    expect(url.searchParams.get('client_id')).toBe(this.info?.client_id ?? this.metadataUrl!)
    const done = await approveInBrowser(p.url, url, this.apiKey)
    this.page = done.page
    this.code = done.code
    this.callback = done.callback
  }
}

describe('2026-07-28 with SDK v2 and a client ID metadata document', () => {
  test('the authorization server advertises metadata documents', async () => {
    const meta = await (await fetch(`${p.url}/.well-known/oauth-authorization-server`)).json()
    expect(meta.client_id_metadata_document_supported).toBe(true)
  })

  test('401 → discovery → document → consent → token → tools/list → a write tool call', async () => {
    const url = publish('agent', { client_name: 'Loopback agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })
    const auth = new Provider(ws.apiKey, url)
    const client = new ClientV2({ name: 'portico-v2-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await expect(client.connect(new TransportV2(new URL(`${p.url}/mcp`), { authProvider: auth as never }))).rejects.toBeInstanceOf(UnauthorizedV2)
    expect(auth.clientInformation()?.client_id).toBe(url)
    expect(documents.get('/clients/agent.json')!.requests).toBe(1)
    // The consent page names the client and the host that published its document.
    expect(auth.page).toContain('Loopback agent')
    expect(auth.page).toContain(`id="client-domain"`)
    expect(auth.page).toContain(`127.0.0.1:${docs.port}`)

    const transport = new TransportV2(new URL(`${p.url}/mcp`), { authProvider: auth as never })
    // SDK v2 checks the authorization response's `iss` (RFC 9207): it gets the whole callback query.
    await transport.finishAuth(auth.callback)
    expect(auth.saved?.access_token).toBeString()
    await client.connect(transport)
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')

    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('connections_create')
    const created = await client.callTool({ name: 'connections_create', arguments: { domain: `cimd.${zone}`, application_id: ws.appId } })
    expect(created.isError).toBeFalsy()
    expect(created.structuredContent).toMatchObject({ domain: `cimd.${zone}`, status: 'pending' })
    // The document was fetched once and then served from the cache (max-age=600).
    expect(documents.get('/clients/agent.json')!.requests).toBe(1)
    await client.close()
  })
})

describe('2025-11-25 with SDK v1 and dynamic registration', () => {
  test('401 → discovery → registration → consent → token → tools/list → a write tool call', async () => {
    const auth = new Provider(ws.apiKey)
    const client = new ClientV1({ name: 'portico-v1-test', version: '1.0.0' })
    await expect(client.connect(new TransportV1(new URL(`${p.url}/mcp`), { authProvider: auth as never }))).rejects.toBeInstanceOf(UnauthorizedV1)
    expect(auth.registered).toBe(true)
    expect(auth.info!.client_id).toMatch(/^agc_/)
    expect(auth.page).not.toContain('id="client-domain"')
    const transport = new TransportV1(new URL(`${p.url}/mcp`), { authProvider: auth as never })
    await transport.finishAuth(auth.code)
    await client.connect(transport)
    expect(transport.protocolVersion).toBe('2025-11-25')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('connections_create')
    const created = await client.callTool({ name: 'connections_create', arguments: { domain: `dcr.${zone}`, application_id: ws.appId } })
    expect(created.isError ? JSON.stringify(created.content) : null).toBeNull()
    expect(created.structuredContent).toMatchObject({ domain: `dcr.${zone}`, status: 'pending' })
    await client.close()
  })
})

describe('documents that are refused', () => {
  const tryAuthorize = async (clientId: string) => {
    const { challenge } = pkce()
    return authorize(p.url, { client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope: 'domains:read', state: 's' }).then(
      () => 'consent',
      (err: Error) => err.message,
    )
  }

  test('a document whose client_id is not its own URL, one with a secret, one missing', async () => {
    const other = publish('liar', { client_name: 'Liar', redirect_uris: [REDIRECT] })
    documents.get('/clients/liar.json')!.body = { client_id: 'https://elsewhere.example/client.json', client_name: 'Liar', redirect_uris: [REDIRECT] }
    expect(await tryAuthorize(other)).toContain('invalid_client')
    const secret = publish('secret', { client_name: 'Secretive', redirect_uris: [REDIRECT], client_secret: 'hunter2' })
    expect(await tryAuthorize(secret)).toContain('invalid_client')
    expect(await tryAuthorize(docUrl('missing'))).toContain('invalid_client')
  })

  test('a brand name on a host that is not the brand\'s is refused; a plain name on the same host passes', async () => {
    const claude = publish('claude', { client_name: 'Claude', redirect_uris: [REDIRECT] })
    expect(await tryAuthorize(claude)).toContain('invalid_client')
    const plain = publish('plain', { client_name: 'Plain agent', redirect_uris: [REDIRECT] })
    expect(await tryAuthorize(plain)).toBe('consent')
  })
})
