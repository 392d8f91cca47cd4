// Toolsets: groups of tools a client chooses per connection, so an agent that only reads or only
// connects does not pay for every tool's schema in its context. Chosen by the `X-MCP-Toolsets` header
// or the `toolsets` query parameter of the MCP URL (comma-separated names, or `all`); without either,
// the default set. The choice only hides tools: scopes still decide what a token may call. The toolsets
// and each operation's are declared with the operations (src/ops/agent-text.ts).
import { TOOLSETS, type Toolset } from '../src/ops/agent-text.ts'
import { splitUrl } from '../src/http/app.ts'

export { TOOLSETS, type Toolset }

export const DEFAULT_TOOLSETS: readonly Toolset[] = ['read', 'connect', 'secure', 'manage']

export type ToolsetChoice = { ok: true; names: Set<Toolset> } | { ok: false; message: string }

/** Parses a comma-separated choice; null and empty mean the default. */
export function parseToolsets(raw: string | null): ToolsetChoice {
  const asked = (raw ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)
  if (asked.length === 0) return { ok: true, names: new Set(DEFAULT_TOOLSETS) }
  if (asked.includes('all')) return { ok: true, names: new Set(Object.keys(TOOLSETS) as Toolset[]) }
  const unknown = asked.filter((n) => !(n in TOOLSETS))
  if (unknown.length) return { ok: false, message: `Unknown toolset ${unknown.join(', ')}; known: ${Object.keys(TOOLSETS).join(', ')}, all` }
  return { ok: true, names: new Set(asked as Toolset[]) }
}

export function selectToolsets(req: Request): ToolsetChoice {
  return parseToolsets(req.headers.get('x-mcp-toolsets') ?? splitUrl(req.url).query.toolsets ?? null)
}
