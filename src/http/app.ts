// The REST face: an Elysia app whose routes come from the operation registry. This file owns the
// wire: request ids, body parsing, credential resolution, the error envelope and the request log.
// Operations never see any of it.
import type { Principal } from '../domain/principal.ts'
import { Elysia } from 'elysia'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Sql } from '../db/sql.ts'
import { randomToken } from '../ids.ts'
import { jsonText, MAX_JSON_DEPTH, nestsDeeperThan, representationsOf } from '../json.ts'
import { errorFields, log, logCause, logRequest } from '../logger.ts'
import type { AnyOp } from '../ops/registry.ts'
import { runOp, type OpResult, type RunCtx, type RunHooks } from '../ops/run.ts'
import { showHiddenDeep } from '../domain/outside-text.ts'
import { acceptsIdempotencyKey, IDEMPOTENCY_HEADER, withIdempotencyKey } from './idempotency.ts'
import { guarded, guessedSecret, secretValueHashes } from '../domain/throttle.ts'
import { securityHeaders, withSecurityHeaders } from './headers.ts'
import { clientAddress, trustedProxies, type TrustProxy } from '../client-address.ts'
import { COMPRESS_FROM, compressed, encodeCached, headAnswer, lateBody, respond, utf8Of } from './encoded.ts'
import { hostAcceptable, IDENTITY_ONLY, jsonDeclared, pathStart, undecodedCoding } from './request-headers.ts'
import type { Services } from '../services.ts'
import { authenticate, cachedApiKey } from './auth.ts'
import { ApiError } from '../errors.ts'
import { undeclared } from '../ops/declared.ts'
import { METHOD_ORDER, Router, type Match } from './router.ts'
import { observeRequest } from '../metrics.ts'
import { Deadline, databaseRefusal } from '../ops/deadline.ts'
import { againOnEndedSession, databaseFailure } from '../db/unavailable.ts'

export interface AppDeps {
  config: Config
  db: Sql
  clock: Clock
  services: Services
  ops: AnyOp[]
}

export const API_BASE = '/v1'

export function fullPath(op: AnyOp): string {
  return op.root ? op.path : API_BASE + op.path
}

/**
 * Every JSON answer but the cacheable catalogs (`op.cache`): not to be stored by any cache, a browser's
 * or a shared one (a share link's read carries its token in the URL and no credential).
 */
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }
const CLOSE = { connection: 'close' }
/** Health and readiness answer for themselves when the database is down. */
const PROBES = new Set(['health.get', 'readiness.get'])
/** The status a request is logged with when its client went away first (nginx's "client closed request"). */
const CLIENT_CLOSED = 499
const MAX_BODY_BYTES = 1 << 20

/**
 * A JSON answer: the JSON and security headers, the request id, the credential's RateLimit fields
 * (unless `withLimits` is false) and the operation's own headers, in one headers object.
 */
function json(s: HandlerState, x: Exchange, status: number, body: unknown, extra: Record<string, string> | undefined, closing: boolean, withLimits = true): Response {
  // A copy of the prebuilt Headers with the few per-request fields set: cheaper than spreading an
  // object of ten entries that the Response then converts (about 1 µs a request).
  const headers = new Headers(s.baseHeaders)
  headers.set('x-request-id', x.requestId)
  if (withLimits && x.limits) for (const k in x.limits) headers.set(k, x.limits[k]!)
  if (extra) for (const k in extra) headers.set(k, extra[k]!)
  if (closing) headers.set('connection', 'close')
  if (status === 204) return new Response(null, { status, headers })
  const shown = x.forAgent ? showHiddenDeep(body) : body
  const text = jsonText(shown)!
  if (text.length < COMPRESS_FROM) return new Response(text, { status, headers })
  // A large answer (a list page) goes compressed to a client that accepts it (src/http/encoded.ts), and
  // to one that does not in a body Bun sends in one write (`lateBody`); an answer served again as it
  // is (an unchanged page) is encoded once.
  headers.set('vary', 'accept-encoding')
  const kept = representationsOf(shown)
  const coded = compressed(text, x.req.headers.get('accept-encoding'), kept)
  if (coded === null) return new Response(lateBody(kept ? utf8Of(text, kept) : text), { status, headers })
  headers.set('content-encoding', coded.coding)
  return new Response(lateBody(coded.body), { status, headers })
}

