// A destructive tool confirmed by the person, not by the model: on protocol revision 2026-07-28 a
// client that declares form elicitation gets an `input_required` result asking its person (not the
// model) whether to go ahead; the client retries the call with the answer and the `requestState` Portico
// minted. The state is HMAC-sealed with a key derived from SECRETS_KEY, bound to the agent (tenant,
// client, subject) and to the connection, and expires after ten minutes, so neither the model nor
// another agent can forge or replay a yes. The domain to confirm comes from that state, never from the
// model's arguments. A client without elicitation (and every 2025-era request, which Portico serves
// statelessly and so cannot put a question mid-call) keeps the `confirm` argument, whose refusals
// never hand the model the value.
import { createHmac } from 'node:crypto'
import { CLIENT_CAPABILITIES_META_KEY, createRequestStateCodec, inputRequired, inputResponse, type CallToolResult, type InputRequiredResult, type RequestStateCodec, type ServerContext, type Tool } from '@modelcontextprotocol/server'
import { connectionDomain } from '../src/db/connections.ts'
import type { Sql } from '../src/db/sql.ts'

/** Tools a person confirms through elicitation, by tool name. */
export const CONFIRMED_TOOLS = new Set(['connections_disconnect'])

export const CONFIRM_TTL_S = 600

/** What the sealed state carries between the two rounds. */
interface Pending {
  connection: string
  domain: string
}

/** The agent a state belongs to, as the request's auth info says (MCP server sets it per request). */
const agentOf = (ctx: ServerContext) => {
  const a = ctx.http?.authInfo
  const principal = (a?.extra?.scope as { principal?: { tenantId: string; clientId: string; subject: string } } | undefined)?.principal
  return principal ? `${principal.tenantId}\0${principal.clientId}\0${principal.subject}` : ''
}

export function confirmCodec(secretsKey: Buffer): RequestStateCodec<Pending> {
  const key = createHmac('sha256', secretsKey).update('portico mcp request state v1').digest()
  return createRequestStateCodec<Pending>({ key, ttlSeconds: CONFIRM_TTL_S, bind: (ctx) => `${ctx.mcpReq.method}\0${agentOf(ctx)}` })
}

/** Whether this request's client can show its person a form (2026-07-28: the per-request envelope). */
export function canElicit(ctx: ServerContext): boolean {
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as { elicitation?: { form?: unknown } } | undefined
  // An empty `elicitation: {}` means form mode (the 2025-06-18 shape, kept by later revisions).
  return !!caps?.elicitation && (caps.elicitation.form !== undefined || Object.keys(caps.elicitation).length === 0)
}

/** The tool as a client that can elicit sees it: `confirm` is the person's to give, not a required argument. */
export function askingDescriptor(tool: Tool): Tool {
  const required = (tool.inputSchema.required ?? []).filter((f) => f !== 'confirm')
  const { required: _, ...rest } = tool.inputSchema
  return { ...tool, inputSchema: { ...rest, ...(required.length ? { required } : {}) } }
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/

const refused = (code: string, title: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: JSON.stringify({ code, title }) }] })

/**
 * One round of the person's confirmation: the reply to give (the question on the first round, or a
 * refusal), or the arguments to run the tool with (`confirm` from the sealed state) once the person said yes.
 * `undefined` means there is nothing to confirm here (no such connection): the tool runs as asked and
 * answers its own error.
 */
export async function confirmRound(
  db: Sql,
  ctx: ServerContext,
  codec: RequestStateCodec<Pending>,
  tenantId: string,
  args: Record<string, unknown>,
): Promise<{ reply: InputRequiredResult | CallToolResult } | { run: Record<string, unknown> } | undefined> {
  const id = args.id
  if (typeof id !== 'string' || !SAFE_ID.test(id)) return undefined
  const pending = ctx.mcpReq.requestState<Pending>()
  if (pending && typeof pending === 'object') {
    if (pending.connection !== id) return { reply: refused('invalid_request', 'This confirmation was given for another connection; nothing was removed') }
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm')
    if (answer.kind === 'elicit') {
      if (answer.action === 'accept' && answer.content?.confirm === true) return { run: { ...args, confirm: pending.domain } }
      return { reply: refused('confirmation_required', 'Your person did not confirm the disconnect; nothing was removed') }
    }
    // No answer came back with the state: ask again.
  }
  const found = await connectionDomain(db, id, { tenantId })
  if (!found) return undefined
  // Done already (a retry after a lost answer): nothing left to remove, the same outcome comes back.
  if (found.disconnected) return { run: { ...args, confirm: found.domain } }
  const { domain } = found
  const question = inputRequired({
    inputRequests: {
      confirm: inputRequired.elicit({
        message: `Disconnect ${domain}? Portico will remove the DNS records it wrote, stop serving the domain and remove its certificate.`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: `Disconnect ${domain}`, description: 'Yes, remove this domain' } },
          required: ['confirm'],
        },
      }),
    },
    requestState: await codec.mint({ connection: id, domain }, ctx),
  })
  return { reply: question }
}
