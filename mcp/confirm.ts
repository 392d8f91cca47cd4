// What an agent does that its person must confirm first (a disconnect; a write replacing the
// customer's own records) is asked of the person, never taken from the model's arguments. The tool
// itself refuses with `confirmation_required` carrying the question's id and a one-time link
// (src/domain/person-confirm.ts); this file turns that refusal into a question for the person where
// the client can ask one:
// - form elicitation: on revision 2026-07-28 an `input_required` result with a yes/no form and an
//   HMAC-sealed `requestState` naming the question (bound to the agent, ten minutes); on the 2025
//   revisions `elicitation/create` on the call's SSE stream. The person's yes is recorded on the
//   question and the call runs again, once;
// - URL elicitation: the person is sent to the confirmation page (2026-07-28: `input_required` with a
//   URL request; 2025: the -32042 URL elicitation error); the client's retry goes through once they
//   confirmed there;
// - otherwise the refusal itself goes back: its `details.confirm_url` is for the person to open.
// On the 2025 revisions Portico answers statelessly, so a client's capabilities live only in its
// `initialize`: a client declaring form or URL elicitation gets a session id carrying that, HMAC-sealed
// and bound to the agent (`LegacySessions`; in the client's hands). Its calls of a confirming tool are
// answered as an SSE stream on which Portico asks and waits for the person's answer, which the client
// posts back and which may reach any Portico process (replies.ts).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { CLIENT_CAPABILITIES_META_KEY, createRequestStateCodec, inputRequired, inputResponse, UrlElicitationRequiredError, type CallToolResult, type InputRequiredResult, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server'
import type { Sql } from '../src/db/sql.ts'
import { confirmationById, markConfirmed, markRefused, type AgentRef, type ConfirmationRow } from '../src/db/person-confirmations.ts'
import { CONFIRM_TTL_MS, confirmUrl, questionOf } from '../src/domain/person-confirm.ts'
import type { Config } from '../src/config.ts'

/** Tools whose person may be asked during the call (2025 clients that ask get them on an SSE stream). */
export const CONFIRMED_TOOLS = new Set(['connections_disconnect', 'connections_apply'])

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
  const key = createHmac('sha256', secretsKey).update('portico mcp request state v2').digest()
  return createRequestStateCodec<Pending>({ key, ttlSeconds: CONFIRM_TTL_S, bind: (ctx) => `${ctx.mcpReq.method}\0${agentOf(ctx)}` })
}

type Caps = { elicitation?: { form?: unknown; url?: unknown } } | undefined

/** Whether declared client capabilities include form elicitation. */
export function asksInForms(caps: Caps): boolean {
  // An empty `elicitation: {}` means form mode (the 2025-06-18 shape, kept by later revisions).
  return !!caps?.elicitation && typeof caps.elicitation === 'object' && (caps.elicitation.form !== undefined || Object.keys(caps.elicitation).length === 0)
}

/** Whether declared client capabilities include URL elicitation. */
export function asksByUrl(caps: Caps): boolean {
  return !!caps?.elicitation && typeof caps.elicitation === 'object' && caps.elicitation.url !== undefined
}

const envelopeCaps = (ctx: ServerContext) => ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as Caps

/** Whether this request's client can show its person a form (2026-07-28: the per-request envelope). */
export function canElicit(ctx: ServerContext): boolean {
  return asksInForms(envelopeCaps(ctx))
}

/** Whether this request's client can send its person to a URL (2026-07-28). */
export function canElicitUrl(ctx: ServerContext): boolean {
  return asksByUrl(envelopeCaps(ctx))
}

/** How a 2025-era client asks its person, as its session id says. */
export interface AskModes {
  forms: boolean
  url: boolean
}

