// Portico's requests to a DNS Provider's Domain Connect endpoints (settings, OAuth token, apply API).
// Every URL there comes from DNS or from the provider's settings, so each goes through the SSRF guard
// (src/adapters/ssrf.ts): the host is resolved once, every address must be public (loopback only under
// the test setting), and the connection goes to the checked address with the URL's Host and TLS name,
// as src/adapters/http-post.ts does for webhooks. Redirects are not followed; bodies are capped.
import { guardUrl, parseHostLiteral } from '../../adapters/ssrf.ts'
import type { Dns } from '../../adapters/dns.ts'
import { addressResolver } from '../webhook-delivery.ts'

export interface ProviderHttp {
  dns: Dns
  allowLoopback: boolean
  timeoutMs?: number
}

export type ProviderResponse = { ok: true; status: number; json: unknown; text: string; headers: Headers } | { ok: false; error: string }

const MAX_BODY = 256 * 1024

/** At most MAX_BODY bytes of the body, the rest dropped unread. */
async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < MAX_BODY) {
    const chunk = await reader.read()
    if (chunk.done) break
    chunks.push(chunk.value)
    size += chunk.value.byteLength
  }
  if (size >= MAX_BODY) await reader.cancel().catch(() => {})
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_BODY))
}

export async function providerRequest(
  http: ProviderHttp,
  raw: string,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
): Promise<ProviderResponse> {
  const guard = await guardUrl(raw, { allowLoopback: http.allowLoopback, resolve: addressResolver(http.dns), requireHttps: !http.allowLoopback })
  if (!guard.ok) return { ok: false, error: `refused: ${guard.reason}` }
  const url = guard.url
  const address = parseHostLiteral(guard.address)
  if (address === null) return { ok: false, error: 'refused: no checked address' }
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  const target = `${url.protocol}//${address.includes(':') ? `[${address}]` : address}:${port}${url.pathname}${url.search}`
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1')
  try {
    const res = await fetch(target, {
      method: init.method,
      headers: { ...init.headers, host: url.host, accept: 'application/json' },
      body: init.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(http.timeoutMs ?? 10_000),
      // SNI and the certificate name are the URL's host, not the address connected to.
      ...(url.protocol === 'https:' && parseHostLiteral(hostname) === null ? { tls: { serverName: hostname } } : {}),
      // A proxy would resolve the name itself, around the checked address.
      proxy: false,
    } as unknown as RequestInit)
    const text = await readCapped(res)
    let json: unknown = null
    try {
      json = text ? JSON.parse(text) : null
    } catch {
      json = null
    }
    return { ok: true, status: res.status, json, text, headers: res.headers }
  } catch (err) {
    const e = err as { name?: string; message?: string }
    return { ok: false, error: e?.name === 'TimeoutError' ? 'timeout' : (e?.message ?? String(err)) }
  }
}
