// The operation registry ("One operation, three faces", DESIGN.md). Each operation is declared once:
// id, method and path, the credentials it accepts, the role permission or agent scope it needs, its
// input and output schemas, the errors it can answer and its handler. The REST routes, the OpenAPI
// document and the MCP tools are all generated from this list; handlers never see HTTP.
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Sql } from '../db/sql.ts'
import type { MemberRole, Permission } from '../domain/rbac.ts'
import type { ErrorCode } from '../http/errors.ts'
import type { Services } from '../services.ts'

export type Credential = 'MGMT' | 'PROV' | 'KEY' | 'WIDGET' | 'AGENT' | 'EDGE' | 'NONE'

export type Principal =
  | { kind: 'NONE' }
  | { kind: 'MGMT' }
  | { kind: 'PROV' }
  | { kind: 'EDGE' }
  | { kind: 'KEY'; tenantId: string; keyId: string; role: MemberRole; applicationId: string | null }
  | { kind: 'WIDGET'; tenantId: string; applicationId: string; scope: 'connect' | 'app'; boundHost: string | null; tokenId: string }
  | { kind: 'AGENT'; tenantId: string; clientId: string; subject: string; scopes: string[] }

export type TenantPrincipal = Extract<Principal, { tenantId: string }>

/** What the handler may record about itself in the audit log. */
export interface AuditNote {
  tenantId?: string | null
  targetId?: string | null
  details?: Record<string, unknown>
}

export interface Ctx {
  principal: Principal
  /** Inside a mutation this is the operation's transaction; reads get the pool. */
  sql: Sql
  /** The pool, for work that must not ride the operation's transaction. */
  db: Sql
  clock: Clock
  config: Config
  services: Services
  requestId: string
  ip: string | null
  audit: AuditNote
  /** Runs `fn` once the operation's transaction has committed (at once for reads). */
  afterCommit: (fn: () => void) => void
}

export type OpKind = 'read' | 'write' | 'destroy'

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

export interface OpDef<P extends TObject | undefined, Q extends TObject | undefined, B extends TObject | undefined, H extends TObject | undefined, R extends TSchema> {
  /** Dotted id, `connections.create`; the MCP tool name is the same with `_`. */
  id: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Path under /v1 (or under the root with `root: true`); `{name}` marks a parameter. */
  path: string
  root?: boolean
  summary: string
  description?: string
  tag: string
  auth: Credential[]
  /** Role permission a tenant API key needs. */
  permission?: Permission
  /** Scope a delegated agent token needs; without it agents cannot call the operation. */
  scope?: string
  /** Widget tokens must carry this scope (`app`); connect-scoped tokens get 403. */
  widgetScope?: 'app'
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
  idempotent?: boolean
  /** Mutations run in one transaction with their audit row unless this is false. */
  transaction?: boolean
  /** Not offered as an MCP tool (console-server and edge routes). */
  internal?: boolean
  /**
   * Outside I/O (DNS lookups, provider calls) done before the operation's transaction opens, so no
   * database connection waits on the network; its result is handed to the handler.
   */
  prepare?: (ctx: Omit<Ctx, 'sql' | 'audit' | 'afterCommit'>, input: OpInput<P, Q, B, H>) => Promise<unknown>
  /**
   * Returns the response body (or `reply()` for another status). Dates may stand where the schema says
   * date-time strings; in tests every real output is checked against `response` after serialisation.
   */
  handler: (ctx: Ctx, input: OpInput<P, Q, B, H>, prepared: any) => Promise<unknown>
}

// The registry stores operations with their schema types erased.
export type AnyOp = OpDef<TObject | undefined, TObject | undefined, TObject | undefined, TObject | undefined, TSchema>

export function defineOp<
  P extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  B extends TObject | undefined = undefined,
  H extends TObject | undefined = undefined,
  R extends TSchema = TSchema,
>(op: OpDef<P, Q, B, H, R>): AnyOp {
  const keys = [op.params, op.query, op.body, op.headers].flatMap((s) => (s ? Object.keys(s.properties) : []))
  const dup = keys.find((k, i) => keys.indexOf(k) !== i)
  if (dup) throw new Error(`operation ${op.id}: input field "${dup}" is declared twice`)
  return op as unknown as AnyOp
}

export function principalTenant(p: Principal): string | null {
  return 'tenantId' in p ? p.tenantId : null
}
