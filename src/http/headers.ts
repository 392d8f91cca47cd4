// Response headers every Portico answer carries, whichever face produced it (the REST handler, the
// docs, the consent page, the share page, the playground, OAuth, MCP, the widget bundle):
// - `X-Content-Type-Options: nosniff` everywhere;
// - `Strict-Transport-Security` when PUBLIC_URL is https (a year; not `includeSubDomains`, which
//   would bind the operator's sibling hosts too);
// - an HTML page without its own Content-Security-Policy gets a strict default with `frame-ancestors
//   'none'` (every page Portico serves also sets its own, fitted to what it loads).
import { createHash } from 'node:crypto'
import type { Config } from '../config.ts'

export const HSTS = 'max-age=31536000'

/** A strict policy for an HTML page that set none: same-origin resources only, never framed. */
export const DEFAULT_HTML_CSP = "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** The headers added to every response. */
export function securityHeaders(config: Pick<Config, 'publicUrl'>): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    ...(config.publicUrl.startsWith('https:') ? { 'strict-transport-security': HSTS } : {}),
  }
}

/**
 * Adds the security headers to a response (a copy when its headers are immutable, as fetch() responses'
 * are); a JSON answer that says nothing of caching (OAuth's, MCP's) is `no-store`, as the API's are.
 */
export function withSecurityHeaders(res: Response, headers: Record<string, string>): Response {
  const type = res.headers.get('content-type') ?? ''
  const html = type.startsWith('text/html') && !res.headers.has('content-security-policy')
  const uncached: [string, string][] = /json/i.test(type) && !res.headers.has('cache-control') ? [['cache-control', 'no-store']] : []
  const missing = [...Object.entries(headers).filter(([k]) => !res.headers.has(k)), ...uncached]
  if (missing.length === 0 && !html) return res
  try {
    for (const [k, v] of missing) res.headers.set(k, v)
    if (html) res.headers.set('content-security-policy', DEFAULT_HTML_CSP)
    return res
  } catch {
    const copy = new Response(res.body, res)
    for (const [k, v] of missing) copy.headers.set(k, v)
    if (html) copy.headers.set('content-security-policy', DEFAULT_HTML_CSP)
    return copy
  }
}

/** `'sha256-…'` sources for each inline `<script>` of a static page, for its script-src. */
export function inlineScriptHashes(html: string): string[] {
  const out: string[] = []
  for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
    out.push(`'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`)
  }
  return out
}

/**
 * The policy of a static page of ours: its inline scripts by hash and scripts from this origin, inline
 * styles (Swagger UI's and the widget's), images as `img`, requests to this origin only, never framed.
 */
export function staticPageCsp(html: string, opts: { img: string; formAction: string }): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScriptHashes(html).join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src ${opts.img}`,
    "connect-src 'self'",
    "base-uri 'none'",
    `form-action ${opts.formAction}`,
    "frame-ancestors 'none'",
  ].join('; ')
}
