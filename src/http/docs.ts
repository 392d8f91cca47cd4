// The API reference at /v1/docs: Swagger UI, rendered by @elysiajs/openapi's Swagger UI page over the
// registry's own document (/v1/openapi.json), with the UI's script and stylesheet served from the
// installed swagger-ui-dist package, so the page works offline and sends the browser nowhere else.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Elysia } from 'elysia'
import { SwaggerUIRender } from '@elysiajs/openapi/swagger'
import type { Mount } from './app.ts'
import { staticPageCsp } from './headers.ts'

const DOCS = '/v1/docs'
const ASSETS: Record<string, string> = { 'swagger-ui-bundle.js': 'text/javascript', 'swagger-ui.css': 'text/css' }

export function docsMount(): Mount {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  const page = SwaggerUIRender(
    { title: 'Portico API reference', description: 'Every operation of the Portico API, with request and response examples.', version: '1' },
    // Options for SwaggerUIBundle: the document is the registry's; "Try it out" calls this server.
    { url: '/v1/openapi.json', cdn: `${DOCS}/swagger-ui-bundle.js`, theme: `${DOCS}/swagger-ui.css`, autoDarkMode: false, deepLinking: true } as never,
  )
  // Swagger UI's own script and stylesheet from here, its one inline starter by hash; inline styles and data: icons are
  // Swagger UI's; "Try it out" calls this origin. Never framed.
  const csp = staticPageCsp(page, { img: "'self' data:", formAction: "'none'" })
  const cache = new Map<string, string>()
  return (app: Elysia) => {
    app
      .get(DOCS, () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp } }))
      .get(`${DOCS}/:asset`, ({ params }) => {
        const type = ASSETS[params.asset]
        if (!type) return new Response(JSON.stringify({ code: 'not_found', title: 'Not found' }), { status: 404, headers: { 'content-type': 'application/json' } })
        let body = cache.get(params.asset)
        if (!body) cache.set(params.asset, (body = readFileSync(join(dist, params.asset), 'utf8')))
        return new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' } })
      })
    return app
  }
}