const utf8 = new TextDecoder('utf-8', { fatal: true })


const tooLarge = () => new ApiError('payload_too_large', 'The body is too large (1 MiB at most)')

/** The body's bytes, refused with 413 past MAX_BODY_BYTES: at once when its length says so, else as soon as it has sent that much. */
async function bodyBytes(req: Request): Promise<Uint8Array> {
  const declared = req.headers.get('content-length')
  if (declared !== null) {
    if (Number(declared) > MAX_BODY_BYTES) throw tooLarge()
    return new Uint8Array(await req.arrayBuffer())
  }
  if (!req.body) return new Uint8Array(0)
  // Chunked: read it as it comes and stop at the limit, without holding more.
  const reader = req.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

async function readBody(req: Request): Promise<unknown> {
  const bytes = await bodyBytes(req)
  if (bytes.byteLength === 0) return undefined
  const coding = undecodedCoding(req.headers)
  if (coding !== null) throw codingRefused(coding)
  const type = req.headers.get('content-type')
  if (!jsonDeclared(type)) throw new ApiError('unsupported_media_type', `The body is declared as ${type!.split(';')[0]!.trim()}; send JSON with Content-Type: application/json`)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid UTF-8')
  }
  if (text.trim() === '') return undefined
  if (nestsDeeperThan(text)) throw new ApiError('invalid_request', `The body nests deeper than ${MAX_JSON_DEPTH} levels`)
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid JSON')
  }
}

/** Path and query of a request URL without building a URL object (this runs on every request). */
export function splitUrl(raw: string): { path: string; query: Record<string, string> } {
  const start = pathStart(raw)
  if (start < 0) return { path: '/', query: {} }
  const q = raw.indexOf('?', start)
  const hash = raw.indexOf('#', start)
  const end = hash < 0 ? raw.length : hash
  const path = raw.slice(start, q < 0 || q > end ? end : q)
  const query: Record<string, string> = {}
  if (q >= 0 && q < end) for (const [k, v] of new URLSearchParams(raw.slice(q + 1, end))) query[k] = v
  return { path, query }
}

// Request ids: a per-process random prefix and a counter; unique across processes without a random
// draw per request.
const ID_PREFIX = `req_${randomToken(6)}`
let idCounter = 0
const nextRequestId = () => `${ID_PREFIX}${(++idCounter).toString(36)}`
const REQUEST_ID = /^[\w.-]{1,64}$/
/** The request's id: the client's X-Request-Id when well-formed, else a new one. */
function requestIdOf(req: Request): string {
  const incoming = req.headers.get('x-request-id')
  return incoming !== null && REQUEST_ID.test(incoming) ? incoming : nextRequestId()
}

export function buildRouter(ops: AnyOp[]): Router<AnyOp> {
  const router = new Router<AnyOp>()
  for (const op of ops) router.add(op.method, fullPath(op), op)
  return router
}

/** What each operation's requests need that does not change between requests: worked out once, at start. */
interface OpPlan {
  deadlineMs: number
  /** The operation's declared headers, read into its input. */
  headerNames: string[]
  idempotent: boolean
}

function planOf(op: AnyOp, config: Config): OpPlan {
  return {
    deadlineMs: op.deadline === 'bulk' ? config.deadlines.bulkMs : config.deadlines.requestMs,
    headerNames: Object.keys(op.headers?.properties ?? {}),
    idempotent: acceptsIdempotencyKey(op),
  }
}

function headerObject(names: string[], headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of names) {
    const v = headers.get(name)
    if (v !== null) out[name] = v
  }
  return out
}

