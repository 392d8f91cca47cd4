// Portico's typed client. Every type comes from the served OpenAPI document (src/generated/, made by
// scripts/generate.ts); this file is the transport: authentication, an Idempotency-Key on every
// operation that takes one (kept across retries, so a retried write is done once), retries that honour
// Retry-After, a per-attempt timeout, typed errors by `code`, and async iteration over cursor pages.
// No runtime dependency beyond `fetch` and Web Crypto.
import type { components, paths } from './generated/openapi.js'
import { TAKES_IDEMPOTENCY_KEY, PAGED, ROOT_PATHS, type ErrorCode, type PagedPath } from './generated/names.js'

export * from './generated/names.js'
export type { paths, components, webhooks, operations } from './generated/openapi.js'
export { verifyWebhook, isEventOf, WebhookVerificationError, type PorticoEvent, type VerifyOptions, type WebhookHeaders } from './webhooks.js'

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
/** The paths that have an operation for `M`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends Record<M, unknown> ? P : never }[keyof paths]
/** The operation at `P` for `M`, as the document declares it. */
export type Operation<P, M extends Method> = P extends keyof paths ? (paths[P] extends Record<M, infer O> ? O : never) : never
type Params<O> = O extends { parameters: infer X } ? X : Record<never, never>
type PathParams<O> = Params<O> extends { path: infer P } ? P : never
type QueryOf<O> = Params<O> extends { query?: infer Q } ? Q : never
type Json<X> = X extends { content: { 'application/json': infer B } } ? B : never
/** The body an operation takes. */
export type RequestBody<O> = O extends { requestBody?: infer R } ? Json<R> : never
/** What an operation answers on success (any 2xx). */
export type Answer<O> = O extends { responses: infer R } ? { [S in keyof R]: S extends 200 | 201 | 202 ? Json<R[S]> : S extends 204 ? undefined : never }[keyof R] : never

export type RequestOptions<O> = {
  query?: QueryOf<O>
  /** Sent as `Idempotency-Key` (default: a fresh one per call, on the operations that take one). */
  idempotencyKey?: string
  signal?: AbortSignal
  /** This call's timeout per attempt, in milliseconds (default: the client's). */
  timeoutMs?: number
} & ([PathParams<O>] extends [never] ? { path?: undefined } : { path: PathParams<O> }) &
  ([RequestBody<O>] extends [never] ? { body?: undefined } : O extends { requestBody: unknown } ? { body: RequestBody<O> } : { body?: RequestBody<O> })

type Args<O> = [PathParams<O>] extends [never] ? ([O] extends [{ requestBody: unknown }] ? [opts: RequestOptions<O>] : [opts?: RequestOptions<O>]) : [opts: RequestOptions<O>]

/** An item of a cursor-paged list. */
export type PageItem<P extends PagedPath> = Answer<Operation<P, 'get'>> extends infer A ? (A extends Record<(typeof PAGED)[P], readonly (infer I)[]> ? I : never) : never

export interface PorticoOptions {
  /** A `ptc_live_`/`ptc_test_` API key, or a widget or agent token; or a function answering one (called per request). */
  apiKey: string | (() => string | Promise<string>)
  /** Where Portico is, without `/v1` (default `https://portico.example`). */
  baseUrl?: string
  /** Per attempt, in milliseconds (default 30 000). */
  timeoutMs?: number
  /** Retries after the first attempt (default 2). */
  maxRetries?: number
  /** The longest Retry-After the client waits out (default 60 000 ms); a longer one is answered as the error. */
  maxRetryDelayMs?: number
  /** A `fetch` of your own (default: the global one). */
  fetch?: Fetch
}

/**
 * A code the client gives itself; Portico never sends it. `unexpected_response`: an answer that is not
 * Portico's `{code, title}` envelope (a proxy's or load balancer's HTML 502, say); `status` is its HTTP
 * status and `details` its `status`, `content_type` and first 200 characters (`body`).
 */
export type ClientErrorCode = 'unexpected_response'
/** Every code a PorticoError may carry: the document's ErrorCode and the client's own. */
export type PorticoErrorCode = ErrorCode | ClientErrorCode
/**
 * `details` as the document's Error schema declares it: for a request whose parts are malformed (a
 * validation `invalid_request`) a list of ValidationIssue; otherwise an object whose `reason` is a
 * catalogue code, with other keys beside it. Tell them apart with `Array.isArray(err.details)`.
 */
export type ErrorDetails = NonNullable<components['schemas']['Error']['details']>
/** One problem of a malformed request: where (`body`, `query`, `path`, `header`), which field, and what is wrong. */
export type ValidationIssue = Extract<ErrorDetails, readonly unknown[]>[number]
type ErrorBody = { code: PorticoErrorCode; title: string; details?: ErrorDetails }

