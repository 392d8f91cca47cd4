// No tool description offers a value its schema refuses: an agent reads the description, picks a
// value it names, and must not be refused for it. A description's parenthesised list that names one
// value of an input's enumeration is that input's list, and every item of it must be in the enumeration.
import { describe, expect, test } from 'bun:test'
import { OPERATIONS } from '../../src/ops/index.ts'
import { withOpenApi } from '../../src/http/openapi.ts'
import { buildTools } from '../../mcp/tools.ts'

type Schema = { const?: unknown; enum?: unknown[]; anyOf?: Schema[]; properties?: Record<string, Schema>; items?: Schema }

/** The values an input accepts when it is an enumeration (string consts in anyOf, or enum). */
function enumeration(s: Schema): string[] | null {
  const values = [...(s.enum ?? []), ...(s.anyOf ?? []).flatMap((m) => (m.const !== undefined ? [m.const] : (m.enum ?? [])))].filter((v): v is string => typeof v === 'string')
  return values.length ? values : s.items ? enumeration(s.items) : null
}

/** Values a description offers for an enumeration that the enumeration lacks. */
export function offeredButRefused(description: string, inputs: Record<string, Schema>): string[] {
  const out: string[] = []
  const lists = [...description.matchAll(/\(([^()]+)\)/g)].map((m) => m[1]!.split(/,\s*|\s+or\s+/).map((v) => v.trim().replace(/^`|`$/g, '')))
  for (const [name, schema] of Object.entries(inputs)) {
    const values = enumeration(schema)
    if (!values) continue
    for (const list of lists) if (list.some((v) => values.includes(v))) out.push(...list.filter((v) => /^[a-z_]+$/.test(v) && !values.includes(v)).map((v) => `${name}: ${v}`))
  }
  return out
}

describe('tool descriptions offer only what the schemas take', () => {
  const tools = buildTools(withOpenApi(OPERATIONS)).map((t) => t.descriptor)

  test('every tool', () => {
    expect(tools.filter((t) => Object.values((t.inputSchema.properties ?? {}) as Record<string, Schema>).some((s) => enumeration(s))).length).toBeGreaterThan(0)
    expect(tools.flatMap((t) => offeredButRefused(t.description ?? '', (t.inputSchema.properties ?? {}) as Record<string, Schema>).map((p) => `${t.name} ${p}`))).toEqual([])
  })

  test('a status the filter refuses, offered in the description, is caught', () => {
    const status = { anyOf: ['pending', 'propagating', 'live', 'failed'].map((v) => ({ const: v })) }
    expect(offeredButRefused('Lists domains, optionally by status (pending, propagating, live, failed, disconnected).', { status })).toEqual(['status: disconnected'])
    expect(offeredButRefused('Lists domains, optionally by status (pending, propagating, live, failed).', { status })).toEqual([])
  })
})
