// The widget's HTTP client: bearer-token calls to Portico's browser-facing endpoints (CONTRACT.md
// section 5 rule 1) and the mapping of failures onto the SDK's error codes (section 6). Every failure
// becomes an `ApiFailure` carrying both the API envelope (for step events) and the SDK code (for onError).
import type { DnsRecordIn, ErrorCode, StepError } from './types.ts'

export class ApiFailure extends Error {
  constructor(
    readonly sdkCode: ErrorCode,
    readonly envelope: StepError,
    readonly status: number,
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

export function client(apiBase: string, token?: string): Client {
  const base = apiBase.replace(/\/+$/, '')
  return {
    async call(method, path, body, signal) {
      const headers: Record<string, string> = {}
      if (token) headers.authorization = `Bearer ${token}`
      if (body !== undefined) headers['content-type'] = 'application/json'
      let res: Response
      try {
        res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal })
      } catch (err) {
        if (isAbort(err)) throw err
        // A browser says the same for no network and for a host that answered without Portico's CORS
        // headers (an apiBase that is not Portico's API): a request that needs no CORS tells them apart.
        if (await reachable(base)) throw misconfigured(apiBase, 'its host answers, but not as Portico\'s API')
        throw new ApiFailure('NetworkError', { code: 'network_error', title: String((err as Error).message || err), details: null }, 0)
      }
      const text = await res.text()
      let data: any = null
      try {
        data = text ? JSON.parse(text) : null
      } catch {
        data = null
      }
      // Every answer of Portico's API is JSON, and every refusal is its `{code, title}` envelope.
      const envelope = data !== null && typeof data === 'object' && typeof data.code === 'string'
      if ((text && data === null) || (!res.ok && !envelope) || (res.status === 404 && data?.title === 'No such route')) {
        throw misconfigured(apiBase, `${method} ${path} answered ${res.status} ${text && data === null ? 'with something other than JSON' : 'with no Portico route'}`)
      }
      if (!res.ok) {
        const env: StepError = { code: data?.code ?? 'http_' + res.status, title: data?.title ?? res.statusText, details: data?.details ?? null }
        throw new ApiFailure(sdkCodeFor(res.status, env.code), env, res.status)
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

export const checkDomain = async (domain: string, opts: { token: string; apiBase: string }) =>
  camel(await client(opts.apiBase, opts.token).call('POST', '/domains:check', { domain }))

/** Compares records with live DNS through `POST /monitor:check`; answers `{inSync, records}`. */
export async function checkRecords(domain: string, opts: { token: string; apiBase: string; dnsRecords: DnsRecordIn[] }) {
  const baseline = opts.dnsRecords.map((r) => ({ type: r.type, host: r.host, value: r.value }))
  const r = await client(opts.apiBase, opts.token).call('POST', '/monitor:check', { domain, baseline })
  return { inSync: r.in_sync === true, records: camel(r.records ?? []) as unknown[] }
}
