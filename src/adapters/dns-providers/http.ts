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
}

export async function exchange(method: string, url: string, headers: Record<string, string>, body: unknown, opts: ProviderHttp = {}): Promise<HttpResult> {
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

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), if there is a usable one. */
export function retryAfterOf(headers: Headers, now = Date.now()): number | undefined {
  const v = headers.get('retry-after')?.trim()
  if (!v) return undefined
  if (/^\d+$/.test(v)) return Number(v)
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}

/**
 * A failed exchange as a typed ProviderError, by HTTP status: 401 a refused credential, 403 a missing
 * permission, 404 an unknown zone, 409 a conflicting record, 429 a rate limit (with Retry-After),
 * 5xx unreachable, anything else a refusal. `kind` lets an adapter name the reason from the provider's
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
                ? 'unreachable'
                : 'write_failed')
  const what =
    k === 'auth' ? `${provider} refused the credential` : k === 'permission' ? `${provider}: the credential lacks a permission` : k === 'rate_limited' ? `${provider} rate limit` : k === 'plan_restricted' ? `${provider} refuses API access for this account` : provider
  return new ProviderError(k, `${what} (${msg.slice(0, 500)})`, r.status, k === 'rate_limited' ? retryAfterOf(r.headers) : undefined)
}