/** An answer of Portico's `{code, title, details?}` envelope, typed by its `code`. */
export class PorticoError<C extends PorticoErrorCode = PorticoErrorCode> extends Error {
  override readonly name = 'PorticoError'
  readonly status: number
  readonly code: C
  readonly title: string
  readonly details: ErrorDetails | undefined
  readonly requestId: string | undefined
  /** The server's Retry-After, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined

  constructor(status: number, body: { code: C; title: string; details?: ErrorDetails }, requestId?: string, retryAfterMs?: number) {
    super(`${status} ${body.code}: ${body.title}`)
    this.status = status
    this.code = body.code
    this.title = body.title
    this.details = body.details
    this.requestId = requestId
    this.retryAfterMs = retryAfterMs
  }

  /** Narrows to one code: `if (err instanceof PorticoError && err.is('rate_limited'))`. */
  is<K extends PorticoErrorCode>(code: K): this is PorticoError<K> {
    return (this.code as string) === code
  }
}

/** No answer: the network failed or the attempt timed out (after the retries the call allowed). */
export class PorticoConnectionError extends Error {
  override readonly name = 'PorticoConnectionError'
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** True when `err` is a Portico error, of `code` when given. */
export function isPorticoError<K extends PorticoErrorCode>(err: unknown, code?: K): err is PorticoError<K> {
  return err instanceof PorticoError && (code === undefined || err.code === code)
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfter(h: string | null, now = Date.now()): number | undefined {
  if (!h) return undefined
  if (/^\d+$/.test(h.trim())) return Number(h.trim()) * 1000
  const at = Date.parse(h)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(t)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })

/** What the client needs of `fetch`. */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>

const KEYED = new Set(TAKES_IDEMPOTENCY_KEY)

export class Portico {
  private readonly opts: Required<Omit<PorticoOptions, 'fetch'>> & { fetch: Fetch }

  constructor(options: PorticoOptions) {
    this.opts = {
      baseUrl: 'https://portico.example',
      timeoutMs: 30_000,
      maxRetries: 2,
      maxRetryDelayMs: 60_000,
      ...options,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    }
    this.opts.baseUrl = this.opts.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
  }

  /** Calls one operation of the document: `request('post', '/connections', { body })`. */
  async request<M extends Method, P extends PathsWith<M>>(method: M, path: P, ...[opts]: Args<Operation<P, M>>): Promise<Answer<Operation<P, M>>> {
    const o = (opts ?? {}) as { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; idempotencyKey?: string; signal?: AbortSignal; timeoutMs?: number }
    const verb = method.toUpperCase()
    let url = `${this.opts.baseUrl}${ROOT_PATHS.includes(String(path)) ? '' : '/v1'}${String(path).replace(/\{(\w+)\}/g, (_, k: string) => {
      const v = o.path?.[k]
      if (v === undefined) throw new TypeError(`path parameter ${k} is missing`)
      return encodeURIComponent(v)
    })}`
    const q = new URLSearchParams()
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined && v !== null) q.set(k, String(v))
    if ([...q].length) url += `?${q}`
    const takesKey = KEYED.has(`${verb} ${String(path)}`)
    const key = takesKey ? (o.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined
    // A read, or a write with its Idempotency-Key, may be sent again whatever happened to the last try.
    const safe = verb === 'GET' || key !== undefined
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.opts.maxRetries
      const token = typeof this.opts.apiKey === 'function' ? await this.opts.apiKey() : this.opts.apiKey
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' }
      if (key) headers['idempotency-key'] = key
      if (o.body !== undefined) headers['content-type'] = 'application/json'
      const timeout = AbortSignal.timeout(o.timeoutMs ?? this.opts.timeoutMs)
      const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout
      // The answer's body is read inside the same attempt: a body that stalls past the timeout, a
      // connection dropped mid-body, or a 2xx that is not JSON (a captive portal) fail the attempt
      // exactly as a failure before the headers does, and are retried the same way.
      let res: Response
      let text: string
      let parsed: unknown
      try {
        res = await this.opts.fetch(url, { method: verb, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal })
        text = await res.text()
        if (res.ok && text) {
          try {
            parsed = JSON.parse(text)
          } catch (err) {
            throw new NotJson(res.status, res.headers.get('content-type'), err)
          }
        }
      } catch (err) {
        if (o.signal?.aborted) throw err
        const timedOut = timeout.aborted
        if (safe && !last) {
          await sleep(backoff(attempt), o.signal)
          continue
        }
        const why = timedOut ? `timed out after ${o.timeoutMs ?? this.opts.timeoutMs} ms` : err instanceof NotJson ? err.message : (err as Error).message
        throw new PorticoConnectionError(`${verb} ${String(path)}: ${why}`, timedOut, { cause: err instanceof NotJson ? err.cause : err })
      }
      if (res.ok) return parsed as Answer<Operation<P, M>>
      const wait = retryAfter(res.headers.get('retry-after'))
      let body: ErrorBody
      try {
        body = JSON.parse(text)
        if (typeof body?.code !== 'string' || typeof body.title !== 'string') throw new Error('not an error envelope')
      } catch {
        // Not Portico's envelope: a proxy or load balancer answered (an HTML 502, say).
        body = {
          code: 'unexpected_response',
          title: `${res.status} ${res.statusText || 'answer'} that is not Portico's error envelope${res.headers.get('content-type') ? ` (${res.headers.get('content-type')})` : ''}`,
          details: { status: res.status, content_type: res.headers.get('content-type'), body: text.slice(0, 200) },
        }
      }
      // 429: nothing was done; 503 and a key still in use: done by nobody yet, or replayed with the key.
      const again = res.status === 429 || (safe && (res.status === 503 || res.status === 502 || res.status === 504 || body.code === 'idempotency_key_in_use'))
      const delay = wait ?? backoff(attempt)
      if (again && !last && delay <= this.opts.maxRetryDelayMs) {
        await sleep(delay, o.signal)
        continue
      }
      throw new PorticoError(res.status, body, res.headers.get('x-request-id') ?? undefined, wait)
    }
  }

