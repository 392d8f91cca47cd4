// Deeply nested JSON from anyone, with or without a credential: refused with 400 in each face's
// envelope before it is parsed (the limit is 64 levels), never a stack overflow or a 500. Each body is
// about 60 KB of open brackets (30,000 levels), as an anonymous caller sent them.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { agentToken, livePortico, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { nestsDeeperThan, MAX_JSON_DEPTH } from '../../src/json.ts'

let p: LivePortico
let ws: Workspace

beforeAll(async () => {
  p = await livePortico()
  ws = await provision(p)
})

afterAll(async () => {
  await p?.stop()
})

const deep = (levels: number, key = 'x') => `{"${key}":${'['.repeat(levels)}1${']'.repeat(levels)}}`
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${p.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

describe('nested JSON beyond 64 levels', () => {
  test('the REST API, anonymous and authenticated: 400 invalid_request in the envelope', async () => {
    for (const [path, headers] of [
      ['/v1/tokens', {}],
      ['/v1/members:accept', {}],
      ['/v1/connections', { authorization: `Bearer ${ws.apiKey}` }],
    ] as [string, Record<string, string>][]) {
      const r = await post(path, deep(30_000), headers)
      expect({ path, status: r.status }).toEqual({ path, status: 400 })
      expect(await r.json()).toEqual({ code: 'invalid_request', title: `The body nests deeper than ${MAX_JSON_DEPTH} levels` })
    }
    // At the limit it is parsed and judged on its content as usual.
    const ok = await post('/v1/tokens', `{"application_id":"${ws.appId}","client_secret":"${ws.clientSecret}","x":${'['.repeat(63)}${']'.repeat(63)}}`)
    expect(ok.status).toBe(400)
    expect((await ok.json()).title).not.toContain('nests deeper')
  })

  test('agent registration: 400 invalid_client_metadata (RFC 7591); MCP: a JSON-RPC error', async () => {
    const reg = await post('/v1/oauth/agent/register', deep(30_000, 'client_name'))
    expect(reg.status).toBe(400)
    expect(await reg.json()).toMatchObject({ error: 'invalid_client_metadata' })
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read')
    const mcp = await post('/mcp', deep(30_000, 'params'), { accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens.access_token}` })
    expect(mcp.status).toBe(400)
    expect(await mcp.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('nests deeper than 64') } })
  })

  test('the count skips brackets inside strings and escapes', () => {
    expect(nestsDeeperThan(`{"a":"${'['.repeat(1000)}"}`)).toBe(false)
    expect(nestsDeeperThan(`{"a":"\\"${'{'.repeat(100)}"}`)).toBe(false)
    expect(nestsDeeperThan(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(false)
    expect(nestsDeeperThan(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(true)
  })
})
