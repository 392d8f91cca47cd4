// A destructive tool confirmed by the person, not by the model: on protocol revision 2026-07-28 a
// client that declares form elicitation gets an `input_required` result asking its person (not the
// model) whether to go ahead; the client retries the call with the answer and the `requestState` Portico
// minted. The state is HMAC-sealed with a key derived from SECRETS_KEY, bound to the agent (tenant,
// client, subject) and to the connection, and expires after ten minutes, so neither the model nor
// another agent can forge or replay a yes. The domain to confirm comes from that state, never from the
// model's arguments.
// On the 2025 revisions Portico answers statelessly, so a client's capabilities live only in its
// `initialize`: a client declaring form elicitation gets a session id that carries that, HMAC-sealed
// and bound to the agent (`LegacySessions`; the only state these revisions keep, and in the client's
// hands). Its calls of a confirmed tool are answered as an SSE stream on which Portico sends
// `elicitation/create` and waits for the person's answer, which the client posts back and which may
// reach any Portico process (replies.ts).
// A client without elicitation keeps the `confirm` argument, whose refusals never hand the model the
// value.
import { createHmac, timingSafeEqual } from 'node:crypto'
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

/** An agent as states, sessions and answers are bound to it: tenant, client and subject. */
export const agentKey = (principal: { tenantId: string; clientId: string; subject: string }) => `${principal.tenantId}\0${principal.clientId}\0${principal.subject}`

/** The agent a state belongs to, as the request's auth info says (MCP server sets it per request). */
const agentOf = (ctx: ServerContext) => {
  const a = ctx.http?.authInfo
  const principal = (a?.extra?.scope as { principal?: { tenantId: string; clientId: string; subject: string } } | undefined)?.principal
  return principal ? agentKey(principal) : ''
}

export function confirmCodec(secretsKey: Buffer): RequestStateCodec<Pending> {
  const key = createHmac('sha256', secretsKey).update('portico mcp request state v1').digest()
  return createRequestStateCodec<Pending>({ key, ttlSeconds: CONFIRM_TTL_S, bind: (ctx) => `${ctx.mcpReq.method}\0${agentOf(ctx)}` })
}

/** Whether declared client capabilities include form elicitation. */
export function asksInForms(caps: { elicitation?: { form?: unknown } } | undefined): boolean {
  // An empty `elicitation: {}` means form mode (the 2025-06-18 shape, kept by later revisions).
  return !!caps?.elicitation && typeof caps.elicitation === 'object' && (caps.elicitation.form !== undefined || Object.keys(caps.elicitation).length === 0)
}

/** Whether this request's client can show its person a form (2026-07-28: the per-request envelope). */
export function canElicit(ctx: ServerContext): boolean {
  return asksInForms(ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as { elicitation?: { form?: unknown } } | undefined)
}

/**
 * 2025-era session ids: `<base64url JSON>.<base64url HMAC>` under a key derived from SECRETS_KEY,
 * saying the agent's client asks in forms. Only issued to such clients; anything else reads as none.
 */
export class LegacySessions {
  private readonly key: Buffer
  constructor(secretsKey: Buffer) {
    this.key = createHmac('sha256', secretsKey).update('portico mcp session v1').digest()
  }
  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest()
  }
  /** The agent as the session id names it: a keyed hash, so the id shows no tenant or member id. */
  private tag(agent: string): string {
    return this.mac(`agent:${agent}`).subarray(0, 16).toString('base64url')
  }
  issue(agent: string): string {
    const body = Buffer.from(JSON.stringify({ a: this.tag(agent), forms: true })).toString('base64url')
    return `${body}.${this.mac(body).toString('base64url')}`
  }
  /** Whether `sessionId` was issued to this agent for a client that asks in forms. */
  asksInForms(sessionId: string | null, agent: string): boolean {
    const dot = sessionId?.indexOf('.') ?? -1
    if (!sessionId || dot <= 0 || sessionId.length > 1000) return false
    const body = sessionId.slice(0, dot)
    const given = Buffer.from(sessionId.slice(dot + 1), 'base64url')
    const want = this.mac(body)
    if (given.length !== want.length || !timingSafeEqual(given, want)) return false
    try {
      const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { a?: unknown; forms?: unknown }
      return p.a === this.tag(agent) && p.forms === true
    } catch {
      return false
    }
  }
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
    inputRequests: { confirm: inputRequired.elicit(questionFor(domain)) },
    requestState: await codec.mint({ connection: id, domain }, ctx),
  })
  return { reply: question }
}

/** What the person is asked (both eras). */
function questionFor(domain: string) {
  return {
    message: `Disconnect ${domain}? Portico will remove the DNS records it wrote, stop serving the domain and remove its certificate.`,
    requestedSchema: {
      type: 'object' as const,
      properties: { confirm: { type: 'boolean' as const, title: `Disconnect ${domain}`, description: 'Yes, remove this domain' } },
      required: ['confirm'],
    },
  }
}

/**
 * The 2025-era confirmation, in one call: `ask` sends `elicitation/create` on the call's stream and
 * resolves with the client's result (null when none came). Answers as `confirmRound` does.
 */
export async function askPerson(
  db: Sql,
  tenantId: string,
  args: Record<string, unknown>,
  ask: (params: Record<string, unknown>) => Promise<unknown>,
): Promise<{ reply: CallToolResult } | { run: Record<string, unknown> } | undefined> {
  const id = args.id
  if (typeof id !== 'string' || !SAFE_ID.test(id)) return undefined
  const found = await connectionDomain(db, id, { tenantId })
  if (!found) return undefined
  if (found.disconnected) return { run: { ...args, confirm: found.domain } }
  const answer = (await ask({ mode: 'form', ...questionFor(found.domain) }).catch(() => null)) as { action?: unknown; content?: { confirm?: unknown } } | null
  if (answer?.action === 'accept' && answer.content?.confirm === true) return { run: { ...args, confirm: found.domain } }
  if (answer?.action === 'accept' || answer?.action === 'decline' || answer?.action === 'cancel') {
    return { reply: refused('confirmation_required', 'Your person did not confirm the disconnect; nothing was removed') }
  }
  return { reply: refused('confirmation_required', 'The confirmation could not be shown to your person or was not answered in time; nothing was removed') }
}
