// MCP tools generated from the operation registry ("One operation, three faces", DESIGN.md). Every
// operation an agent may call (auth includes AGENT, has a scope, not internal) is one tool:
// - name: the op id with `.` → `_`; title from the op's summary; description and toolset from the
//   op's `agent` text (src/ops/agent-text.ts), written for agents;
// - input schema: the op's path, query, header and body fields merged into one closed object, split
//   back into those parts by the schemas' own keys when called;
// - output schema: the fields an agent uses (its `agent.output`), open to the rest; the full record goes
//   out as structuredContent plus a JSON text copy;
// - annotations: derived from what the op declares it can do to a customer's zone (annotations.ts).
// Calls go through the same executor as REST (`runOp`), so scopes, validation, transactions and audit
// are the same. A refusal the model can act on (bad input, not found, conflicts) is a tool error carrying
// the contract's `{code, title, details}`; an authorization failure is a protocol error.
import type { TObject, TSchema } from '@sinclair/typebox'
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type Tool } from '@modelcontextprotocol/server'
import type { AnyOp } from '../src/ops/registry.ts'
import { runOp, type RawInput } from '../src/ops/run.ts'
import { ApiError } from '../src/errors.ts'
import { toApiError } from '../src/http/app.ts'
import { undeclared } from '../src/ops/declared.ts'
import type { RunCtx } from '../src/ops/run.ts'
import type { AgentText } from '../src/ops/agent-text.ts'
import { APP_URI, appText } from './app.ts'
import type { Toolset } from './toolsets.ts'
import { annotationsOf } from './annotations.ts'
import { OUTSIDE_META, outsideBlock, outsideInError, outsideValues } from './outside.ts'
import { showHidden, showHiddenDeep } from '../src/domain/outside-text.ts'

export interface AgentTool {
  name: string
  scope: string
  toolset: Toolset
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

function inputSchema(op: AnyOp, text: AgentText): Tool['inputSchema'] {
  const properties: Record<string, unknown> = {}
  const required: string[] = [...(text.require ?? [])]
  for (const schema of parts(op)) {
    if (!schema) continue
    const req = new Set(schema.required ?? [])
    for (const [name, s] of Object.entries(schema.properties)) {
      if (text.inputs && !text.inputs.includes(name)) continue
      properties[name] = text.describe?.[name] ? { ...plain(s as TSchema), description: text.describe[name] } : plain(s as TSchema)
      if ((req.has(name) || schema === op.params) && !required.includes(name)) required.push(name)
    }
  }
  return { type: 'object', properties: properties as Tool['inputSchema']['properties'], ...(required.length ? { required } : {}), additionalProperties: false }
}

/** The agent's fields of the op's response schema; open, so the full record still validates. */
function outputSchema(op: AnyOp, text: AgentText): Tool['outputSchema'] | undefined {
  if (text.outputSchema) return text.outputSchema as Tool['outputSchema']
  const s = plain(op.response) as { type?: string; properties?: Record<string, unknown>; required?: string[] }
  if (s.type !== 'object' || !s.properties) return undefined
  const keep = text.output ?? Object.keys(s.properties)
  const properties = Object.fromEntries(keep.filter((k) => k in s.properties!).map((k) => [k, lean(s.properties![k])]))
  const required = (s.required ?? []).filter((k) => k in properties)
  return { type: 'object', properties, ...(required.length ? { required } : {}) } as Tool['outputSchema']
}

/** A property's type and meaning, without nested detail: nested records are described, not spelled out. */
function lean(schema: unknown): Record<string, unknown> {
  const s = schema as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const k of ['type', 'enum', 'const', 'format', 'description', 'anyOf']) if (s[k] !== undefined) out[k] = k === 'anyOf' ? (s.anyOf as unknown[]).map(lean) : s[k]
  if (s.type === 'array' && s.items) out.items = { type: (s.items as Record<string, unknown>).type ?? 'object' }
  return out
}

export function agentText(op: AnyOp): AgentText {
  const text = op.agent
  if (!text) throw new Error(`${op.id} is an agent operation without agent text (declare \`agent\` with the operation: src/ops/agent-text.ts)`)
  return text
}

export function buildTools(ops: readonly AnyOp[]): AgentTool[] {
  return agentOperations(ops).map((op) => {
    const text = agentText(op)
    const out = outputSchema(op, text)
    return {
      name: toolName(op),
      scope: op.scope!,
      toolset: text.toolset,
      op,
      descriptor: {
        name: toolName(op),
        title: op.summary,
        description: text.description,
        inputSchema: inputSchema(op, text),
        ...(out ? { outputSchema: out } : {}),
        ...(text.app ? { _meta: { ui: { resourceUri: APP_URI } } } : {}),
        annotations: annotationsOf(op),
      },
    }
  })
}

/** Splits tool arguments back into path, query, header and body by the op's schema keys. */
export function splitArgs(op: AnyOp, args: Record<string, unknown>, offered?: readonly string[]): RawInput {
  const pick = (schema: TObject | undefined) => {
    if (!schema) return undefined
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(schema.properties)) if (args[k] !== undefined) out[k] = args[k]
    return out
  }
  const known = new Set(offered ?? parts(op).flatMap((s) => (s ? Object.keys(s.properties) : [])))
  const unknown = Object.keys(args).filter((k) => !known.has(k))
  if (unknown.length) {
    throw new ApiError('invalid_request', 'Unknown arguments', unknown.map((field) => ({ in: 'arguments', field, message: 'unknown field' })))
  }
  return { params: pick(op.params), query: pick(op.query), headers: pick(op.headers), body: pick(op.body) }
}

const PROTOCOL_LEVEL = new Set(['unauthorized', 'forbidden', 'insufficient_scope'])

type BaseCtx = RunCtx

/**
 * Runs the tool's operation. Every string of the result has its hidden characters shown escaped, and the
 * values that came from outside Portico follow in a block of their own, marked as data (outside.ts).
 */
export async function callTool(tool: AgentTool, args: Record<string, unknown>, base: BaseCtx): Promise<CallToolResult> {
  try {
    const result = await runOp(tool.op, base, splitArgs(tool.op, args, agentText(tool.op).inputs))
    const body = showHiddenDeep(JSON.parse(JSON.stringify(result.body ?? {})) as unknown)
    const structured = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
    const readable = agentText(tool.op).app && structured ? appText(structured) : ''
    const data = outsideValues(tool.op.response, body)
    const block = outsideBlock(data)
    return {
      content: [{ type: 'text', text: JSON.stringify(body) }, ...(readable ? [{ type: 'text' as const, text: readable }] : []), ...(block ? [block] : [])],
      ...(structured && tool.descriptor.outputSchema ? { structuredContent: structured } : {}),
      ...(data.length ? { _meta: { [OUTSIDE_META]: data.map(({ path, source }) => ({ path, source })) } } : {}),
    }
  } catch (err) {
    const e = undeclared(tool.op, toApiError(err, base.requestId, tool.op.id), base.config.appEnv === 'test')
    const body = showHiddenDeep(e.body())
    if (PROTOCOL_LEVEL.has(e.code)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, showHidden(e.title), body)
    const block = outsideBlock(outsideInError(body as { details?: unknown }))
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }, ...(block ? [block] : [])] }
  }
}
