// The API reference at /v1/docs: Swagger UI over the registry's own document (/v1/openapi.json), with
// its script and stylesheet served from the installed swagger-ui-dist package, so the page works
// offline and sends the browser nowhere else. The page is Portico's own (not the stock one) so that:
// - nothing runs inline: Swagger UI is started by a script file (docs/init.js), so a strict CSP
//   (`script-src 'self'`) holds;
// - it passes axe-core at 1280 and 375 px: a theme (docs/theme.css) brings every colour Swagger UI
//   uses for text to 4.5:1, every part of the page is in a landmark (Swagger UI's own <main>, and init.js names the
//   header and the server bar), operation summaries carry no
//   link inside their toggle button (deep links off: a link nested in a button is unreachable by
//   keyboard and screen readers), and the server list is labelled (init.js).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Elysia } from 'elysia'
import type { Mount } from './app.ts'
import { staticPageCsp } from './headers.ts'

const DOCS = '/v1/docs'
const OWN = join(import.meta.dir, 'docs')
const ASSETS: Record<string, { type: string; dir: 'dist' | 'own'; file: string }> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', dir: 'dist', file: 'swagger-ui-bundle.js' },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', dir: 'dist', file: 'swagger-ui.css' },
  'theme.css': { type: 'text/css; charset=utf-8', dir: 'own', file: 'theme.css' },
  'init.js': { type: 'text/javascript; charset=utf-8', dir: 'own', file: 'init.js' },
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico API reference</title>
<meta name="description" content="Every operation of the Portico API, with request and response examples.">
<link rel="stylesheet" href="${DOCS}/swagger-ui.css"><link rel="stylesheet" href="${DOCS}/theme.css">
</head><body>
<div id="swagger-ui"><noscript><main><p>The reference needs JavaScript. The same document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p></main></noscript></div>
<script src="${DOCS}/swagger-ui-bundle.js"></script><script src="${DOCS}/init.js"></script>
</body></html>`

export function docsMount(): Mount {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  // Swagger UI's script and stylesheet and our theme and starter, all from here (no inline script); inline
  // styles and data: icons are Swagger UI's; "Try it out" calls this origin. Never framed.
  const csp = staticPageCsp(PAGE, { img: "'self' data:", formAction: "'none'" })
  const cache = new Map<string, string>()
  return (app: Elysia) => {
    app
      .get(DOCS, () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp } }))
      .get(`${DOCS}/:asset`, ({ params }) => {
        const a = ASSETS[params.asset]
        if (!a) return new Response(JSON.stringify({ code: 'not_found', title: 'Not found' }), { status: 404, headers: { 'content-type': 'application/json' } })
        let body = cache.get(params.asset)
        if (!body) cache.set(params.asset, (body = readFileSync(join(a.dir === 'dist' ? dist : OWN, a.file), 'utf8')))
        return new Response(body, { headers: { 'content-type': a.type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' } })
      })
    return app
  }
}
