// Requests Portico sends to a 2025-era MCP client during a tool call (an elicitation asking the person
// to confirm), and the client's answers. The request goes out on the SSE stream of the tool call's
// POST; the client answers with a POST of its own, which may reach another Portico process behind the
// same load balancer. So:
// - each request gets an id no other request has (`el_` and 18 random bytes), and waits here, in the
//   process holding the tool call, for at most `timeoutMs`, bound to the agent that made the call;
// - an answer posted to the process that waits is taken at once; posted to another, it is passed on
//   with PostgreSQL NOTIFY, and every process waiting for answers LISTENs (from its first request on);
// - an answer posted by another agent, or for an id nobody waits for, is dropped.
import postgres from 'postgres'
import { randomToken } from '../src/ids.ts'
import { log, errorFields } from '../src/logger.ts'
import { MCP_REPLIES_CHANNEL, notify } from '../src/db/channels.ts'
import type { Sql } from '../src/db/sql.ts'

/** A JSON-RPC response as the client sends it. */
export interface RpcReply {
  jsonrpc: '2.0'
  id: string | number
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

export class ReplyTimeout extends Error {}

/** JSON-RPC responses (and nothing else) in a posted body, or null. */
export function repliesIn(body: unknown): RpcReply[] | null {
  const messages = Array.isArray(body) ? body : [body]
  if (messages.length === 0) return null
  const isReply = (m: unknown) => {
    const r = m as Record<string, unknown> | null
    return r !== null && typeof r === 'object' && r.jsonrpc === '2.0' && r.method === undefined && (typeof r.id === 'string' || typeof r.id === 'number') && ('result' in r || 'error' in r)
  }
  return messages.every(isReply) ? (messages as RpcReply[]) : null
}

/** NOTIFY carries at most 8000 bytes; an answer to a confirmation is a few dozen. */
const MAX_RELAYED = 7000
export const REPLY_TIMEOUT_MS = 10 * 60_000

interface Waiting {
  /** The agent the call belongs to (tenant, client, subject), as `agentKey` writes it. */
  agent: string
  settle: (reply: RpcReply) => void
}

export class ClientReplies {
  private readonly waiting = new Map<string, Waiting>()
  private listening: Promise<void> | null = null
  private listener: ReturnType<typeof postgres> | null = null

  constructor(
    private readonly db: Sql,
    /** Where to LISTEN; without it answers are taken only by the process they reach. */
    private readonly databaseUrl?: string,
    private readonly timeoutMs = REPLY_TIMEOUT_MS,
  ) {}

  /** LISTENs once, before the first request leaves, so an answer relayed from a peer is never missed. */
  private listen(): Promise<void> {
    if (!this.databaseUrl) return Promise.resolve()
    this.listening ??= (async () => {
      this.listener = postgres(this.databaseUrl!, { max: 1, onnotice: () => {} })
      await this.listener.listen(MCP_REPLIES_CHANNEL, (payload) => this.fromPeer(payload))
    })().catch((err) => {
      // Answers still reach this process directly; only relayed ones are lost.
      log.warn('mcp replies: LISTEN failed', errorFields(err))
      this.listening = null
    })
    return this.listening
  }

  /**
   * Sends a request to the client with `send` (onto the tool call's stream) and resolves with the
   * client's answer; rejects on a timeout, on `signal` (the stream closed) or when sending fails.
   */
  async ask(send: (message: { jsonrpc: '2.0'; id: string; method: string; params: Record<string, unknown> }) => Promise<void>, agent: string, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<RpcReply> {
    await this.listen()
    const id = `el_${randomToken(18)}`
    let timer: ReturnType<typeof setTimeout> | undefined
    let onAbort: (() => void) | undefined
    try {
      const answer = new Promise<RpcReply>((resolve, reject) => {
        this.waiting.set(id, { agent, settle: resolve })
        timer = setTimeout(() => reject(new ReplyTimeout(`no answer to ${method} within ${this.timeoutMs} ms`)), this.timeoutMs)
        onAbort = () => reject(new Error('the tool call ended before the client answered'))
        if (signal.aborted) onAbort()
        else signal.addEventListener('abort', onAbort, { once: true })
      })
      await send({ jsonrpc: '2.0', id, method, params })
      return await answer
    } finally {
      clearTimeout(timer)
      if (onAbort) signal.removeEventListener('abort', onAbort)
      this.waiting.delete(id)
    }
  }

  /** Answers a client posted with `agent`'s token: taken here, or passed on to the other processes. */
  async deliver(agent: string, replies: RpcReply[]): Promise<void> {
    for (const reply of replies) {
      if (typeof reply.id !== 'string' || !reply.id.startsWith('el_')) continue
      // Waited for here: taken, or dropped when another agent posted it.
      if (this.waiting.has(reply.id)) {
        this.take(agent, reply)
        continue
      }
      const payload = JSON.stringify({ a: agent, r: reply })
      if (payload.length > MAX_RELAYED) {
        log.warn('mcp replies: an answer too large to pass on was dropped', { bytes: payload.length })
        continue
      }
      await notify(this.db, MCP_REPLIES_CHANNEL, payload)
    }
  }

  private take(agent: string, reply: RpcReply): boolean {
    const w = this.waiting.get(String(reply.id))
    if (!w || w.agent !== agent) return false
    this.waiting.delete(String(reply.id))
    w.settle(reply)
    return true
  }

  private fromPeer(payload: string): void {
    try {
      const { a, r } = JSON.parse(payload) as { a: string; r: RpcReply }
      if (typeof a === 'string' && r && typeof r === 'object') this.take(a, r)
    } catch {
      // not ours to read
    }
  }

  async close(): Promise<void> {
    await this.listener?.end({ timeout: 1 })
    this.listener = null
    this.listening = null
  }
}
