// What agents read is declared with each operation (`agent`, src/ops/agent-text.ts): every operation
// agents may call has it, no other operation carries it, and building the tools refuses an agent
// operation without it (so a new one cannot ship with REST wording).
import { describe, expect, test } from 'bun:test'
import { OPERATIONS } from '../../src/ops/index.ts'
import { agentOperations, buildTools } from '../../mcp/tools.ts'
import { TOOLSETS } from '../../mcp/toolsets.ts'

describe('agent text beside each operation', () => {
  const agents = new Set(agentOperations(OPERATIONS))

  test('every agent operation has its text and a known toolset; no other operation has any', () => {
    expect(agents.size).toBeGreaterThan(15)
    for (const op of OPERATIONS) {
      expect({ id: op.id, text: op.agent !== undefined }).toEqual({ id: op.id, text: agents.has(op) })
      if (op.agent) expect(Object.keys(TOOLSETS)).toContain(op.agent.toolset)
    }
  })

  test('an agent operation without its text is refused when the tools are built, naming it', () => {
    const op = OPERATIONS.find((o) => o.id === 'connections.get')!
    expect(() => buildTools([{ ...op, agent: undefined }])).toThrow('connections.get is an agent operation without agent text')
  })
})
