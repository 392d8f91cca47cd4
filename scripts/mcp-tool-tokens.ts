// Prints the size of tools/list per toolset, in tokens estimated as characters / 4 of the JSON an MCP
// client receives (the `tools` array). The default toolset must stay at or under TOKEN_BUDGET; `npm run generate`
// (scripts/generate.ts) writes docs/agents.md's table of toolset sizes from `toolsetTokens`. Usage: bun scripts/mcp-tool-tokens.ts
import { OPERATIONS } from '../src/ops/index.ts'
import { buildTools } from '../mcp/tools.ts'
import { DEFAULT_TOOLSETS, TOOLSETS, type Toolset } from '../mcp/toolsets.ts'

export const TOKEN_BUDGET = 12_000

export function toolsetTokens(): Map<string, { tools: number; chars: number; tokens: number }> {
  const all = buildTools(OPERATIONS)
  const size = (sets: readonly Toolset[]) => {
    const tools = all.filter((t) => sets.includes(t.toolset)).map((t) => t.descriptor)
    const chars = JSON.stringify({ tools }).length
    return { tools: tools.length, chars, tokens: Math.ceil(chars / 4) }
  }
  const out = new Map([['default', size(DEFAULT_TOOLSETS)]])
  for (const name of Object.keys(TOOLSETS) as Toolset[]) out.set(name, size([name]))
  return out
}

if (import.meta.main) {
  console.log('| toolset | tools | characters | tokens (chars/4) |\n| --- | --- | --- | --- |')
  for (const [name, s] of toolsetTokens()) console.log(`| ${name} | ${s.tools} | ${s.chars} | ${s.tokens} |`)
  const d = toolsetTokens().get('default')!
  console.log(`\ndefault: ${d.tokens} tokens of a ${TOKEN_BUDGET} budget`)
}
