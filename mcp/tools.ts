// MCP tools generated from the operation registry ("One operation, three faces", DESIGN.md). Every
// operation an agent may call (auth includes AGENT, has a scope, not internal) is one tool:
// - name: the op id with `.` → `_`; title and description from the op's summary and description;
// - input schema: the op's path, query, header and body fields merged into one closed object, split
//   back into those parts by the schemas' own keys when called;
// - output schema: the op's response schema; results go out as structuredContent plus a JSON text copy;
// - annotations from the op: readOnlyHint (read), destructiveHint (destroy), idempotentHint.
// Calls go through the same executor as REST (`runOp`), so scopes, validation, transactions and audit
// are the same. A refusal the model can act on (bad input, not found, conflicts) is a tool error carrying
// the contract's `{code, title, details}`; an authorization failure is a protocol error.
import type { TObject, TSchema } from '@sinclair/typebox'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { AnyOp, Ctx } from '../src/ops/registry.ts'
import { runOp, type RawInput } from '../src/ops/run.ts'
import { ApiError } from '../src/errors.ts'
import { toApiError } from '../src/http/app.ts'

export interface AgentTool {
  name: string
  scope: string
  op: AnyOp
  descriptor: Tool
}

/** Operations an agent may call. */
export function agentOperations(ops: readonly AnyOp[]): AnyOp[] {
  return ops.filter((op) => op.auth.includes('AGENT') && op.scope !== undefined && !op.internal)
}

export function toolName(op: AnyOp): string {
  return op.id.replace(/\./g, '_')
}

/** TypeBox schemas are JSON Schema; a JSON round trip drops TypeBox's symbol keys. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>
}

const parts = (op: AnyOp): (TObject | undefined)[] => [op.params, op.query, op.headers, op.body]

function inputSchema(op: AnyOp): Tool['inputSchema'] {
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const schema of parts(op)) {
    if (!schema) continue
    const req = new Set(schema.required ?? [])
    for (const [name, s] of Object.entries(schema.properties)) {
      properties[name] = plain(s as TSchema)
      if (req.has(name) || schema === op.params) required.push(name)
    }
  }
  return { type: 'object', properties: properties as Record<string, object>, ...(required.length ? { required } : {}), additionalProperties: false }
}

function outputSchema(op: AnyOp): Tool['outputSchema'] | undefined {
  const s = plain(op.response)
  return s.type === 'object' ? (s as Tool['outputSchema']) : undefined
}

function description(op: AnyOp): string {
  const lines = [op.description ? `${op.summary}. ${op.description}` : `${op.summary}.`]
  if (op.kind === 'destroy') lines.push('This removes or changes things for real; confirm with the person first.')
  lines.push(`Needs the ${op.scope} scope. Ids are the ones other tools return (prefix names the kind). Errors come back as {code, title, details}.`)
  return lines.join('\n')
}

export function buildTools(ops: readonly AnyOp[]): AgentTool[] {
  return agentOperations(ops).map((op) => {
    const out = outputSchema(op)
    return {
      name: toolName(op),
      scope: op.scope!,
      op,
      descriptor: {
        name: toolName(op),
        title: op.summary,
        description: description(op),
        inputSchema: inputSchema(op),
        ...(out ? { outputSchema: out } : {}),
        annotations: {
          title: op.summary,
          readOnlyHint: op.kind === 'read',
          destructiveHint: op.kind === 'destroy',
          idempotentHint: op.kind === 'read' || op.idempotent === true,
          openWorldHint: false,
        },
      },
    }
  })
}

/** Splits tool arguments back into path, query, header and body by the op's schema keys. */
export function splitArgs(op: AnyOp, args: Record<string, unknown>): RawInput {
  const pick = (schema: TObject | undefined) => {
    if (!schema) return undefined
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(schema.properties)) if (args[k] !== undefined) out[k] = args[k]
    return out
  }
  const known = new Set(parts(op).flatMap((s) => (s ? Object.keys(s.properties) : [])))
  const unknown = Object.keys(args).filter((k) => !known.has(k))
  if (unknown.length) {
    throw new ApiError('invalid_request', 'Unknown arguments', unknown.map((field) => ({ in: 'arguments', field, message: 'unknown field' })))
  }
  return { params: pick(op.params), query: pick(op.query), headers: pick(op.headers), body: pick(op.body) }
}

const PROTOCOL_LEVEL = new Set(['unauthorized', 'forbidden', 'insufficient_scope'])

type BaseCtx = Omit<Ctx, 'sql' | 'audit' | 'afterCommit'>

export async function callTool(tool: AgentTool, args: Record<string, unknown>, base: BaseCtx): Promise<CallToolResult> {
  try {
    const result = await runOp(tool.op, base, splitArgs(tool.op, args))
    const body = result.body ?? {}
    const structured = typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
    return {
      content: [{ type: 'text', text: JSON.stringify(body) }],
      ...(structured && tool.descriptor.outputSchema ? { structuredContent: structured } : {}),
    }
  } catch (err) {
    const e = toApiError(err, base.requestId, tool.op.id)
    const body = e.body()
    if (PROTOCOL_LEVEL.has(e.code)) throw new McpError(ErrorCode.InvalidRequest, e.title, body)
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] }
  }
}