/**
 * 2025-era session ids: `<base64url JSON>.<base64url HMAC>` under a key derived from SECRETS_KEY,
 * saying how the agent's client asks its person. Only issued to such clients; anything else reads as none.
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
  issue(agent: string, modes: AskModes = { forms: true, url: false }): string {
    const body = Buffer.from(JSON.stringify({ a: this.tag(agent), forms: modes.forms, url: modes.url })).toString('base64url')
    return `${body}.${this.mac(body).toString('base64url')}`
  }
  /** How the client behind `sessionId` asks its person, when it was issued to this agent. */
  modes(sessionId: string | null, agent: string): AskModes {
    const none = { forms: false, url: false }
    const dot = sessionId?.indexOf('.') ?? -1
    if (!sessionId || dot <= 0 || sessionId.length > 1000) return none
    const body = sessionId.slice(0, dot)
    const given = Buffer.from(sessionId.slice(dot + 1), 'base64url')
    const want = this.mac(body)
    if (given.length !== want.length || !timingSafeEqual(given, want)) return none
    try {
      const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { a?: unknown; forms?: unknown; url?: unknown }
      return p.a === this.tag(agent) ? { forms: p.forms === true, url: p.url === true } : none
    } catch {
      return none
    }
  }
  /** Whether `sessionId` was issued to this agent for a client that asks in forms. */
  asksInForms(sessionId: string | null, agent: string): boolean {
    return this.modes(sessionId, agent).forms
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

/** What the person is asked in a form. */
function formFor(row: ConfirmationRow) {
  return {
    message: questionOf(row),
    requestedSchema: {
      type: 'object' as const,
      properties: { confirm: { type: 'boolean' as const, title: row.action === 'disconnect' ? `Disconnect ${row.domain}` : `Replace records at ${row.domain}`, description: 'Yes, go ahead' } },
      required: ['confirm'],
    },
  }
}

export interface ConfirmDeps {
  db: Sql
  config: Config
  now: () => Date
}

/** The question `id`, when it belongs to this agent. */
async function questionOfAgent(deps: ConfirmDeps, agent: AgentRef, id: string): Promise<ConfirmationRow | null> {
  const row = await confirmationById(deps.db, id)
  return row && row.tenant_id === agent.tenantId && row.client_id === agent.clientId && row.subject === agent.subject ? row : null
}

/** The person's answer in a form: yes is recorded on the question; anything else closes it. */
async function recordAnswer(deps: ConfirmDeps, row: ConfirmationRow, agent: AgentRef, yes: boolean): Promise<void> {
  if (yes) await markConfirmed(deps.db, row.id, agent.subject, 'elicitation', deps.now(), CONFIRM_TTL_MS)
  else await markRefused(deps.db, row.id, deps.now())
}

const notConfirmed = () => refused('confirmation_required', 'Your person did not confirm; nothing was changed')

/**
 * Revision 2026-07-28: runs the tool; when its person must confirm first, answers `input_required`
 * (a form, or the confirmation page's URL) and, on the client's retry with the answer, runs it again.
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
    // The answer belongs to the question about this very connection.
    if (!row || row.connection_id !== args.id) return refused('invalid_request', 'This confirmation was given for something else; nothing was changed')
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm')
    if (answer.kind === 'elicit') {
      const accepted = answer.action === 'accept'
      // A form's yes is the answer itself; a URL's accept only says the person opened the page.
      if (row.confirmed_at === null && answer.content !== undefined) {
        await recordAnswer(deps, row, agent, accepted && answer.content?.confirm === true)
        if (!(accepted && answer.content?.confirm === true)) return notConfirmed()
      } else if (!accepted) {
        return notConfirmed()
      }
    }
  }
  const result = await run()
  const ask = personAsk(result)
  if (!ask) return result
  const row = await questionOfAgent(deps, agent, ask.id)
  if (!row) return result
  const requestState = await codec.mint({ confirmation: row.id }, ctx)
  if (canElicit(ctx)) return inputRequired({ inputRequests: { confirm: inputRequired.elicit(formFor(row)) }, requestState })
  if (canElicitUrl(ctx)) return inputRequired({ inputRequests: { confirm: inputRequired.elicitUrl({ message: `${questionOf(row)} Open the link, sign in and confirm.`, url: ask.url }) }, requestState })
  return result
}

/**
 * The 2025 revisions: runs the tool; when its person must confirm first, asks in a form on the call's
 * stream (`ask`, when the client asks in forms) and runs it again after a yes, or raises the URL
 * elicitation error (when it asks by URL), or hands back the refusal with its link.
 */
export async function confirmLegacy(
  deps: ConfirmDeps,
  modes: AskModes,
  agent: AgentRef,
  ask: ((params: Record<string, unknown>) => Promise<unknown>) | undefined,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const result = await run()
  const asked = personAsk(result)
  if (!asked) return result
  const row = await questionOfAgent(deps, agent, asked.id)
  if (!row) return result
  if (modes.forms && ask) {
    const answer = (await ask({ mode: 'form', ...formFor(row) }).catch(() => null)) as { action?: unknown; content?: { confirm?: unknown } } | null
    if (answer?.action === 'accept' || answer?.action === 'decline' || answer?.action === 'cancel') {
      const yes = answer.action === 'accept' && answer.content?.confirm === true
      await recordAnswer(deps, row, agent, yes)
      return yes ? run() : notConfirmed()
    }
    return refused('confirmation_required', 'The confirmation could not be shown to your person or was not answered in time; nothing was changed')
  }
  if (modes.url) {
    throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId: row.id, url: confirmUrl(deps.config, row.id), message: `${questionOf(row)} Open the link, sign in and confirm; then call again.` }], 'Your person must confirm this first')
  }
  return result
}
