// The face-independent executor. REST and MCP both hand it an operation, a resolved principal and
// raw input parts; it checks authority, validates, runs the handler (every write of a mutation in a
// transaction with its audit row, see `transactions` in registry.ts) under the request's deadline, and
// returns the result or throws an ApiError.
import { Value } from '@sinclair/typebox/value'
import './formats.ts'
import { insertAuditRow } from '../db/audit.ts'
import type { Sql } from '../db/sql.ts'
import { can } from '../domain/rbac.ts'
import { ApiError, notFound } from '../errors.ts'
import { unroutable } from '../domain/text.ts'
import { isReply, type AnyOp, type AuditNote, type Ctx, type PrepareCtx } from './registry.ts'
import { Deadline } from './deadline.ts'
import { ENDED_SESSION_TRIES, sessionEnded } from '../db/unavailable.ts'
import { guardWrites } from '../db/write-guard.ts'
import { type Principal, widgetClass } from '../domain/principal.ts'
import { validatePart } from './validate.ts'
import { costOf } from '../domain/rate-limits.ts'
import { jsonText } from '../json.ts'

export interface RawInput {
  params?: Record<string, unknown>
  query?: Record<string, unknown>
  body?: unknown
  headers?: Record<string, unknown>
}

export interface OpResult {
  status: number
  body: unknown
  headers?: Record<string, string>
}

/**
 * What a face hands the executor: the principal and the wiring; the deadline when it started one; and
 * where the credential's rate-limit headers go (the REST face puts them on its answer, whatever it is).
 */
export type RunCtx = Omit<PrepareCtx, 'deadline'> & { deadline?: Deadline; onLimits?: (headers: Record<string, string>) => void }

/** What a face adds to a mutation: `beforeCommit` writes in the operation's transaction (an Idempotency-Key's answer). */
export interface RunHooks {
  beforeCommit?: (sql: Sql, result: OpResult) => Promise<void>
}

const WIDGET_REFUSAL = {
  app: 'An application-scoped widget token cannot call this',
  connect: 'A connect-scoped widget token cannot call this; application-level resources need a token minted with scope "app" and no domain',
  domain: 'A domain-bound widget token acts on its own domain\'s connection only',
} as const

/**
 * Role, scope and widget-kind checks (the authority matrix, src/ops/authority.ts); credentials were
 * matched against `op.auth` already. A domain-bound widget token's hostname is checked by the handler.
 */
export function authorize(op: AnyOp, p: Principal): void {
  if (p.kind === 'KEY' && op.permission && !can(p.role, op.permission)) {
    throw new ApiError('forbidden', `The ${p.role} role may not do this (needs ${op.permission})`)
  }
  if (p.kind === 'WIDGET') {
    const c = widgetClass(p)
    if (!op.widget?.includes(c)) throw new ApiError('forbidden', WIDGET_REFUSAL[c])
  }
  if (p.kind === 'AGENT') {
    if (!op.scope) throw new ApiError('forbidden', 'Agent tokens cannot call this operation')
    if (!p.scopes.includes(op.scope)) {
      throw new ApiError('insufficient_scope', `This needs the ${op.scope} scope`, { required: [op.scope] })
    }
  }
}

/** The parts the operation declares, validated in order (path, query, headers, body) into one input. */
function validateAll(op: AnyOp, raw: RawInput): Record<string, unknown> {
  const params = raw.params ?? {}
  // An id no Portico object can have names nothing: 404, as an unknown id does, before any lookup.
  for (const k in params) if (unroutable(params[k])) throw notFound()
  const input: Record<string, unknown> = {}
  if (op.params) Object.assign(input, validatePart(op.params, params, 'path'))
  if (op.query) Object.assign(input, validatePart(op.query, raw.query ?? {}, 'query'))
  if (op.headers) Object.assign(input, validatePart(op.headers, raw.headers ?? {}, 'header'))
  if (op.body) {
    let body = raw.body
    if (body === undefined || body === null) {
      if (!op.bodyOptional) throw new ApiError('invalid_request', 'A JSON body is required')
      body = {}
    }
    Object.assign(input, validatePart(op.body, body, 'body'))
  }
  return input
}

export async function runOp(op: AnyOp, run: RunCtx, raw: RawInput, hooks: RunHooks = {}): Promise<OpResult> {
  const deadline = run.deadline ?? new Deadline(op.deadline === 'bulk' ? run.config.deadlines.bulkMs : run.config.deadlines.requestMs, undefined, run.services.database)
  // Counted per credential before anything else it could be refused for (src/domain/rate-limits.ts).
  const maxItems = op.countsItems ? (op.body as { properties?: Record<string, { maxItems?: number }> } | undefined)?.properties?.[op.countsItems]?.maxItems : undefined
  const limited = run.services.rateLimits?.take(run.principal, costOf(op.countsItems, raw.body, maxItems))
  if (limited) run.onLimits?.(limited.headers)
  if (limited?.refused) throw limited.refused
  authorize(op, run.principal)
  const input = validateAll(op, raw)
  const work = op.kind === 'read' ? executeRead(op, run, deadline, input) : execute(op, { ...run, deadline }, input, hooks)
  // A face that started the deadline races it around everything it does (src/http/app.ts); one race is enough.
  return run.deadline ? work : deadline.race(work)
}

/** The result of a handler's output: its status, body and headers (checked against the declared schema in tests). */
function resultOf(op: AnyOp, ctx: PrepareCtx, out: unknown): OpResult {
  const result = isReply(out) ? { status: out.status, body: out.body, headers: out.headers } : { status: op.status ?? 200, body: out }
  if (ctx.config.appEnv === 'test') checkOutput(op, result)
  return result
}

const runNow = (fn: () => void) => fn()

