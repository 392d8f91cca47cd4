// The widget playground at /playground, mounted in development only (elsewhere the path is the
// router's 404). An integrator pastes an API key, picks one of its applications and a domain, and the
// page opens the widget as a host page would: the widget token is minted here, server-side, for the
// chosen application, after the key has proved it can read that application.
import type { Elysia } from 'elysia'
import type { Clock } from '../clock.ts'
import type { WidgetTokens } from '../domain/widget-tokens.ts'
import type { Mount } from './app.ts'
import { staticPageCsp } from './headers.ts'

export interface PlaygroundDeps {
  widgetTokens: WidgetTokens
  clock: Clock
  /** The API's own handler: the key is checked exactly as GET /v1/applications/{id} checks it. */
  handle: (req: Request) => Promise<Response>
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

export function playgroundMount(deps: PlaygroundDeps): Mount {
  return (app: Elysia) => {
    app
      .get('/playground', () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP } }))
      .post('/playground/token', async ({ request }) => {
        const body = (await request.json().catch(() => null)) as { application_id?: unknown } | null
        const appId = body?.application_id
        if (typeof appId !== 'string' || !/^app_[0-9a-z]+$/.test(appId)) return json(400, { code: 'invalid_request', title: 'application_id is required' })
        const headers = { authorization: request.headers.get('authorization') ?? '' }
        const r = await deps.handle(new Request(new URL(`/v1/applications/${appId}`, request.url), { headers }))
        if (r.status !== 200) return new Response(r.body, { status: r.status, headers: { 'content-type': 'application/json' } })
        const application = (await r.json()) as { id: string; tenant_id: string; name: string }
        const token = await deps.widgetTokens.mint({ tenantId: application.tenant_id, applicationId: application.id, scope: 'connect', boundHost: null }, deps.clock.now())
        return json(200, { token, application_name: application.name })
      })
    return app
  }
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Portico widget playground</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d2330 }
  label { display: block; margin-top: .8rem; font-weight: 600 }
  input, select { font: inherit; width: 100%; padding: .4rem; box-sizing: border-box }
  button { font: inherit; margin-top: 1rem; padding: .45rem 1rem }
  #pg-status { margin-top: 1rem; color: #8a1c1c; min-height: 1.5em }
  code { background: #eef0f4; padding: 0 .25rem }
</style></head>
<body>
<h1>Widget playground</h1>
<p>Development only. Paste an API key of your workspace (<code>api_key</code> from <code>POST /v1/tenants:provision</code>),
load its applications, choose one and a domain, and open the widget as your customers will see it. The widget token is
minted by this server for the chosen application.</p>
<form id="pg-form">
  <label for="pg-key">API key</label><input id="pg-key" autocomplete="off" placeholder="ptc_live_…">
  <button type="button" id="pg-load">Load applications</button>
  <label for="pg-app">Application</label><select id="pg-app"></select>
  <label for="pg-domain">Domain (optional: leave empty to start at the domain screen)</label><input id="pg-domain" placeholder="shop.example.com">
  <button type="submit" id="pg-open">Open the widget</button>
</form>
<p id="pg-status" role="status"></p>
<script src="/widget.js"></script>
<script>
const $ = (id) => document.getElementById(id)
const status = (text) => { $('pg-status').textContent = text }
const auth = () => ({ authorization: 'Bearer ' + $('pg-key').value.trim() })
$('pg-load').addEventListener('click', async () => {
  status('')
  const r = await fetch('/v1/applications', { headers: auth() })
  const body = await r.json()
  if (!r.ok) return status(body.title || 'The key was refused')
  $('pg-app').replaceChildren(...body.applications.map((a) => new Option(a.name + ' (' + a.id + ')', a.id)))
  if (body.applications.length === 0) status('This workspace has no application')
})
$('pg-form').addEventListener('submit', async (e) => {
  e.preventDefault()
  status('')
  const applicationId = $('pg-app').value
  if (!applicationId) return status('Load the applications and choose one first')
  const r = await fetch('/playground/token', { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ application_id: applicationId }) })
  const body = await r.json()
  if (!r.ok) return status(body.title || 'No widget token')
  const domain = $('pg-domain').value.trim()
  Portico.open({ applicationId, token: body.token, applicationName: body.application_name, ...(domain ? { domain } : {}),
    onStepChange: ({ step }) => { document.body.dataset.step = step } })
})
</script>
</body></html>`

// The page's own script by hash, the widget bundle from here (it adds its stylesheet and inline styles; provider logos
// may be https or data: images); it talks to this origin only and is never framed.
const PAGE_CSP = staticPageCsp(PAGE, { img: "'self' https: data:", formAction: "'self'" })
