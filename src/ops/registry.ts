// The operation registry ("One operation, three faces", DESIGN.md). Each operation is declared once:
// id, method and path, the credentials it accepts, the role permission or agent scope it needs, its
// input and output schemas, the errors it can answer and its handler. The REST routes, the OpenAPI
// document and the MCP tools are all generated from this list; handlers never see HTTP.
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Sql } from '../db/sql.ts'
import type { Permission } from '../domain/rbac.ts'
import type { AddressSource } from '../client-address.ts'
import type { Credential, PrincipalOf, TenantCredential, WidgetClass } from '../domain/principal.ts'
import type { ErrorCode } from '../errors.ts'
import type { Services } from '../services.ts'
import type { AgentText } from './agent-text.ts'
import type { Deadline } from './deadline.ts'

/** What the handler may record about itself in the audit log. */
export interface AuditNote {
  tenantId?: string | null
  targetId?: string | null
  details?: Record<string, unknown>
}

/** A handler's context; `A` is the operation's accepted credentials, so its principal is narrowed. */
export interface Ctx<out A extends Credential = Credential> {
  principal: PrincipalOf<A>
  /**
   * Inside a mutation this is the operation's transaction (a `steps` mutation: the pool, for reads);
   * reads get the pool.
   */
  sql: Sql
  /**
   * The pool. In a mutation it refuses writes (src/db/write-guard.ts), and its `begin` opens a
   * transaction that carries the operation's audit row, as `tx(...)` does.
   */
  db: Sql
  /**
   * Runs `fn` in a transaction with the operation's audit row: the operation's own transaction, or (a
   * `steps` mutation) a new one per call, whose audit row `note` may describe (its target, details).
   */
  tx: <T>(fn: (tx: Sql, note: AuditNote) => Promise<T>) => Promise<T>
  /** When the request must have answered; transactions refuse to commit past it. */
  deadline: Deadline
  clock: Clock
  config: Config
  services: Services
  requestId: string
  /** The client's address (src/client-address.ts `addressOf`): the REST face finds it only when asked. */
  ip: AddressSource
  audit: AuditNote
  /** Runs `fn` once the operation's transaction has committed (at once for reads). */
  afterCommit: (fn: () => void) => void
}

/** What `prepare` (and a face, before the executor) sees: no transaction yet. */
export type PrepareCtx<A extends Credential = Credential> = Omit<Ctx<A>, 'sql' | 'audit' | 'afterCommit' | 'tx'>

/** The context of a handler (or a helper of handlers) that only tenant credentials reach. */
export type TenantCtx = Ctx<TenantCredential>

export type OpKind = 'read' | 'write' | 'destroy'

/**
 * What an operation can do to a customer's DNS zone; an agent tool's annotations derive from it
 * (mcp/annotations.ts), so a host deciding what to run without asking reads what the operation can do:
 * - `none`: never asks about or touches a zone;
 * - `looks`: asks DNS or a DNS provider about it, changes nothing in it;
 * - `adds`: may add records to it, never replaces or removes one;
 * - `replaces`: may replace records already in it (an MX, NS, an address at the apex, a TXT in use);
 * - `removes`: takes records out of it.
 */
export type ZoneEffect = 'none' | 'looks' | 'adds' | 'replaces' | 'removes'

const REPLY = Symbol('reply')
export interface Reply<T> {
  [REPLY]: true
  status: number
  body: T
  headers?: Record<string, string>
}
export function reply<T>(status: number, body: T, headers?: Record<string, string>): Reply<T> {
  return { [REPLY]: true, status, body, headers }
}
export function isReply(v: unknown): v is Reply<unknown> {
  return typeof v === 'object' && v !== null && REPLY in v
}

type S<T> = T extends TSchema ? Static<T> : unknown
export type OpInput<P, Q, B, H> = S<P> & S<Q> & S<B> & S<H>

export interface OpDef<
  P extends TObject | undefined,
  Q extends TObject | undefined,
  B extends TObject | undefined,
  H extends TObject | undefined,
  R extends TSchema,
  A extends Credential = Credential,
  Pr = undefined,