/** What one handler holds for all its requests. */
interface HandlerState {
  deps: AppDeps
  router: Router<AnyOp>
  plans: Map<AnyOp, OpPlan>
  /** The client's address: the socket peer, or behind TRUST_PROXY the address the proxies forwarded for. */
  trusted: TrustProxy
  secured: Record<string, string>
  /** The JSON headers with the security headers: what every answer starts from. */
  base: Record<string, string>
  /** `base` as a Headers, copied for each JSON answer. */
  baseHeaders: Headers
  /** The methods the other faces' routes (`mounts`) answer on a path, for a 405's Allow: set once they are mounted. */
  mounted: (path: string) => string[]
}

/** The methods Elysia routes answer on a path, from its route table (`:param` one segment, `*` the rest); HEAD beside GET. */
export function mountedMethods(routes: readonly { method: string; path: string }[]): (path: string) => string[] {
  const table = routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, re: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+').replace(/\*/g, '.*')}$`) }))
  return (path) => {
    const methods = new Set(table.filter((r) => r.re.test(path)).map((r) => r.method))
    if (methods.has('GET')) methods.add('HEAD')
    return METHOD_ORDER.filter((m) => methods.has(m))
  }
}

/** One request's state as it goes: what the log, the metrics and the answer's headers need. */
interface Exchange {
  req: Request
  /** The client's address, found on first use: the socket peer's costs a system call. */
  ip: ClientAddress
  requestId: string
  path: string
  status: number
  op: AnyOp | undefined
  /** An agent's answers show hidden characters escaped, as its MCP tools do (src/domain/outside-text.ts). */
  forAgent: boolean
  /** The credential's RateLimit fields, once counted: on the answer whatever it is (src/domain/rate-limits.ts). */
  limits: Record<string, string> | undefined
  /** The credential once verified: an answer refused before its operation ran (413, 415, 422) is counted too. */
  verified: Principal | undefined
}

/** A route already matched (the server's fast path matches before choosing the handler), with the URL it split to do so. */
export type Matched = (Match<AnyOp> & { url?: SplitUrl }) | 'method' | null

type SplitUrl = ReturnType<typeof splitUrl>

/** The socket peer's address, or the server to ask for it when first needed (`server.requestIP`). */
export type Peer = string | null | PeerServer

export type Handle = ((req: Request, peer: Peer, matched?: Matched) => Promise<Response>) & {
  /** The operation route of a request, when one is: the server answers those without Elysia. */
  match(req: Request): Matched
  /** Told the other faces' routes once they are mounted (createApp): a path of theirs asked with another method is a 405. */
  mounted(routes: readonly { method: string; path: string }[]): void
}

export function createHandler(deps: AppDeps): Handle {
  const secured = securityHeaders(deps.config)
  const s: HandlerState = {
    deps,
    router: buildRouter(deps.ops),
    plans: new Map(deps.ops.map((op) => [op, planOf(op, deps.config)])),
    trusted: trustedProxies(deps.config.trustProxy, deps.config.trustProxyHeader),
    secured,
    base: { ...JSON_HEADERS, ...secured },
    baseHeaders: new Headers({ ...JSON_HEADERS, ...secured }),
    mounted: () => [],
  }
  const handle = (req: Request, peer: Peer, matched?: Matched) => handleRequest(s, req, peer, matched)
  const match = (req: Request): Matched => {
    const url = splitUrl(req.url)
    const m = s.router.match(req.method, url.path)
    return m === null || m === 'method' ? m : { value: m.value, params: m.params, url }
  }
  const mounted = (routes: readonly { method: string; path: string }[]) => {
    s.mounted = mountedMethods(routes)
  }
  return Object.assign(handle, { match, mounted })
}

/** A request's client address, worked out once when first asked: the peer (a system call when the server must be asked), then the trusted proxies' header. */
class ClientAddress {
  private found: string | null | undefined
  constructor(
    private readonly req: Request,
    private readonly peer: Peer,
    private readonly trusted: TrustProxy,
  ) {}

  address(): string | null {
    if (this.found === undefined) {
      const peer = this.peer
      this.found = clientAddress(this.req.headers, typeof peer === 'object' && peer !== null ? (peer.requestIP(this.req)?.address ?? null) : peer, this.trusted)
    }
    return this.found
  }
}

