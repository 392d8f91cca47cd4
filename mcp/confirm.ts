// What an agent does that its person must confirm first (a disconnect; a write replacing the
// customer's own records) is asked of the person, never taken from the client. The tool itself refuses
// with `confirmation_required` carrying the question's id and a one-time link
// (src/domain/person-confirm.ts); only a yes given on that page, by the person signed in as themselves,
// lets the agent's retry through. Nothing the client sends in-band counts for these acts: not a form
// answer (a client that declares form elicitation can fill the form itself), not an accept to a URL
// question (it says only that the link was shown). This file only helps the client send its person to
// the page:
// - URL elicitation: on revision 2026-07-28 an `input_required` result with a URL request and an
//   HMAC-sealed `requestState` naming the question (bound to the agent, ten minutes); on the 2025
//   revisions the -32042 URL elicitation error. The client's retry runs the tool again, which goes
//   through once the person confirmed on the page;
// - any other client gets the refusal itself: its `details.confirm_url` is for the person to open.
// On the 2025 revisions Portico answers statelessly, so a client's capabilities live only in its
// `initialize`: a client declaring URL elicitation gets a session id saying so, HMAC-sealed and bound
// to the agent (`LegacySessions`; in the client's hands).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { CLIENT_CAPABILITIES_META_KEY, createRequestStateCodec, inputRequired, inputResponse, UrlElicitationRequiredError, type CallToolResult, type InputRequiredResult, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server'
import type { Sql } from '../src/db/sql.ts'
import { confirmationById, type AgentRef, type ConfirmationRow } from '../src/db/person-confirmations.ts'
import { confirmUrl, questionOf } from '../src/domain/person-confirm.ts'
import type { Config } from '../src/config.ts'

export const CONFIRM_TTL_S = 600

/** What the sealed state carries between the two rounds: the question asked. */
interface Pending {
  confirmation: string
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
  const key = createHmac('sha256', secretsKey).update('portico mcp request state v3').digest()
  return createRequestStateCodec<Pending>({ key, ttlSeconds: CONFIRM_TTL_S, bind: (ctx) => `${ctx.mcpReq.method}\0${agentOf(ctx)}` })
}

type Caps = { elicitation?: { form?: unknown; url?: unknown } } | undefined

/** Whether declared client capabilities include URL elicitation. */
export function asksByUrl(caps: Caps): boolean {
  return !!caps?.elicitation && typeof caps.elicitation === 'object' && caps.elicitation.url !== undefined
}

/** Whether this request's client can send its person to a URL (2026-07-28: the per-request envelope). */
function canElicitUrl(ctx: ServerContext): boolean {
  return asksByUrl(ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as Caps)
}

/**
 * 2025-era session ids: `<base64url JSON>.<base64url HMAC>` under a key derived from SECRETS_KEY,
 * saying that the agent's client can send its person to a URL. Only issued to such clients; anything
 * else reads as not.
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
    const body = Buffer.from(JSON.stringify({ a: this.tag(agent), url: true })).toString('base64url')
    return `${body}.${this.mac(body).toString('base64url')}`
  }
  /** Whether `sessionId` was issued to this agent for a client that can send its person to a URL. */
  asksByUrl(sessionId: string | null, agent: string): boolean {
    const dot = sessionId?.indexOf('.') ?? -1
    if (!sessionId || dot <= 0 || sessionId.length > 1000) return false
    const body = sessionId.slice(0, dot)
    const given = Buffer.from(sessionId.slice(dot + 1), 'base64url')
    const want = this.mac(body)
    if (given.length !== want.length || !timingSafeEqual(given, want)) return false
    try {
      const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { a?: unknown; url?: unknown }
      return p.a === this.tag(agent) && p.url === true
    } catch {
      return false
    }
  }
}

const refused = (code: string, title: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: JSON.stringify({ code, title }) }] })

/** The question a tool's refusal asks of the person, when it is one. */
export function personAsk(result: CallToolResult): { id: string; url: string } | null {
  if (!result.isError) return null
  const first = result.content?.[0]
  if (first?.type !== 'text') return null
  try {
    const body = JSON.parse(first.text) as { code?: string; details?: { confirmation_id?: unknown; confirm_url?: unknown } }
    const d = body.details
    return body.code === 'confirmation_required' && typeof d?.confirmation_id === 'string' && typeof d.confirm_url === 'string' ? { id: d.confirmation_id, url: d.confirm_url } : null
  } catch {
    return null
  }
}

export interface ConfirmDeps {
  db: Sql
  config: Config
}

/** The question `id`, when it belongs to this agent. */
async function questionOfAgent(deps: ConfirmDeps, agent: AgentRef, id: string): Promise<ConfirmationRow | null> {
  const row = await confirmationById(deps.db, id)
  return row && row.tenant_id === agent.tenantId && row.client_id === agent.clientId && row.subject === agent.subject ? row : null
}

/** What the client shows its person with the link: Portico's question (no outside text in it), and what to do. */
const urlMessage = (row: ConfirmationRow) => `${questionOf(row)} Open the link, sign in as yourself and confirm there; then the call goes through.`

/**
 * Revision 2026-07-28: runs the tool; when its person must confirm first and the client can send them
 * to a URL, answers `input_required` with the confirmation page; the client's retry runs the tool
 * again, which goes through only once the person confirmed on that page.
 */
export async function confirmModern(
  deps: ConfirmDeps,
  ctx: ServerContext,
  codec: RequestStateCodec<Pending>,
  agent: AgentRef,
  args: Record<string, unknown>,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult | InputRequiredResult> {
  const pending = ctx.mcpReq.requestState<Pending>()
  if (pending && typeof pending === 'object' && typeof pending.confirmation === 'string') {
    const row = await questionOfAgent(deps, agent, pending.confirmation)
    if (!row || row.connection_id !== args.id) return refused('invalid_request', 'This confirmation was asked for something else; nothing was changed')
    // The client's answer tells only whether it showed the link; a decline ends this round.
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm')
    if (answer.kind === 'elicit' && answer.action !== 'accept') return refused('confirmation_required', 'Your person did not open the confirmation; nothing was changed')
  }
  const result = await run()
  const ask = personAsk(result)
  if (!ask || !canElicitUrl(ctx)) return result
  const row = await questionOfAgent(deps, agent, ask.id)
  if (!row) return result
  const requestState = await codec.mint({ confirmation: row.id }, ctx)
  return inputRequired({ inputRequests: { confirm: inputRequired.elicitUrl({ message: urlMessage(row), url: ask.url }) }, requestState })
}

/**
 * The 2025 revisions: runs the tool; when its person must confirm first and the client can send them to
 * a URL (its session id says so), raises the URL elicitation error; otherwise hands back the refusal
 * with its link.
 */
export async function confirmLegacy(deps: ConfirmDeps, asksByUrl: boolean, agent: AgentRef, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  const result = await run()
  const asked = personAsk(result)
  if (!asked || !asksByUrl) return result
  const row = await questionOfAgent(deps, agent, asked.id)
  if (!row) return result
  throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId: row.id, url: confirmUrl(deps.config, row.id), message: urlMessage(row) }], 'Your person must confirm this first')
}