  /** Every item of a cursor-paged list, page after page: `for await (const c of portico.paginate('/connections'))`. */
  async *paginate<P extends PagedPath>(path: P, opts: { query?: QueryOf<Operation<P, 'get'>>; signal?: AbortSignal } = {}): AsyncGenerator<PageItem<P>, void, undefined> {
    let cursor: string | undefined = (opts.query as { cursor?: string } | undefined)?.cursor
    do {
      const page = (await (this.request as (m: string, p: string, o: unknown) => Promise<Record<string, unknown>>)('get', path, {
        query: { ...(opts.query ?? {}), ...(cursor ? { cursor } : {}) },
        signal: opts.signal,
      })) as Record<string, unknown> & { next_cursor?: string }
      for (const item of page[PAGED[path]] as PageItem<P>[]) yield item
      cursor = page.next_cursor
    } while (cursor)
  }

  /** Connections: the calls an integration makes most. */
  readonly connections = {
    create: (body: RequestBody<Operation<'/connections', 'post'>>, o: { idempotencyKey?: string } = {}) => this.request('post', '/connections', { body, ...o }),
    get: (id: string) => this.request('get', '/connections/{id}', { path: { id } }),
    list: (query: QueryOf<Operation<'/connections', 'get'>> = {}) => this.paginate('/connections', { query }),
    records: (id: string) => this.request('get', '/connections/{id}/records', { path: { id } }),
    apply: (id: string, body: RequestBody<Operation<'/connections/{id}/apply', 'post'>>) => this.request('post', '/connections/{id}/apply', { path: { id }, body }),
    recheck: (id: string) => this.request('post', '/connections/{id}:recheck', { path: { id } }),
    disconnect: (id: string) => this.request('post', '/connections/{id}:disconnect', { path: { id } }),
  }

  /** Events: every one since a point, oldest first. */
  readonly events = {
    list: (query: QueryOf<Operation<'/events', 'get'>> = {}) => this.paginate('/events', { query }),
  }

  /** Webhook endpoints. */
  readonly webhooks = {
    create: (body: RequestBody<Operation<'/webhooks', 'post'>>) => this.request('post', '/webhooks', { body }),
    list: () => this.request('get', '/webhooks'),
    delete: (id: string) => this.request('delete', '/webhooks/{id}', { path: { id } }),
    rotateSecret: (id: string, body: RequestBody<Operation<'/webhooks/{id}:rotate-secret', 'post'>> = {}) => this.request('post', '/webhooks/{id}:rotate-secret', { path: { id }, body }),
  }
}

/** A 2xx whose body is not JSON: no answer from Portico (a captive portal or a proxy answered). */
class NotJson extends Error {
  constructor(status: number, contentType: string | null, cause: unknown) {
    super(`a ${status} answer whose body is not JSON${contentType ? ` (${contentType})` : ''}`, { cause })
  }
}

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s, ... */
function backoff(attempt: number): number {
  return Math.round(500 * 2 ** attempt * (0.75 + Math.random() / 2))
}
