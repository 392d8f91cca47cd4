// The tools as agents see them:
// - tools/list of every toolset, each tool against its snapshot (mcp/__toolsnaps__/<tool>.json, one file
//   per tool, through the one snapshot helper, test/harness/snapshot.ts), the same files for both
//   protocol revisions, and the names in the registry's order, so a renamed tool, a changed schema or
//   description, or a revision that lists tools differently fails here;
//   `npm run generate` writes them (from the registry, without a server) after a deliberate change,
//   so this test only compares: it never rewrites them, even with UPDATE_SNAPSHOTS=1;
// - every tool called with only its required fields gets a real answer, never a refusal for a missing
//   or unknown field (schemas and behaviour agree);
// - the default toolset stays within its token budget, and toolsets are chosen by header or query.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { matchSnapshot } from '../harness/snapshot.ts'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { livePortico, documentToken, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { startPdns } from '../harness/pdns.ts'
import { OPERATIONS } from '../../src/ops/index.ts'
import { buildTools } from '../../mcp/tools.ts'
import { TOOLSETS } from '../../mcp/toolsets.ts'
import { toolsetTokens, TOKEN_BUDGET } from '../../scripts/mcp-tool-tokens.ts'
import { toolSnapshot } from '../../scripts/generate.ts'

const CHOICES = ['default', ...Object.keys(TOOLSETS)]

let p: LivePortico
let ws: Workspace
let token: string
let zone: string

beforeAll(async () => {
  const pdns = await startPdns()
  p = await livePortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico-test.test', WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
  zone = `t${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  token = (await documentToken(p.url, ws.apiKey, 'domains:read domains:write domains:disconnect')).tokens.access_token
})
afterAll(async () => {
  await p.stop()
})

const headers = (choice: string): Record<string, string> => ({ authorization: `Bearer ${token}`, ...(choice === 'default' ? {} : { 'x-mcp-toolsets': choice }) })

async function listWith(revision: string, choice: string) {
  const url = new URL(`${p.url}/mcp`)
  if (revision === '2026-07-28') {
    const client = new ClientV2({ name: 'snap', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new TransportV2(url, { requestInit: { headers: headers(choice) } }))
    expect(client.getNegotiatedProtocolVersion()).toBe(revision)
    const { tools } = await client.listTools()
    await client.close()
    return tools
  }
  const client = new ClientV1({ name: 'snap', version: '1' })
  const transport = new TransportV1(url, { requestInit: { headers: headers(choice) } })
  await client.connect(transport)
  expect(transport.protocolVersion).toBe(revision)
  const { tools } = await client.listTools()
  await client.close()
  return tools
}

describe('tools/list snapshots', () => {
  for (const revision of ['2025-11-25', '2026-07-28']) {
    for (const choice of CHOICES) {
      test(`${revision}, toolset ${choice}`, async () => {
        const tools = await listWith(revision, choice)
        const expected = buildTools(OPERATIONS).filter((t) => choice === 'default' || t.toolset === choice)
        expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name))
        for (const tool of tools) matchSnapshot(toolSnapshot(tool.name), tool, { CI: process.env.CI })
      })
    }
  }
})

describe('toolsets', () => {
  test('the default set is within the token budget; each named set lists only its tools', () => {
    const counts = toolsetTokens()
    expect(counts.get('default')!.tokens).toBeLessThanOrEqual(TOKEN_BUDGET)
    const all = buildTools(OPERATIONS)
    for (const name of Object.keys(TOOLSETS)) expect(counts.get(name)!.tools).toBe(all.filter((t) => t.toolset === name).length)
  })

  test('the query parameter chooses too; an unknown toolset is refused with the known ones', async () => {
    const rpc = (query: string) =>
      fetch(`${p.url}/mcp${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      })
    const read = await (await rpc('?toolsets=read')).json()
    expect(read.result.tools.length).toBeGreaterThan(0)
    expect(read.result.tools.every((t: { annotations: { readOnlyHint: boolean } }) => t.annotations.readOnlyHint)).toBe(true)
    const bad = await rpc('?toolsets=read,everything')
    expect(bad.status).toBe(400)
    const body = await bad.json()
    expect(body.id).toBe(7)
    expect(body.error.message).toContain('everything')
  })
})

describe('every tool with only its required fields', () => {
  test('no tool refuses a call for a field its schema does not require', async () => {
    const client = new ClientV1({ name: 'required-only', version: '1' })
    await client.connect(new TransportV1(new URL(`${p.url}/mcp`), { requestInit: { headers: headers('default') } }))
    const { tools } = await client.listTools()
    const created = await client.callTool({ name: 'connections_create', arguments: { domain: `www.${zone}`, application_id: ws.appId } })
    const connectionId = (created.structuredContent as { id: string }).id
    let n = 0
    const value = (field: string, tool: string): unknown => {
      n++
      switch (field) {
        case 'id':
          return connectionId
        case 'application_id':
          return ws.appId
        case 'domain':
          return `a${n}.${zone}`
        case 'domains':
          return [`b${n}.${zone}`]
        case 'confirm':
          return `www.${zone}`
        case 'provider_account_id':
          return 'pac_unknown'
        default:
          throw new Error(`${tool}: no test value for required field ${field}`)
      }
    }
    // Disconnect last: it ends the connection the others use.
    const ordered = [...tools].sort((a, b) => Number(a.name === 'connections_disconnect') - Number(b.name === 'connections_disconnect'))
    const refusals: string[] = []
    for (const tool of ordered) {
      const required = (tool.inputSchema.required ?? []) as string[]
      const args = Object.fromEntries(required.map((f) => [f, value(f, tool.name)]))
      const result = await client.callTool({ name: tool.name, arguments: args })
      if (!result.isError) continue
      const err = JSON.parse((result.content as { text: string }[])[0]!.text) as { code: string; title: string; details?: unknown }
      // A refusal about the call's shape means the schema lied; a refusal about the world is an answer.
      // (A disconnect waiting for the person's yes is an answer: no argument could have given it.)
      const personAsked = err.code === 'confirmation_required' && (err.details as { reason?: string } | undefined)?.reason === 'person_confirmation'
      if ((err.code === 'invalid_request' && Array.isArray(err.details)) || (err.code === 'confirmation_required' && !personAsked)) refusals.push(`${tool.name}: ${err.title} ${JSON.stringify(err.details)}`)
    }
    // An agent never handles a DNS provider's API key: the apply tool offers saved accounts only.
    const withKey = await client.callTool({ name: 'connections_apply', arguments: { id: connectionId, provider_account_id: 'pac_x', credential: 'secret' } })
    expect(withKey.isError).toBe(true)
    expect(JSON.parse((withKey.content as { text: string }[])[0]!.text)).toMatchObject({ code: 'invalid_request', details: [{ field: 'credential' }] })
    await client.close()
    expect(refusals).toEqual([])
  })
})