async function handleRequest(s: HandlerState, req: Request, peer: Peer, matched?: Matched): Promise<Response> {
  const started = performance.now()
  const url = (matched && matched !== 'method' && matched.url) || splitUrl(req.url)
  const x: Exchange = {
    req,
    ip: new ClientAddress(req, peer, s.trusted),
    requestId: requestIdOf(req),
    path: url.path,
    status: 500,
    op: undefined,
    forAgent: false,
    limits: undefined,
    verified: undefined,
  }
  try {
    return await answer(s, x, matched === undefined ? s.router.match(req.method, url.path) : matched, url.query)
  } catch (err) {
    return failed(s, x, err)
  } finally {
    const ms = performance.now() - started
    observeRequest(x.op?.id ?? 'none', x.status, ms / 1000)
    logRequest(req.method, url.path, x.op?.id, x.status, Math.round(ms * 100) / 100, x.requestId)
  }
}

/** The operation's answer, or a throw for `failed` to answer. */
async function answer(s: HandlerState, x: Exchange, m: Matched, query: Record<string, string>): Promise<Response> {
  if (!hostAcceptable(x.req.headers)) throw hostRefused()
  if (m === null) {
    const allow = s.mounted(x.path).join(', ')
    if (allow) throw new ApiError('method_not_allowed', `Use ${allow} on this path`, undefined, { headers: { allow } })
    throw new ApiError('not_found', 'No such route')
  }
  if (m === 'method') {
    const allow = s.router.allowed(x.path).join(', ')
    throw new ApiError('method_not_allowed', `Use ${allow} on this path`, undefined, { headers: { allow } })
  }
  const op = m.value
  x.op = op
  // A write's audit row and a guessable operation's throttle need the address: asked for now, while the
  // client is surely connected (the peer of a socket that has closed is unknown), not when the row is written.
  if (op.kind !== 'read' || op.guessable) x.ip.address()
  const deps = s.deps
  // The database was found unreachable or silent moments ago and is being probed: answer at once.
  const database = deps.services.database
  if (database && !database.reachable && !PROBES.has(op.id)) throw databaseRefusal(database.downBecause ?? 'unreachable')
  // The deadline covers the credential lookup too: a database that does not answer is a 503, not a hang.
  const plan = s.plans.get(op)!
  const deadline = new Deadline(plan.deadlineMs, undefined, database)
  const result = await deadline.race(run(s, x, op, plan, m.params, query, deadline))
  x.status = result.status
  if (database && op.kind !== 'read' && result.status < 300) database.wrote()
  // A stopping process closes each connection after its answer, so the client's next request opens
  // one to a process that stays.
  const closing = deps.services.lifecycle?.stopping === true
  if (op.cache && result.status === 200 && op.method === 'GET') {
    // Public and cacheable by shared caches: the CORS grant goes on every copy, not only on those a
    // browser asked for, or a cache that stored a server's copy would serve browsers one without it.
    const r = respond(x.req, encodeCached(JSON.stringify(result.body)), { ...s.base, 'cache-control': `public, max-age=${op.cache.maxAge}`, 'access-control-allow-origin': '*', 'x-request-id': x.requestId, ...result.headers, ...(closing ? CLOSE : undefined) })
    x.status = r.status
    return r
  }
  return json(s, x, result.status, result.body, result.headers, closing)
}

