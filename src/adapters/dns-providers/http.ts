// One JSON exchange with a DNS-provider API. With `pin` the connection goes to that checked address
// (src/adapters/ssrf.ts `guardUrl`) while the Host header and TLS name stay the URL's, so a DNS answer
// that changes between the check and the call cannot redirect it (the PowerDNS API URL is supplied by
// the integrator). Redirects are never followed; proxies are ignored; one deadline covers the exchange.
import { parseHostLiteral } from '../ssrf.ts'
import { ProviderError, type ProviderErrorKind } from './types.ts'

export interface HttpResult {
  status: number
  body: any
  text: string
  headers: Headers
}

export interface ProviderHttp {
  /** A checked address to connect to instead of resolving the URL's host. */
  pin?: string
  timeoutMs?: number
  /**
   * Seconds to wait before sending the same request again when the provider said the refusal is
   * temporary (beyond the rate limits every provider signals alike, which `temporaryWait` knows):
   * GoDaddy's 409 in the seconds after an edit. `attempt` counts from 1. Undefined: not temporary.
   */
  temporary?: (r: HttpResult, attempt: number) => number | undefined
  /** No retries at all (a caller that retries itself). */
  once?: boolean
}

/** The longest single wait a provider's signal may ask for, and the most all retries of one request may take. */
export const RETRY_LIMITS = { maxWaitSeconds: 10, budgetSeconds: 20, attempts: 5 }

/**
 * Seconds a provider asked to wait before the same request may succeed: a 429, or a 503 with a
 * signal, carrying Retry-After or a RateLimit reset (`RateLimit-Reset`, `X-RateLimit-Reset`, as delta
 * seconds or as a Unix time). Without a signal there is nothing to wait for: the caller reports it.
 */
export function temporaryWait(r: HttpResult, now = Date.now()): number | undefined {
  if (r.status !== 429 && r.status !== 503) return undefined
  return retryAfterOf(r.headers, now)
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms))

/**
 * One exchange, sent again while the provider says its refusal is temporary (its rate limit with the
 * reset it signals, a window it documents) and the wait fits: each wait at most
 * RETRY_LIMITS.maxWaitSeconds, all of them together within budgetSeconds. Every other answer, and a
 * temporary one whose wait does not fit, is returned as it came for the adapter to type.
 */
export async function exchange(method: string, url: string, headers: Record<string, string>, body: unknown, opts: ProviderHttp = {}): Promise<HttpResult> {
  let spent = 0
  for (let attempt = 1; ; attempt++) {
    const r = await exchangeOnce(method, url, headers, body, opts)
    if (opts.once || attempt >= RETRY_LIMITS.attempts) return r
    const wait = opts.temporary?.(r, attempt) ?? temporaryWait(r)
    if (wait === undefined || wait > RETRY_LIMITS.maxWaitSeconds || spent + wait > RETRY_LIMITS.budgetSeconds) return r
    spent += wait
    await sleep(Math.max(wait, 0.05) * 1000)
  }
}

/**
 * Sends a request built afresh for each attempt (a signature with its own nonce or timestamp) again
 * while the provider's answer is its rate limit without a wait (Alibaba Cloud DNS's Throttling.User,
 * DNSPod's RequestLimitExceeded, ClouDNS's Failed answer): after 1, 2, 4, 8 s, within RETRY_LIMITS.
 * The last answer is returned as it came, for the adapter to type.
 */
export async function backoffWhileThrottled(send: () => Promise<HttpResult>, throttled: (r: HttpResult) => boolean): Promise<HttpResult> {
  let spent = 0
  for (let attempt = 1; ; attempt++) {
    const r = await send()
    const wait = 2 ** (attempt - 1)
    if (!throttled(r) || attempt >= RETRY_LIMITS.attempts || spent + wait > RETRY_LIMITS.budgetSeconds) return r
    spent += wait
    await sleep(wait * 1000)
  }
}

