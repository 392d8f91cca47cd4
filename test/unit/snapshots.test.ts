// What users see, pinned: the OpenAPI document served at /v1/openapi.json and the MCP tools/list of a
// token holding every agent scope (the default toolset; test/integration/mcp-tools.test.ts checks the
// same file, and one per named toolset, through both protocol revisions). Regenerate with
// UPDATE_SNAPSHOTS=1 after a deliberate change, and review the diff.
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { OPERATIONS } from '../../src/ops/index.ts'
import { buildOpenApi, withOpenApi } from '../../src/http/openapi.ts'
import { buildTools } from '../../mcp/tools.ts'
import { jsonDiff, matchSnapshot } from '../harness/snapshot.ts'

// What the REST face and the MCP server are built from (src/server.ts).
const SERVED = withOpenApi(OPERATIONS)

describe('snapshots of what users see', () => {
  test('the OpenAPI document', () => {
    matchSnapshot('test/snapshots/openapi.json', buildOpenApi(SERVED, { publicUrl: 'https://portico.example', version: 'snapshot' }))
  })

  test('MCP tools/list', () => {
    matchSnapshot('mcp/__toolsnaps__/default.json', { tools: buildTools(SERVED).map((t) => t.descriptor) })
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

  test('a key order change is no change; a changed value is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'snap-'))
    const file = relative(join(import.meta.dir, '../..'), join(dir, 'x.json'))
    try {
      matchSnapshot(file, { a: 1, b: { c: 2 } }, {})
      matchSnapshot(file, { b: { c: 2 }, a: 1 }, {})
      expect(() => matchSnapshot(file, { a: 1, b: { c: 3 } }, {})).toThrow('~ $.b.c: 2 → 3')
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  test('in CI a missing snapshot is refused, not written; on a machine it is written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'snap-'))
    const file = relative(join(import.meta.dir, '../..'), join(dir, 'new.json'))
    try {
      expect(() => matchSnapshot(file, { tools: [] }, { CI: 'true' })).toThrow('in CI')
      expect(existsSync(join(dir, 'new.json'))).toBe(false)
      expect(() => matchSnapshot(file, { tools: [] }, { CI: 'true', UPDATE_SNAPSHOTS: '1' })).toThrow('in CI')
      matchSnapshot(file, { tools: [] }, {})
      expect(JSON.parse(readFileSync(join(dir, 'new.json'), 'utf8'))).toEqual({ tools: [] })
    } finally {
      rmSync(dir, { recursive: true })
    }
  })
})
