// The widget's HTTP face, mounted into the app (src/server.ts `mounts`): the SDK bundle at
// /widget/v<version>/portico.js (immutable, gzip when accepted), /widget.js redirecting to the current
// bundle, the share-link page /share/<token> that runs `loadSharedFlow` (no ×: the page is the
// whole task, with nothing behind it to close back to), and CORS for the
// browser-facing API. CORS is granted only to operations a browser may call (those accepting a widget
// token or no credential); credentials are bearer tokens, never cookies, so `*` exposes nothing a
// cross-origin page could ride on (Fetch standard, "CORS protocol and credentials").
import type { Elysia } from 'elysia'
import type { AppDeps, Mount } from '../http/app.ts'
import { buildRouter, splitUrl } from '../http/app.ts'
import { SHARE_PAGE_PREFIX } from '../domain/share.ts'
import { randomToken } from '../ids.ts'
import { bundlePath, widgetBundle } from './build.ts'

const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-request-id, retry-after, idempotent-replayed' }
const PREFLIGHT = {
  ...CORS,
  'access-control-allow-headers': 'authorization, content-type, idempotency-key',
  'access-control-max-age': '600',
}

async function serveBundle(version: string, req: Request): Promise<Response> {
  const b = await widgetBundle()
  if (version !== `v${b.version}`) return new Response('Unknown widget version', { status: 404, headers: { 'cache-control': 'no-store' } })
  const headers: Record<string, string> = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=31536000, immutable',
    etag: b.etag,
    vary: 'accept-encoding',
    ...CORS,
  }
  if (req.headers.get('if-none-match') === b.etag) return new Response(null, { status: 304, headers })
  if (/\bgzip\b/.test(req.headers.get('accept-encoding') ?? '')) return new Response(b.gzip as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-encoding': 'gzip' } })
  return new Response(b.code, { headers })
}

async function sharePage(): Promise<Response> {
  const b = await widgetBundle()
  const nonce = randomToken(16)
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Domain setup</title></head><body><script src="${bundlePath(b)}"></script><script nonce="${nonce}">Portico.loadSharedFlow(location.href,{whiteLabel:{hideClose:true}})</script></body></html>`
  return new Response(html, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The token is in the path: never send it onward in a Referer.
      'referrer-policy': 'no-referrer',
      'content-security-policy': `default-src 'none'; script-src 'self' 'nonce-${nonce}'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' https: data:; base-uri 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
    },
  })
}

export function widgetMount(deps: Pick<AppDeps, 'ops'>): Mount {
  const browserOps = buildRouter(deps.ops.filter((op) => op.auth.includes('WIDGET') || op.auth.includes('NONE')))
  const corsFor = (req: Request): string[] | null => {
    const path = splitUrl(req.url).path
    const allowed = browserOps.allowed(path)
    return allowed.length > 0 ? allowed : null
  }
  return (app: Elysia) => {
    app
      .onRequest(({ request }) => {
        if (request.method !== 'OPTIONS' || !request.headers.get('access-control-request-method')) return
        const methods = corsFor(request)
        if (methods) return new Response(null, { status: 204, headers: { ...PREFLIGHT, 'access-control-allow-methods': methods.join(', ') } })
      })
      .onAfterHandle({ as: 'global' }, ({ request, response }) => {
        if (response instanceof Response && request.headers.get('origin') && corsFor(request) && !response.headers.has('access-control-allow-origin')) {
          for (const [k, v] of Object.entries(CORS)) response.headers.set(k, v)
        }
      })
      .get('/widget.js', async () => {
        const b = await widgetBundle()
        return new Response(null, { status: 302, headers: { location: bundlePath(b), 'cache-control': 'public, max-age=300', ...CORS } })
      })
      .get('/widget/:version/portico.js', ({ params, request }) => serveBundle(params.version, request))
      .get(`${SHARE_PAGE_PREFIX}:token`, () => sharePage())
    return app
  }
}