> {
  /** Dotted id, `connections.create`; the MCP tool name is the same with `_`. */
  id: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Path under /v1 (or under the root with `root: true`); `{name}` marks a parameter. */
  path: string
  root?: boolean
  summary: string
  description?: string
  tag: string
  /** The credentials accepted; the handler's `ctx.principal` is narrowed to these kinds. */
  auth: A[]
  /** Role permission a tenant API key needs. */
  permission?: Permission
  /** Scope a delegated agent token needs; without it agents cannot call the operation. */
  scope?: string
  /**
   * What agents read about the operation as an MCP tool, and its toolset (src/ops/agent-text.ts):
   * required of every operation agents may call (AGENT in `auth`, a `scope`, not `internal`).
   */
  agent?: AgentText
  /**
   * With WIDGET in `auth` (and only then): which widget tokens may call it (src/ops/authority.ts has the
   * usual sets). `domain` lets a domain-bound token act on its own hostname's connection or domain only;
   * the handler checks the hostname. Any other widget token is refused with 403.
   */
  widget?: readonly WidgetClass[]
  params?: P
  query?: Q
  body?: B
  /** A body may be omitted entirely (treated as `{}`). */
  bodyOptional?: boolean
  headers?: H
  response: R
  /** Success status; handlers may answer another one with `reply()` (listed in `altStatus`). */
  status?: number
  altStatus?: { status: number; description: string }[]
  errors: ErrorCode[]
  kind: OpKind
  /** What the operation can do to a customer's DNS zone: every operation agents may call declares it. */
  zone?: ZoneEffect
  /**
   * A repeat with the same input changes nothing more than the first call did (an agent tool's
   * `idempotentHint` derives from it, mcp/annotations.ts). Not whether the operation takes an
   * `Idempotency-Key`: every authenticated POST that writes does (`acceptsIdempotencyKey` in
   * src/ops/declared.ts; the client lists them as `TAKES_IDEMPOTENCY_KEY`).
   */
  idempotent?: boolean
  /**
   * How a mutation's writes are grouped; either way every write commits with an audit row.
   * - absent: the handler runs inside one transaction, committed with the operation's audit row.
   * - `steps`: the handler calls the outside world between its writes (a DNS provider, the CA, the
   *   payment processor), so no transaction may stay open across it: it runs on the pool, which
   *   refuses writes, and writes only inside `ctx.tx(...)` (or `ctx.db.begin`), each such transaction
   *   committed with an audit row of its own (`details.step`); a last row records the outcome.
   */
  transactions?: 'steps'
  /** A deadline longer than REQUEST_TIMEOUT_MS (a bulk create: BULK_TIMEOUT_MS). */
  deadline?: 'bulk'
  /**
   * The input carries a secret in place of a bearer (a client secret, a share or invitation token):
   * a wrong one (401 or 404) counts against the caller's address like a wrong credential (src/domain/throttle.ts).
   */
  guessable?: boolean
  /** The body's array field whose items each count as one request against the credential's rate limit (a bulk call's `domains`). */
  countsItems?: string
  /** Not offered as an MCP tool (console-server and edge routes). */
  internal?: boolean
  /**
   * The same answer for everyone (GET, no credential): the REST face serves it compressed as accepted,
   * with an ETag, `304` to a client that holds it, and `Cache-Control: public, max-age=<maxAge>`.
   */
  cache?: { maxAge: number }
  /**
   * Outside I/O (DNS lookups, provider calls) done before the operation's transaction opens, so no
   * database connection waits on the network; its result is handed to the handler.
   */
  prepare?: (ctx: PrepareCtx<A>, input: OpInput<P, Q, B, H>) => Promise<Pr>
  /**
   * Returns the response body (or `reply()` for another status). Dates may stand where the schema says
   * date-time strings; in tests every real output is checked against `response` after serialisation.
   */
  handler: (ctx: Ctx<A>, input: OpInput<P, Q, B, H>, prepared: Pr) => Promise<unknown>
}

// The registry stores operations with their schema types erased.
export type AnyOp = OpDef<TObject | undefined, TObject | undefined, TObject | undefined, TObject | undefined, TSchema, Credential, any>

export function defineOp<
  P extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  B extends TObject | undefined = undefined,
  H extends TObject | undefined = undefined,
  R extends TSchema = TSchema,
  A extends Credential = Credential,
  Pr = undefined,
>(op: OpDef<P, Q, B, H, R, A, Pr>): AnyOp {
  const keys = [op.params, op.query, op.body, op.headers].flatMap((s) => (s ? Object.keys(s.properties) : []))
  const dup = keys.find((k, i) => keys.indexOf(k) !== i)
  if (dup) throw new Error(`operation ${op.id}: input field "${dup}" is declared twice`)
  if ((op.auth as Credential[]).includes('WIDGET') !== Boolean(op.widget?.length)) {
    throw new Error(`operation ${op.id}: an operation that accepts WIDGET declares which widget tokens (widget: [...]), and only such an operation`)
  }
  return op as unknown as AnyOp
}
