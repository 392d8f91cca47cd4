// What users see, pinned: the OpenAPI document served at /v1/openapi.json and each MCP tool as
// tools/list describes it to a token holding every agent scope, one file per tool
// (test/integration/mcp-tools.test.ts checks the same files through both protocol revisions of a
// running server). `npm run generate` (scripts/generate.ts)
// writes them after a deliberate change; review the diff.
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { snapshots, staleToolSnapshots, toolSnapshot } from '../../scripts/generate.ts'
import { buildTools } from '../../mcp/tools.ts'
import { OPERATIONS } from '../../src/ops/index.ts'
import { jsonDiff, matchSnapshot } from '../harness/snapshot.ts'

describe('snapshots of what users see', () => {
  const pinned = snapshots()
  test('one snapshot of the OpenAPI document and one file per MCP tool, none left of a tool that is gone', () => {
    const tools = buildTools(OPERATIONS)
    expect(tools.length).toBeGreaterThan(15)
    expect(Object.keys(pinned).sort()).toEqual(['test/snapshots/openapi.json', ...tools.map((t) => toolSnapshot(t.name))].sort())
    expect(staleToolSnapshots()).toEqual([])
  })

  for (const [file, value] of Object.entries(pinned)) {
    test(file, () => matchSnapshot(file, value))
  }

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