/** The credential, the body and the operation itself (with its Idempotency-Key and guess throttle), under the request's deadline. */
async function run(s: HandlerState, x: Exchange, op: AnyOp, plan: OpPlan, params: Record<string, string>, query: Record<string, string>, deadline: Deadline): Promise<OpResult> {
  const { deps } = s
  const req = x.req
  const principal = cachedApiKey(deps, req.headers, op.auth, x.ip) ?? (await againOnEndedSession(() => authenticate(deps, req.headers, op.auth, req, x.ip)))
  x.verified = principal
  x.forAgent = principal.kind === 'AGENT'
  const body = op.body || op.method !== 'GET' ? await readBody(req) : undefined
  if (!op.body && body !== undefined && !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) {
    throw new ApiError('invalid_request', 'This operation takes no body')
  }
  const raw = { params, query, body, headers: plan.headerNames.length ? headerObject(plan.headerNames, req.headers) : {} }
  const ctx: RunCtx = { principal, db: deps.db, clock: deps.clock, config: deps.config, services: deps.services, requestId: x.requestId, ip: x.ip, deadline, onLimits: (h) => (x.limits = h) }
  const idemKey = plan.idempotent ? req.headers.get(IDEMPOTENCY_HEADER) : null
  if (idemKey === null && !op.guessable) return runOp(op, ctx, raw)
  const exec = () => (idemKey === null ? runOp(op, ctx, raw) : withIdempotencyKey(deps, op, principal, idemKey, raw, (hooks?: RunHooks) => runOp(op, ctx, raw, hooks)))
  return op.guessable ? guarded(deps.services.throttle, x.ip.address(), exec, guessedSecret(params, body), secretValueHashes(params, body)) : exec()
}

/** The error envelope of anything thrown while answering. */
function failed(s: HandlerState, x: Exchange, err: unknown): Response {
  const { deps } = s
  // A client that went away before its request was read is not an error of ours (logged 499, as nginx does).
  if (x.req.signal.aborted && !(err instanceof ApiError)) {
    x.status = CLIENT_CLOSED
    x.forAgent = false
    return json(s, x, CLIENT_CLOSED, { code: 'invalid_request', title: 'The client closed the connection' }, undefined, false, false)
  }
  const failure = databaseFailure(err)
  if (failure === 'unreachable') deps.services.database?.failed(err)
  else if (failure === 'read_only' || failure === 'full') deps.services.database?.refused(failure)
  // Refused after the credential verified but before the operation counted it (a body too large or of the
  // wrong type, an idempotency key reused): counted now, so the answer says where the credential stands.
  if (x.limits === undefined && x.verified !== undefined) x.limits = deps.services.rateLimits?.take(x.verified)?.headers
  const e = undeclared(x.op, toApiError(err, x.requestId, x.op?.id), deps.config.appEnv === 'test')
  x.status = e.status
  return json(s, x, e.status, e.body(), e.headers, deps.services.lifecycle?.stopping === true)
}

/**
 * The one mapper from anything thrown to the contract's envelope; causes go to the log only (with the
 * request id). A database that cannot be reached is 503 with Retry-After, never 500.
 */
export function toApiError(err: unknown, requestId: string, opId?: string): ApiError {
  if (err instanceof ApiError) {
    logCause(err, { request_id: requestId, op: opId, code: err.code })
    return err
  }
  const failure = databaseFailure(err)
  if (failure) {
    log.warn('database unavailable', { request_id: requestId, op: opId, failure, ...errorFields(err) })
    return databaseRefusal(failure)
  }
  log.error('unhandled error', { request_id: requestId, op: opId, ...errorFields(err) })
  return new ApiError('internal_error')
}

/** A body declared in a content coding Portico does not decode: 415, saying only identity is read (request-headers.ts). */
const codingRefused = (coding: string) => new ApiError('unsupported_media_type', `The body is declared as ${coding}-encoded; send it without Content-Encoding`, undefined, { headers: IDENTITY_ONLY })

/** What refuses a request to the other faces before any of them reads it: a malformed Host, a body in a coding not read. */
function refusedAtTheDoor(req: Request): ApiError | null {
  if (!hostAcceptable(req.headers)) return hostRefused()
  const withBody = Number(req.headers.get('content-length') ?? 0) > 0 || req.headers.has('transfer-encoding')
  const coding = withBody ? undecodedCoding(req.headers) : null
  return coding === null ? null : codingRefused(coding)
}

/** RFC 9112 section 3.2: a request with a malformed Host, or several, is answered 400 (request-headers.ts). */
const hostRefused = () => new ApiError('invalid_request', 'The Host header is not one host (RFC 9112 section 3.2)')

/** Other faces (MCP, the OAuth server, the widget bundle) add their own routes through `mounts`. */
export type Mount = (app: Elysia) => Elysia

