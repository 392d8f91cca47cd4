// The widget's HTTP face, mounted into the app (src/server.ts `mounts`): the SDK bundle at
// /widget/v<version>/portico.js and its locale tables at /widget/locales/<hash>/<tag>.json (immutable,
// brotli, zstd or gzip as accepted, an ETag each and 304), /widget.js redirecting to the current bundle, the return
// page /widget/return that closes a provider's window when it comes back (its words in the browser's
// language), and CORS for the browser-facing API (the share-link page is src/share/page.ts). CORS is
// granted only to operations a browser may call (those accepting a widget token or no credential);
// credentials are bearer tokens, never cookies, so `*` exposes nothing a cross-origin page could ride
// on (Fetch standard, "CORS protocol and credentials").
import type { Elysia } from 'elysia'
import type { AppDeps, Mount } from '../http/app.ts'
import { buildRouter, splitUrl } from '../http/app.ts'
import { randomToken } from '../ids.ts'
import { PLAIN_NOT_FOUND, respond } from '../http/encoded.ts'
import { bundlePath, widgetBundle } from './build.ts'
import { directionOf, localeForRequest } from './locale.ts'
import { LOCALE_TAGS } from './i18n.ts'
import { TABLES } from './locales/index.ts'

const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-request-id, retry-after, idempotent-replayed, ratelimit, ratelimit-policy' }
const PREFLIGHT = {
  ...CORS,
  'access-control-allow-headers': 'authorization, content-type, idempotency-key',
  'access-control-max-age': '600',
}

const IMMUTABLE = 'public, max-age=31536000, immutable'

async function serveBundle(version: string, req: Request): Promise<Response> {
  const b = await widgetBundle()
  if (version !== `v${b.version}`) return new Response('Unknown widget version', { status: 404, headers: PLAIN_NOT_FOUND })
  return respond(req, b, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': IMMUTABLE, ...CORS })
}

async function serveLocale(version: string, file: string, req: Request): Promise<Response> {
  const b = await widgetBundle()
  const table = b.locales.get(file.replace(/\.json$/, ''))
  if (version !== b.localesVersion || !table || !file.endsWith('.json')) return new Response('Unknown locale', { status: 404, headers: { ...PLAIN_NOT_FOUND, ...CORS } })
  return respond(req, table, { 'content-type': 'application/json; charset=utf-8', 'cache-control': IMMUTABLE, ...CORS })
}

/** Where a provider's window lands when it is done: it closes itself, or says it may be closed. */
function returnPage(req: Request): Response {
  const lang = localeForRequest(req.headers.get('accept-language'), LOCALE_TAGS)
  const words = (TABLES[lang] ?? TABLES.en!).returnDone
  const nonce = randomToken(16)
  const esc = (x: string) => x.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
  const html = `<!doctype html><html lang="${lang}" dir="${directionOf(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(words)}</title></head><body><main><p style="font:16px system-ui,sans-serif;margin:2em">${esc(words)}</p></main><script nonce="${nonce}">window.close()</script></body></html>`
  return new Response(html, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-language': lang,
      vary: 'accept-language',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'`,
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
        if (response instanceof Response && request.headers.get('origin') && corsFor(request)) {
          for (const [k, v] of Object.entries(CORS)) if (!response.headers.has(k)) response.headers.set(k, v)
        }
      })
      .get('/widget.js', async () => {
        const b = await widgetBundle()
        return new Response(null, { status: 302, headers: { location: bundlePath(b), 'cache-control': 'public, max-age=300', ...CORS } })
      })
      .get('/widget/:version/portico.js', ({ params, request }) => serveBundle(params.version, request))
      .get('/widget/locales/:version/:file', ({ params, request }) => serveLocale(params.version, params.file, request))
      .get('/widget/return', ({ request }) => returnPage(request))
    return app
  }
}
