// What users see, pinned: the OpenAPI document served at /v1/openapi.json and the MCP tools/list of a
// token holding every agent scope (one MCP protocol revision so far; a second one gets its own
// snapshot). Regenerate with UPDATE_SNAPSHOTS=1 after a deliberate change, and review the diff.
import { describe, expect, test } from 'bun:test'
import { OPERATIONS } from '../../src/ops/index.ts'
import { buildOpenApi, withOpenApi } from '../../src/http/openapi.ts'
import { buildTools } from '../../mcp/tools.ts'
import { jsonDiff, matchSnapshot } from '../harness/snapshot.ts'

// What the REST face and the MCP server are built from (src/server.ts).
const SERVED = withOpenApi(OPERATIONS)

describe('snapshots of what users see', () => {
  test('the OpenAPI document', () => {
    matchSnapshot('openapi', buildOpenApi(SERVED, { publicUrl: 'https://portico.example', version: 'snapshot' }))
  })

  test('MCP tools/list', () => {
    matchSnapshot('mcp-tools-list', { tools: buildTools(SERVED).map((t) => t.descriptor) })
  })

  test('a renamed field or tool shows as a readable diff', () => {
    const before = { tools: [{ name: 'connections_create', inputSchema: { properties: { domain: { type: 'string' } } } }] }
    const after = { tools: [{ name: 'connections_add', inputSchema: { properties: { hostname: { type: 'string' } } } }] }
    expect(jsonDiff(before, after)).toEqual([
      '~ $.tools[0].name: "connections_create" → "connections_add"',
      '- $.tools[0].inputSchema.properties.domain.type: "string"',
      '+ $.tools[0].inputSchema.properties.hostname.type: "string"',
    ])
    expect(jsonDiff(before, structuredClone(before))).toEqual([])
  })
})