async function exchangeOnce(method: string, url: string, headers: Record<string, string>, body: unknown, opts: ProviderHttp): Promise<HttpResult> {
  const u = new URL(url)
  let target = url
  const h: Record<string, string> = { accept: 'application/json', ...headers }
  let tls: { serverName?: string } | undefined
  if (opts.pin) {
    const address = parseHostLiteral(opts.pin)
    if (address === null) throw new ProviderError('unreachable', `not an address literal: ${opts.pin}`)
    const port = u.port || (u.protocol === 'https:' ? '443' : '80')
    target = `${u.protocol}//${address.includes(':') ? `[${address}]` : address}:${port}${u.pathname}${u.search}`
    h.host = u.host
    if (u.protocol === 'https:' && parseHostLiteral(u.hostname) === null) tls = { serverName: u.hostname }
  }
  let payload: string | undefined
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body)
    h['content-type'] ??= 'application/json'
  }
  let res: Response
  try {
    res = await fetch(target, { method, headers: h, body: payload, redirect: 'manual', proxy: false, tls, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) } as RequestInit)
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string }
    const why = e?.name === 'TimeoutError' || e?.name === 'AbortError' ? 'timeout' : e?.code === 'ECONNREFUSED' ? 'connection refused' : (e?.message ?? 'network error')
    throw new ProviderError('unreachable', `the provider API could not be reached (${why})`)
  }
  const text = await res.text()
  let parsed: unknown = undefined
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: res.status, body: parsed, text, headers: res.headers }
}

/** Trims a provider's error text for `details` (no headers, no request echo). */
export function reasonOf(r: HttpResult, pick?: (body: any) => string | undefined): string {
  const fromBody = (() => {
    try {
      return pick?.(r.body)
    } catch {
      return undefined
    }
  })()
  return (fromBody ?? (r.text || `HTTP ${r.status}`)).slice(0, 500)
}

/**
 * Seconds to wait, from Retry-After (delta-seconds or an HTTP date) or, where a provider signals its
 * reset instead, `RateLimit-Reset` / `X-RateLimit-Reset` / `X-Ratelimit-Reset` (delta seconds, or a
 * Unix time in seconds as DigitalOcean, Linode, DNSimple, Vercel and Netlify send it).
 */
export function retryAfterOf(headers: Headers, now = Date.now()): number | undefined {
  const v = headers.get('retry-after')?.trim()
  if (v) {
    if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v))
    const at = Date.parse(v)
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - now) / 1000))
  }
  const reset = (headers.get('ratelimit-reset') ?? headers.get('x-ratelimit-reset'))?.trim()
  if (reset && /^\d+(\.\d+)?$/.test(reset)) {
    const n = Number(reset)
    // A number this large is a point in time (Unix seconds), not a delay.
    return n > 1_000_000_000 ? Math.max(0, Math.ceil(n - now / 1000)) : Math.ceil(n)
  }
  return undefined
}

/**
 * A failed exchange as a typed ProviderError, by HTTP status: 401 a refused credential, 403 a missing
 * permission, 404 an unknown zone, 409 a conflicting record, 429 a rate limit (with Retry-After),
 * 5xx the host's own failure, temporary (with its Retry-After when it sends one: answered 503 with a
 * retry hint, never as a refusal of the change, issue 46), anything else a refusal. `kind` lets an adapter name the reason from the provider's
 * own error code first (GoDaddy's ACCESS_DENIED, Cloudflare's 403 for a bad token).
 */
export function failureOf(provider: string, r: HttpResult, msg: string, kind?: ProviderErrorKind): ProviderError {
  const k: ProviderErrorKind =
    kind ??
    (r.status === 401
      ? 'auth'
      : r.status === 403
        ? 'permission'
        : r.status === 404
          ? 'zone_not_found'
          : r.status === 409
            ? 'conflict'
            : r.status === 429
              ? 'rate_limited'
              : r.status >= 500
                ? 'temporary'
                : 'write_failed')
  const what =
    k === 'auth' ? `${provider} refused the credential` : k === 'permission' ? `${provider}: the credential lacks a permission` : k === 'rate_limited' ? `${provider} rate limit` : k === 'plan_restricted' ? `${provider} refuses API access for this account` : provider
  const what2 = k === 'temporary' && !kind ? `${provider} answered with a server error (HTTP ${r.status})` : what
  return new ProviderError(k, `${what2} (${msg.slice(0, 500)})`, r.status, k === 'rate_limited' || k === 'temporary' ? retryAfterOf(r.headers) : undefined)
}
