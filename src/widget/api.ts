// The widget's HTTP client: bearer-token calls to Portico's browser-facing endpoints (the API contract
// section 5 rule 1) and the mapping of failures onto the SDK's error codes (section 6). Every failure
// becomes an `ApiFailure` carrying both the API envelope (for step events) and the SDK code (for onError).
import type { DnsRecordIn, ErrorCode, StepError } from './types.ts'
import { atGateway } from './machine.ts'

export class ApiFailure extends Error {
  constructor(
    readonly sdkCode: ErrorCode,
    readonly envelope: StepError,
    readonly status: number,
    /** A 401 whose token has not expired yet while getToken may still give one (it failed this time): worth asking again. */
    readonly renewable = false,
  ) {
    super(envelope.title)
  }
}

function sdkCodeFor(status: number, code: string): ErrorCode {
  if (status === 401) return 'SessionError'
  if (status === 403 || code === 'access_denied') return 'AccessDeniedError'
  if (status === 429) return 'RateLimitError'
  if (code === 'ProviderAuthenticationError' || code === 'dns_write_failed') return 'ProviderError'
  return 'GenericError'
}

export interface Client {
  call<T = any>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T>
}

/** An aborted call: its answer is no longer wanted (the state that asked was left). */
export const isAbort = (err: unknown) => (err as { name?: unknown } | null)?.name === 'AbortError'

/** Renew a token this long before it expires, or half its lifetime when that is shorter. */
export const RENEW_BEFORE_MS = 60_000
/** A token with more than this left still carries a request while its renewal is under way. */
export const STILL_GOOD_MS = 15_000

/** When a widget token (a JWT) expires and was issued, in ms since the epoch; null when it does not say. */
export function timesOf(token: string): { exp: number; iat: number | null } | null {
  try {
    const part = token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')
    const { exp, iat } = JSON.parse(atob(part + '='.repeat((4 - (part.length % 4)) % 4)))
    return typeof exp === 'number' ? { exp: exp * 1000, iat: typeof iat === 'number' ? iat * 1000 : null } : null
  } catch {
    return null
  }
}

/**
 * The widget's credential: the token it was opened with and, when the integrator gave `getToken`, new
 * ones from it: before the one held expires (RENEW_BEFORE_MS ahead by its `exp`, or half-way through a
 * shorter life) and after a 401.
 * A renewal ahead of expiry does not hold requests up: they go with the token held while it has more
 * than STILL_GOOD_MS left. One renewal at a time, whoever asks; a `getToken` that throws (at once or
 * later) or answers nothing gives no token (the call then fails as a SessionError) and is not asked
 * ahead of expiry again for 2 s, doubling up to 30 s.
 */
export class Session {
  private renewing: Promise<string | null> | null = null
  private wait = 0
  private until = 0