/**
 * A read: the handler on the pool, no transaction of the operation's own and no audit row; begun again
 * when it met a session the server had ended (safe for a read). The context is built in one step: this
 * is every cached read's path.
 */
async function executeRead(op: AnyOp, run: RunCtx, deadline: Deadline, input: Record<string, unknown>): Promise<OpResult> {
  const ctx: Ctx = { ...run, deadline, sql: run.db, audit: {}, afterCommit: runNow, tx: (fn) => deadline.transaction(run.db, (tx) => fn(tx, {})) }
  const prepared = op.prepare ? await op.prepare(ctx, input as never) : undefined
  for (let attempt = 1; ; attempt++) {
    try {
      return resultOf(op, ctx, await op.handler(ctx, input as never, prepared))
    } catch (err) {
      if (attempt >= ENDED_SESSION_TRIES || !sessionEnded(err)) throw err
    }
  }
}

async function execute(op: AnyOp, base: PrepareCtx, input: Record<string, unknown>, hooks: RunHooks): Promise<OpResult> {
  const prepared = op.prepare ? await op.prepare(base, input as never) : undefined
  const call = async (ctx: Ctx) => resultOf(op, ctx, await op.handler(ctx, input as never, prepared))
  if (op.transactions === 'steps') return steps(op, base, input, call, hooks)
  const pending: (() => void)[] = []
  const result = await base.deadline.transaction(base.db, async (tx) => {
    // A transaction opened through ctx.db from here would commit apart from this one: it gets its own audit row.
    let step = 0
    const stepTx = <T>(fn: (tx: Sql, note: AuditNote) => Promise<T>) => auditedTransaction(base, op, input, ++step, fn)
    const ctx: Ctx = { ...base, sql: tx, db: guardWrites(base.db, stepTx), audit: {}, afterCommit: (fn) => pending.push(fn), tx: (fn) => fn(tx, ctx.audit) }
    const r = await call(ctx)
    await writeAudit(tx, ctx, op, input, r, ctx.audit)
    await hooks.beforeCommit?.(tx, r)
    return r
  })
  for (const fn of pending) fn()
  return result
}

/**
 * A `steps` mutation: the handler runs on the pool (reads only), each `ctx.tx(...)` is a transaction of its
 * own committed with an audit row, and a last row records the outcome with the handler's `ctx.audit`.
 */
async function steps(op: AnyOp, base: PrepareCtx, input: Record<string, unknown>, call: (ctx: Ctx) => Promise<OpResult>, hooks: RunHooks): Promise<OpResult> {
  let step = 0
  const tx = <T>(fn: (tx: Sql, note: AuditNote) => Promise<T>) => auditedTransaction(base, op, input, ++step, fn)
  const pool = guardWrites(base.db, tx)
  const ctx: Ctx = { ...base, sql: pool, db: pool, audit: {}, afterCommit: (fn) => fn(), tx }
  const result = await call(ctx)
  await base.deadline.transaction(base.db, async (t) => {
    await writeAudit(t, ctx, op, input, result, { ...ctx.audit, details: { steps: step, ...ctx.audit.details } })
    await hooks.beforeCommit?.(t, result)
  })
  return result
}

/** One step of a `steps` mutation (or a transaction opened beside the operation's): its change and its audit row, committed together. */
function auditedTransaction<T>(base: PrepareCtx, op: AnyOp, input: Record<string, unknown>, step: number, fn: (tx: Sql, note: AuditNote) => Promise<T>): Promise<T> {
  return base.deadline.transaction(base.db, async (tx) => {
    const note: AuditNote = {}
    const out = await fn(tx, note)
    await writeAudit(tx, base, op, input, { status: 0, body: null }, { ...note, details: { step, ...note.details } })
    return out
  })
}

/**
 * In tests every real output is checked against the declared response schema, after the same JSON
 * serialisation the wire applies, so the OpenAPI document cannot promise what the handler does not send;
 * and an answer's JSON text given beforehand (src/json.ts) must be what its value serialises to.
 */
function checkOutput(op: AnyOp, result: OpResult): void {
  // An answer written from parts already serialised (src/json.ts) says what its value says.
  if (jsonText(result.body) !== JSON.stringify(result.body)) throw new Error(`operation ${op.id} answered a JSON text that differs from its value`)
  const wire = result.body === undefined ? undefined : JSON.parse(JSON.stringify(result.body))
  if (!Value.Check(op.response, wire)) {
    const first = [...Value.Errors(op.response, wire)].slice(0, 3).map((e) => `${e.path} ${e.message}`)
    throw new Error(`operation ${op.id} answered outside its response schema: ${first.join('; ')}`)
  }
}

function actorId(p: Principal): string | null {
  switch (p.kind) {
    case 'KEY':
      return p.keyId
    case 'WIDGET':
      return p.applicationId
    case 'AGENT':
      return p.clientId
    default:
      return null
  }
}

/** The audit row of a mutation (or of one of its steps), written in the transaction of its change (the handle named sql). */
async function writeAudit(sql: Sql, ctx: PrepareCtx, op: AnyOp, input: Record<string, unknown>, result: OpResult, note: AuditNote): Promise<void> {
  const p = ctx.principal
  const body = result.body as Record<string, unknown> | null
  const tenantId = note.tenantId !== undefined ? note.tenantId : 'tenantId' in p ? p.tenantId : null
  const targetId = note.targetId !== undefined ? note.targetId : ((input.id as string | undefined) ?? (typeof body?.id === 'string' ? body.id : null))
  const now = ctx.clock.now()
  const details = result.status ? { status: result.status, ...note.details } : { ...note.details }
  await insertAuditRow(sql, { now, tenantId, p, actorId: actorId(p), op, targetId, ctx, details })
}
