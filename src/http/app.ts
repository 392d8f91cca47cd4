// The REST face: an Elysia app whose routes come from the operation registry. This file owns the
// wire: request ids, body parsing, credential resolution, the error envelope and the request log.
// Operations never see any of it.
import type { Principal } from '../domain/principal.ts'
import { Elysia } from 'elysia'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Sql } from '../db/sql.ts'
import { randomToken } from '../ids.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json.ts'
import { errorFields, log, logCause, logRequest } from '../logger.ts'
import type { AnyOp } from '../ops/registry.ts'
import { runOp, type OpResult, type RunHooks } from '../ops/run.ts'
import { showHiddenDeep } from '../domain/outside-text.ts'
import { acceptsIdempotencyKey, IDEMPOTENCY_HEADER, withIdempotencyKey } from './idempotency.ts'
import { guarded, guessedSecret, secretValueHashes } from '../domain/throttle.ts'
import { securityHeaders, withSecurityHeaders } from './headers.ts'
import { clientAddress, trustedProxies } from '../client-address.ts'
import { encodeCached, respond } from './encoded.ts'
import type { Services } from '../services.ts'
import { authenticate } from './auth.ts'
import { ApiError } from '../errors.ts'
import { undeclared } from '../ops/declared.ts'
import { Router } from './router.ts'
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

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' }
const CLOSE = { connection: 'close' }
/** Health and readiness answer for themselves when the database is down. */
const PROBES = new Set(['health.get', 'readiness.get'])
/** The status a request is logged with when its client went away first (nginx's "client closed request"). */
const CLIENT_CLOSED = 499
const MAX_BODY_BYTES = 1 << 20

/** A JSON answer with the security headers, the request id and the operation's own headers, in one headers object. */
function json(status: number, body: unknown, secured: Record<string, string>, requestId: string, extra?: Record<string, string>, limits?: Record<string, string>): Response {
  const headers: Record<string, string> = { ...JSON_HEADERS, ...secured, 'x-request-id': requestId }
  if (limits) Object.assign(headers, limits)
  if (extra) Object.assign(headers, extra)
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers })
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A media type a JSON body may be declared as: `application/json` or any `+json`, or none at all. */
const jsonDeclared = (type: string | null) => !type || /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type.trim())

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
  const start = raw.indexOf('/', raw.indexOf('//') + 2)
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

function headerObject(op: AnyOp, headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(op.headers?.properties ?? {})) {
    const v = headers.get(name)
    if (v !== null) out[name] = v
  }
  return out
}

export function buildRouter(ops: AnyOp[]): Router<AnyOp> {
  const router = new Router<AnyOp>()
  for (const op of ops) router.add(op.method, fullPath(op), op)
  return router
}

