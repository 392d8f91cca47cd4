// The widget's HTTP face, mounted into the app (src/server.ts `mounts`): the SDK bundle at
// /widget/v<version>/portico.js (immutable, gzip when accepted), /widget.js redirecting to the current
// bundle, and CORS for the browser-facing API (the share-link page is src/share/page.ts). CORS is
// granted only to operations a browser may call (those accepting a widget token or no credential);
// credentials are bearer tokens, never cookies, so `*` exposes nothing a cross-origin page could ride on (Fetch standard, "CORS protocol and credentials").
import type { Elysia } from 'elysia'
import type { AppDeps, Mount } from '../http/app.ts'
import { buildRouter, splitUrl } from '../http/app.ts'
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
    return app
  }
}
