// The widget playground at /playground, mounted in development only (elsewhere the path is the
// router's 404). An integrator pastes an API key (masked, never stored), picks one of its applications,
// a domain and a locale, may save the application's branding (PUT /v1/applications/{id}/branding), and
// the page opens the widget as a host page would, logging every widget event and callback in order.
// The widget token is minted here, server-side, for the chosen application, after the key has proved
// it can read that application. The page's script and stylesheet are files (playground/), nothing
// runs inline.
import type { Elysia } from 'elysia'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Clock } from '../clock.ts'
import type { WidgetTokens } from '../domain/widget-tokens.ts'
import type { Mount } from './app.ts'
import { staticPageCsp } from './headers.ts'
import { nestsDeeperThan } from '../json.ts'
import type { Peer } from '../client-address.ts'
import { LOCALE_TAGS } from '../widget/i18n.ts'
import { LOCALES as SHARE_LOCALES } from '../share/strings.ts'

export interface PlaygroundDeps {
  widgetTokens: WidgetTokens
  clock: Clock
  /** The API's own handler: the key is checked exactly as GET /v1/applications/{id} checks it, from the visitor's address. */
  handle: (req: Request, ip: string | null) => Promise<Response>
  /** The visitor's address (TRUST_PROXY honoured): a pasted wrong key counts against whoever pasted it. */
  addressOf: (request: Request, server: Peer) => string | null
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

export function playgroundMount(deps: PlaygroundDeps): Mount {
  return (app: Elysia) => {
    app
      .get('/playground', () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP } }))
      .get('/playground/:asset', ({ params }) => {
        const a = ASSETS[params.asset]
        if (!a) return json(404, { code: 'not_found', title: 'Not found' })
        return new Response(readFileSync(join(import.meta.dir, 'playground', params.asset), 'utf8'), { headers: { 'content-type': a, 'cache-control': 'no-cache' } })
      })
      .post('/playground/token', async ({ request, server }) => {
        const text = await request.text()
        let body: { application_id?: unknown } | null = null
        try {
          if (!nestsDeeperThan(text)) body = JSON.parse(text) as { application_id?: unknown } | null
        } catch {
          // not JSON: answered below as a missing application_id
        }
        const appId = body?.application_id
        if (typeof appId !== 'string' || !/^app_[0-9a-z]+$/.test(appId)) return json(400, { code: 'invalid_request', title: 'application_id is required' })
        const headers = { authorization: request.headers.get('authorization') ?? '' }
        const r = await deps.handle(new Request(new URL(`/v1/applications/${appId}`, request.url), { headers }), deps.addressOf(request, server))
        if (r.status !== 200) return new Response(r.body, { status: r.status, headers: { 'content-type': 'application/json' } })
        const application = (await r.json()) as { id: string; tenant_id: string; name: string; branding: { display_name: string | null } | null }
        const token = await deps.widgetTokens.mint({ tenantId: application.tenant_id, applicationId: application.id, scope: 'connect', boundHost: null }, deps.clock.now())
        return json(200, { token, application_name: application.branding?.display_name ?? application.name })
      })
    return app
  }
}

const ASSETS: Record<string, string> = { 'playground.js': 'text/javascript; charset=utf-8', 'playground.css': 'text/css; charset=utf-8' }

/** Locales offered in the picker: every locale the widget carries (its one list), each named in itself. */
const LOCALES: [string, string][] = [['', 'The browser\'s language'], ...LOCALE_TAGS.map((l): [string, string] => [l, SHARE_LOCALES[l].languageName])]

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Portico widget playground</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/playground/playground.css">
</head>
<body>
<main>
<h1>Widget playground</h1>
<p>Development only. Paste an API key of your workspace (<code>api_key</code> from <code>POST /v1/tenants:provision</code>),
load its applications, choose one and a domain, and open the widget as your customers will see it. The widget token is
minted by this server for the chosen application; the key stays in this page and is never stored.</p>
<form id="pg-form">
  <label for="pg-key">API key</label>
  <div class="row"><input id="pg-key" type="password" autocomplete="off" spellcheck="false" placeholder="ptc_live_…">
  <button type="button" id="pg-show" aria-pressed="false" aria-controls="pg-key">Show</button></div>
  <button type="button" id="pg-load">Load applications</button>
  <label for="pg-app">Application</label><select id="pg-app"></select>
  <label for="pg-domain">Domain (optional: leave empty to start at the domain screen)</label><input id="pg-domain" placeholder="shop.example.com">
  <label for="pg-locale">Language of the widget</label>
  <select id="pg-locale">${LOCALES.map(([v, n]) => `<option value="${v}"${v ? ` lang="${v}"` : ''}>${n}</option>`).join('')}</select>
  <fieldset id="pg-branding"><legend>The application's branding (saved to the application)</legend>
    <label for="pg-brand-name">Display name</label><input id="pg-brand-name" maxlength="80" placeholder="Acme Shop">
    <label for="pg-brand-logo">Logo (https URL or data: image)</label><input id="pg-brand-logo" placeholder="https://cdn.example.com/logo.svg">
    <label for="pg-brand-accent">Accent colour</label>
    <div class="row"><input id="pg-brand-accent" type="color" value="#1f4fbf"><label class="inline"><input type="checkbox" id="pg-brand-accent-on"> use it</label></div>
    <button type="button" id="pg-brand-save">Save branding</button>
  </fieldset>
  <button type="submit" id="pg-open">Open the widget</button>
</form>
<p id="pg-status" role="status"></p>
<h2 id="pg-log-h">Widget events</h2>
<p class="hint">Every window event (<code>Portico:step</code>, <code>Portico:success</code>, …) and callback, in the order they arrived.</p>
<ol id="pg-log" role="log" aria-labelledby="pg-log-h"></ol>
<button type="button" id="pg-log-clear">Clear the log</button>
</main>
<script src="/widget.js"></script>
<script src="/playground/playground.js"></script>
</body></html>`

// The page's own script by hash, the widget bundle from here (it adds its stylesheet and inline styles; provider logos
// may be https or data: images); it talks to this origin only and is never framed.
const PAGE_CSP = staticPageCsp(PAGE, { img: "'self' https: data:", formAction: "'self'" })