export function createHandler(deps: AppDeps) {
  const router = buildRouter(deps.ops)

  // The client's address: the socket peer, or behind TRUST_PROXY the address the proxies forwarded for.
  const trusted = trustedProxies(deps.config.trustProxy, deps.config.trustProxyHeader)
  const secured = securityHeaders(deps.config)

  return async function handle(req: Request, peer: string | null): Promise<Response> {
    const ip = clientAddress(req.headers, peer, trusted)
    const started = performance.now()
    const url = splitUrl(req.url)
    const incoming = req.headers.get('x-request-id')
    const requestId = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : nextRequestId()
    let status = 500
    let opId: string | undefined
    let matched: AnyOp | undefined
    // An agent's answers show hidden characters escaped, as its MCP tools do (src/domain/outside-text.ts).
    let forAgent = false
    const shown = <T>(body: T): T => (forAgent ? showHiddenDeep(body) : body)
    // The credential's RateLimit fields, once counted: on the answer whatever it is (src/domain/rate-limits.ts).
    let limits: Record<string, string> | undefined
    // The credential once verified: an answer refused before its operation ran (413, 415, 422) is counted too.
    let verified: Principal | undefined
    try {
      const m = router.match(req.method, url.path)
      if (m === null) throw new ApiError('not_found', 'No such route')
      if (m === 'method') {
        throw new ApiError('method_not_allowed', `Use ${router.allowed(url.path).join(', ')} on this path`, undefined, {
          headers: { allow: router.allowed(url.path).join(', ') },
        })
      }
      const op = m.value
      opId = op.id
      matched = op
      // The database was found unreachable or silent moments ago and is being probed: answer at once.
      const database = deps.services.database
      if (database && !database.reachable && !PROBES.has(op.id)) throw databaseRefusal(database.downBecause ?? 'unreachable')
      // The deadline covers the credential lookup too: a database that does not answer is a 503, not a hang.
      const deadline = new Deadline(op.deadline === 'bulk' ? deps.config.deadlines.bulkMs : deps.config.deadlines.requestMs, undefined, database)
      const result: OpResult = await deadline.race(
        (async () => {
          const principal = await againOnEndedSession(() => authenticate(deps, req.headers, op.auth, req, ip))
          verified = principal
          forAgent = principal.kind === 'AGENT'
          const body = op.body || req.method !== 'GET' ? await readBody(req) : undefined
          if (!op.body && body !== undefined && !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) {
            throw new ApiError('invalid_request', 'This operation takes no body')
          }
          const raw = { params: m.params, query: url.query, body, headers: headerObject(op, req.headers) }
          const onLimits = (h: Record<string, string>) => (limits = h)
          const run = (hooks?: RunHooks) => runOp(op, { principal, db: deps.db, clock: deps.clock, config: deps.config, services: deps.services, requestId, ip, deadline, onLimits }, raw, hooks)
          const idemKey = acceptsIdempotencyKey(op) ? req.headers.get(IDEMPOTENCY_HEADER) : null
          const exec = () => (idemKey === null ? run() : withIdempotencyKey(deps, op, principal, idemKey, raw, run))
          return op.guessable ? guarded(deps.services.throttle, ip, exec, guessedSecret(m.params, body), secretValueHashes(m.params, body)) : exec()
        })(),
      )
      status = result.status
      if (database && matched.kind !== 'read' && status < 300) database.wrote()
      // A stopping process closes each connection after its answer, so the client's next request opens
      // one to a process that stays.
      const closing = deps.services.lifecycle?.stopping ? CLOSE : undefined
      if (op.cache && result.status === 200 && req.method === 'GET') {
        const r = respond(req, encodeCached(JSON.stringify(result.body)), { ...JSON_HEADERS, ...secured, 'cache-control': `public, max-age=${op.cache.maxAge}`, 'x-request-id': requestId, ...result.headers, ...closing })
        status = r.status
        return r
      }
      return json(result.status, shown(result.body), secured, requestId, closing ? { ...result.headers, ...closing } : result.headers, limits)
    } catch (err) {
      // A client that went away before its request was read is not an error of ours (logged 499, as nginx does).
      if (req.signal.aborted && !(err instanceof ApiError)) {
        status = CLIENT_CLOSED
        return json(CLIENT_CLOSED, { code: 'invalid_request', title: 'The client closed the connection' }, secured, requestId)
      }
      const failure = databaseFailure(err)
      if (failure === 'unreachable') deps.services.database?.failed(err)
      else if (failure === 'read_only' || failure === 'full') deps.services.database?.refused(failure)
      // Refused after the credential verified but before the operation counted it (a body too large or of the
      // wrong type, an idempotency key reused): counted now, so the answer says where the credential stands.
      if (limits === undefined && verified !== undefined) limits = deps.services.rateLimits?.take(verified)?.headers
      const e = undeclared(matched, toApiError(err, requestId, opId), deps.config.appEnv === 'test')
      status = e.status
      const closingErr = deps.services.lifecycle?.stopping ? CLOSE : undefined
      return json(e.status, shown(e.body()), secured, requestId, closingErr ? { ...e.headers, ...closingErr } : e.headers, limits)
    } finally {
      const ms = performance.now() - started
      observeRequest(opId ?? 'none', status, ms / 1000)
      logRequest(req.method, url.path, opId, status, Math.round(ms * 100) / 100, requestId)
    }
  }
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

/** Other faces (MCP, the OAuth server, the widget bundle) add their own routes through `mounts`. */
export type Mount = (app: Elysia) => Elysia

export function createApp(deps: AppDeps, mounts: Mount[] = []) {
  const handle = createHandler(deps)
  const route = ({ request, server }: { request: Request; server: { requestIP(r: Request): { address: string } | null } | null }) =>
    handle(request, server?.requestIP(request)?.address ?? null)
  const secured = securityHeaders(deps.config)
  // Every face's answers (pages, OAuth, MCP, the widget bundle) carry the security headers too.
  let app = new Elysia()
  app.onAfterHandle({ as: 'global' }, ({ response }) => (response instanceof Response ? withSecurityHeaders(response, secured) : undefined))
  for (const mount of mounts) app = mount(app)
  return app.all('/v1/*', route, { parse: 'none' }).all('/healthz', route, { parse: 'none' }).all('/readyz', route, { parse: 'none' }).all('*', route, { parse: 'none' })
}