export function createApp(deps: AppDeps, mounts: Mount[] = []) {
  const handle = createHandler(deps)
  const route = ({ request, server }: { request: Request; server: PeerServer | null }) => handle(request, server)
  // An operation's request is answered without Elysia's pipeline (its hooks add nothing to an operation's
  // answer, which carries the security headers already): a browser's (Origin, preflight) still goes
  // through it for CORS (src/widget/route.ts), and so does any path no operation has.
  const fast = (request: Request, server: PeerServer) => {
    if (request.method !== 'OPTIONS' && !request.headers.has('origin')) {
      const m = handle.match(request)
      if (m !== null && m !== 'method') return request.method === 'HEAD' ? headAnswer(handle(request, server, m)) : handle(request, server, m)
    }
    return others(request, server)
  }
  const routable = elysiaRoutable(deps.config.publicUrl)
  const others = (request: Request, server: PeerServer) => app.fetch(routable(request, server))
  const secured = securityHeaders(deps.config)
  // Every face's answers (pages, OAuth, MCP, the widget bundle) carry the security headers too.
  let app = new Elysia({ serve: { routes: { '/v1/*': fast, '/*': others } } as never })
  // The other faces' routes refuse a malformed Host, and a body in a coding Portico does not read, as the
  // operations do (`answer`, `readBody`).
  app.onRequest(({ request }) => {
    const refused = refusedAtTheDoor(request)
    return refused === null ? undefined : Response.json(refused.body(), { status: refused.status, headers: { ...secured, ...refused.headers, 'cache-control': 'no-store', 'x-request-id': requestIdOf(request) } })
  })
  // Their answers carry a request id too, the client's own when it sent a well-formed one (as `handleRequest`).
  // A HEAD is told its length where its GET is chunked (`headAnswer`): the runtime answers HEAD on these
  // routes itself, with what their GET handler made.
  app.onAfterHandle({ as: 'global' }, ({ request, response }) => {
    if (!(response instanceof Response)) return undefined
    const res = withSecurityHeaders(response, response.headers.has('x-request-id') ? secured : { ...secured, 'x-request-id': requestIdOf(request) })
    return request.method === 'HEAD' ? headAnswer(res) : res
  })
  for (const mount of mounts) app = mount(app)
  handle.mounted(app.routes)
  return app.all('/v1/*', route, { parse: 'none' }).all('/healthz', route, { parse: 'none' }).all('/readyz', route, { parse: 'none' }).all('*', route, { parse: 'none' })
}

interface PeerServer {
  requestIP(r: Request): { address: string } | null
}

/**
 * Elysia finds a request's path at the first `/` from the URL's twelfth character (`http://` and a
 * host of four): a request whose Host is shorter (`api`, as a proxy may name its upstream) or absent
 * (HTTP/1.0) would be routed by a piece of its path, and /oauth and /mcp answered 404; and a Host no URL
 * parser takes (`256.256.256.256`, a port past 65535) is still one host by RFC 3986's grammar, while
 * the faces behind Elysia (OAuth, the pages) parse the URL. Such a request is handed to Elysia with
 * PUBLIC_URL's origin (Portico builds no link from Host); its client address stays its socket's, which
 * the server is taught to answer for the copy.
 */
function elysiaRoutable(publicUrl: string): (req: Request, server: PeerServer) => Request {
  const origin = new URL(publicUrl).origin
  const peers = new WeakMap<Request, { address: string } | null>()
  const taught = new WeakSet<PeerServer>()
  return (req, server) => {
    const raw = req.url
    const start = pathStart(raw)
    if (start >= 11 && URL.canParse(raw)) return req
    const copy = new Request(origin + (start < 0 ? '/' : raw.slice(start)), req)
    peers.set(copy, server.requestIP(req))
    if (!taught.has(server)) {
      const own = server.requestIP.bind(server)
      server.requestIP = (r) => (peers.has(r) ? peers.get(r)! : own(r))
      taught.add(server)
    }
    return copy
  }
}