  constructor(
    private token: string | undefined,
    private readonly getToken?: () => string | Promise<string>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The token to send now. */
  async current(): Promise<string | undefined> {
    if (!this.getToken || this.now() < this.until) return this.token
    if (!this.token) return (await this.renew(undefined)) ?? undefined
    const times = timesOf(this.token)
    const left = times ? times.exp - this.now() : Infinity
    // A short-lived token (a minute) is renewed half-way, not before every call.
    const ahead = times?.iat != null ? Math.min(RENEW_BEFORE_MS, (times.exp - times.iat) / 2) : RENEW_BEFORE_MS
    if (left >= ahead) return this.token
    const renewal = this.renew(this.token)
    return left > STILL_GOOD_MS ? this.token : ((await renewal) ?? this.token)
  }

  /**
   * Whether a token refused (revoked, say) may still be replaced: getToken is there and the token has
   * not expired by its `exp`. Until then a failing getToken is asked again, not taken as the end.
   */
  hopeful(rejected: string | undefined): boolean {
    const exp = rejected ? timesOf(rejected)?.exp : undefined
    return !!this.getToken && exp !== undefined && exp > this.now()
  }

  /** A new token after `rejected` was refused, or null when there is none to get. */
  renew(rejected: string | undefined): Promise<string | null> {
    if (!this.getToken) return Promise.resolve(null)
    if (this.token !== rejected && this.token) return Promise.resolve(this.token)
    // Cleared once settled, never before it is set (a getToken that throws at once settles at once).
    this.renewing ??= this.ask().finally(() => (this.renewing = null))
    return this.renewing
  }

  private async ask(): Promise<string | null> {
    let t: unknown
    try {
      t = await this.getToken!()
    } catch {
      // as no token
    }
    if (typeof t === 'string' && t) {
      this.wait = 0
      return (this.token = t)
    }
    this.wait = Math.min(30_000, this.wait * 2 || 2000)
    this.until = this.now() + this.wait
    return null
  }
}

/** The API bases that have answered as Portico's API (with its CORS headers) on this page. */
const answered = new Set<string>()

export function client(apiBase: string, auth?: Session | string): Client {
  const base = apiBase.replace(/\/+$/, '')
  const session = typeof auth === 'string' ? new Session(auth) : auth
  const send = async (method: string, path: string, body: unknown, signal: AbortSignal | undefined, token: string | undefined) => {
    const headers: Record<string, string> = {}
    if (token) headers.authorization = `Bearer ${token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    try {
      const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal })
      answered.add(base)
      return res
    } catch (err) {
      if (isAbort(err)) throw err
      // A browser says the same for no network and for a host that answered without Portico's CORS
      // headers (an apiBase that is not Portico's API): a request that needs no CORS tells them apart.
      // A base that has answered as Portico's API before, on this page, is not misconfigured now: what
      // answers without CORS is a gateway's own error page (nginx adds headers to its error pages only
      // with `always`), Portico out of reach for now.
      if (await reachable(base)) {
        if (answered.has(base)) throw new ApiFailure('GenericError', { code: 'service_unavailable', title: `${method} ${path}: its host answered without Portico's CORS headers, as a gateway's own error page does`, details: null }, 503)
        throw misconfigured(apiBase, 'its host answers, but not as Portico\'s API')
      }
      throw new ApiFailure('NetworkError', { code: 'network_error', title: String((err as Error).message || err), details: null }, 0)
    }
  }
  return {
    async call(method, path, body, signal) {
      let token = await session?.current()
      let res = await send(method, path, body, signal, token)
      // Refused: once more with a new token, when the integrator can give one.
      if (res.status === 401 && session) {
        const fresh = await session.renew(token)
        if (fresh && fresh !== token) res = await send(method, path, body, signal, (token = fresh))
      }
      const text = await res.text()
      let data: any = null
      try {
        data = text ? JSON.parse(text) : null
      } catch {
        data = null
      }
      // Every answer of Portico's API is JSON, and every refusal is its `{code, title}` envelope; a
      // gateway's own 502, 503 or 504 page (HTML, say) is Portico out of reach, not a wrong apiBase.
      const envelope = data !== null && typeof data === 'object' && typeof data.code === 'string'
      if (!envelope && atGateway(res.status)) throw new ApiFailure('GenericError', { code: 'service_unavailable', title: `${method} ${path} answered ${res.status} from a gateway`, details: null }, res.status)
      if ((text && data === null) || (!res.ok && !envelope) || (res.status === 404 && data?.title === 'No such route')) {
        throw misconfigured(apiBase, `${method} ${path} answered ${res.status} ${text && data === null ? 'with something other than JSON' : 'with no Portico route'}`)
      }
      if (!res.ok) {
        const env: StepError = { code: data?.code ?? 'http_' + res.status, title: data?.title ?? res.statusText, details: data?.details ?? null }
        throw new ApiFailure(sdkCodeFor(res.status, env.code), env, res.status, res.status === 401 && !!session?.hopeful(token))
      }
      return data
    },
  }
}

/**
 * `apiBase` is not Portico's API: the integrator's setup is wrong, and the end user's network is fine.
 * The message (for onError and the console) says what `apiBase` must be.
 */
function misconfigured(apiBase: string, what: string): ApiFailure {
  const message = `apiBase ${JSON.stringify(apiBase)} is not Portico's API (${what}): it must be the API's base URL, ending in /v1, such as https://portico.example.com/v1`
  if (typeof console !== 'undefined') console.error(`[portico widget] ${message}`)
  return new ApiFailure('ConfigurationError', { code: 'configuration_error', title: message, details: null }, 0)
}

/**
 * A call naming the widget's `applicationId` answered 404: that application is not the widget token's
 * (or does not exist), so the integrator's setup is wrong, not Portico and not the person's network.
 */
export function notTheTokensApplication(err: unknown, applicationId: string): unknown {
  if (!(err instanceof ApiFailure) || err.status !== 404) return err
  return setupError(err, `applicationId ${JSON.stringify(applicationId)} is not the application of the widget token (${err.envelope.title}): mint the token for that application, or open the widget with the application the token was minted for`)
}

/**
 * Following a connection answered 404: the token held now (getToken's latest) does not reach it. The
 * token is for another application or another domain, or the connection was disconnected meanwhile;
 * either way the integrator's doing, and nothing the person can retry.
 */
export function notTheTokensConnection(err: ApiFailure, connectionId: string, applicationId: string): ApiFailure {
  return setupError(err, `connection ${JSON.stringify(connectionId)}: ${err.envelope.title}; disconnected, or the token is not for application ${JSON.stringify(applicationId)} and this domain`)
}

function setupError(err: ApiFailure, message: string): ApiFailure {
  if (typeof console !== 'undefined') console.error(`[portico widget] ${message}`)
  return new ApiFailure('ConfigurationError', { code: 'configuration_error', title: message, details: err.envelope }, err.status)
}

/** Whether the API's host answers at all (an opaque request: no CORS needed, nothing readable). */
async function reachable(base: string): Promise<boolean> {
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return false
  try {
    await fetch(base + '/healthz', { mode: 'no-cors', cache: 'no-store' })
    return true
  } catch {
    return false
  }
}

/** snake_case keys to camelCase, deeply: the SDK exposes the domain check in camelCase (section 2). */
export function camel(v: unknown): any {
  if (Array.isArray(v)) return v.map(camel)
  if (v === null || typeof v !== 'object') return v
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = camel(x)
  return out
}

export const checkDomain = async (domain: string, opts: { auth: Session; apiBase: string }) =>
  camel(await client(opts.apiBase, opts.auth).call('POST', '/domains:check', { domain }))

/** Compares records with live DNS through `POST /monitor:check`; answers `{inSync, records}`. */
export async function checkRecords(domain: string, opts: { auth: Session | string; apiBase: string; dnsRecords: DnsRecordIn[] }) {
  const baseline = opts.dnsRecords.map((r) => ({ type: r.type, host: r.host, value: r.value }))
  const r = await client(opts.apiBase, opts.auth).call('POST', '/monitor:check', { domain, baseline })
  return { inSync: r.in_sync === true, records: camel(r.records ?? []) as unknown[] }
}
