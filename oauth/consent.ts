// The consent step of the agent OAuth flow (CONTRACT.md section 5 rule 6: a registered client can do
// nothing until a person approves a grant). The consent request is the authorization server's pending
// interaction; its unguessable id is the capability to read it. The page shows who asks (name,
// redirect host, brand verdict, loopback warning) and each scope in plain words, and a tenant member
// approves with an API key of the tenant or denies. Invariants:
// - a request whose client name imitates a brand cannot be approved (no button, and a forged POST is
//   refused);
// - the approver's role must hold the permission behind every requested scope (oauth/scopes.ts);
// - approval records one grant for the approver's tenant; tokens carry only its scopes.
// Who approves is an `Approver`; the API-key form is one way to get one, a console session can be another.
import type { InteractionModel } from 'oidc-provider'
import type { Elysia } from 'elysia'
import type { Mount } from '../src/http/app.ts'
import type { Sql } from '../src/db/sql.ts'
import type { Clock } from '../src/clock.ts'
import { can, type MemberRole } from '../src/domain/rbac.ts'
import { authenticate, type AuthDeps } from '../src/http/auth.ts'
import { ApiError } from '../src/http/errors.ts'
import { judgeClient } from './brands.ts'
import { isClientIdUrl } from './client-metadata.ts'
import { agentScope, parseScopes } from './scopes.ts'
import { OAUTH_MOUNT, type AuthServer } from './provider.ts'

export interface ConsentRequest {
  client_id: string
  client_name: string
  redirect_uri: string
  scopes: string[]
  state: string | null
  redirect_host: string
  verified: boolean
  verified_as: string | null
  local: boolean
  imitates: string | null
  registration: 'dynamic'
  registered_at: string
  client_id_host: string | null
}

interface InteractionPayload {
  params?: Record<string, unknown>
  result?: unknown
}

/** Where the person returns to: the host, or the app scheme for a native redirect without one. */
export function redirectHost(uri: string): string {
  try {
    const u = new URL(uri)
    return u.host || `${u.protocol}`
  } catch {
    return uri
  }
}

/** The pending consent request `id`, or null when unknown, expired or already answered. */
export async function loadConsentRequest(sql: Sql, id: string): Promise<ConsentRequest | null> {
  const [row] = await sql`
    select i.payload as interaction, c.client_name, c.redirect_uris, c.created_at
    from oauth_store i
    join agent_clients c on c.client_id = i.payload->'params'->>'client_id'
    where i.model = 'Interaction' and i.id = ${id} and i.expires_at > now()`
  if (!row) return null
  const interaction = (typeof row.interaction === 'string' ? JSON.parse(row.interaction) : row.interaction) as InteractionPayload
  if (interaction.result !== undefined) return null
  const params = interaction.params ?? {}
  const redirectUri = String(params.redirect_uri ?? '')
  const clientId = String(params.client_id)
  // A client ID metadata document proves its host: the brand verdict judges that host (client-metadata.ts).
  const documentHost = isClientIdUrl(clientId) ? new URL(clientId).host : null
  const verdict = judgeClient(row.client_name as string, row.redirect_uris as string[])
  if (documentHost) Object.assign(verdict, { ...judgeClient(row.client_name as string, [clientId]), local: verdict.local })
  return {
    client_id: clientId,
    client_name: row.client_name as string,
    redirect_uri: redirectUri,
    scopes: parseScopes(params.scope as string | undefined),
    state: typeof params.state === 'string' ? params.state : null,
    redirect_host: redirectHost(redirectUri),
    verified: verdict.verifiedAs !== null,
    verified_as: verdict.verifiedAs,
    local: verdict.local,
    imitates: verdict.imitates,
    registration: 'dynamic',
    registered_at: (row.created_at as Date).toISOString(),
    // Dynamic registrations have opaque ids; a URL client id (metadata document) names its host.
    client_id_host: documentHost,
  }
}

/** The person answering a consent request, already authenticated. */
export interface Approver {
  tenantId: string
  /** Stable id of the person or credential; becomes the token subject. */
  accountId: string
  role: MemberRole
}

export async function approverFromApiKey(deps: AuthDeps, apiKey: string): Promise<Approver> {
  const p = await authenticate(deps, new Headers({ authorization: `Bearer ${apiKey.trim()}` }), ['KEY'])
  if (p.kind !== 'KEY') throw new ApiError('unauthorized')
  return { tenantId: p.tenantId, accountId: p.keyId, role: p.role }
}

/** Scopes of the request the approver's role may not grant. */
export function ungrantable(role: MemberRole, scopes: string[]): string[] {
  return scopes.filter((s) => {
    const scope = agentScope(s)
    return !scope || !can(role, scope.permission)
  })
}

const OIDC_SCOPES = ['openid', 'offline_access']

/** Records the grant and finishes the interaction; returns where the browser goes next. */
export async function approve(
  deps: { db: Sql; clock: Clock; auth: AuthServer },
  interaction: InteractionModel,
  request: ConsentRequest,
  approver: Approver,
): Promise<string> {
  const { provider, resource } = deps.auth
  const grant = new provider.Grant({ accountId: approver.accountId, clientId: request.client_id })
  grant.addResourceScope(resource, request.scopes.join(' '))
  const asked = String(interaction.params.scope ?? '').split(' ')
  const oidc = OIDC_SCOPES.filter((s) => asked.includes(s))
  if (oidc.length) grant.addOIDCScope(oidc.join(' '))
  const grantId = await grant.save()
  const now = deps.clock.now()
  await deps.db.begin(async (tx) => {
    await tx`
      insert into agent_grants (id, tenant_id, client_id, account_id, scopes, created_at)
      values (${grantId}, ${approver.tenantId}, ${request.client_id}, ${approver.accountId}, ${request.scopes}::text[], ${now})`
    await tx`update agent_clients set approved_at = coalesce(approved_at, ${now}) where client_id = ${request.client_id}`
  })
  return finish(interaction, { login: { accountId: approver.accountId }, consent: { grantId } })
}

export function deny(interaction: InteractionModel): Promise<string> {
  return finish(interaction, { error: 'access_denied', error_description: 'The person denied the request' })
}

async function finish(interaction: InteractionModel, result: Record<string, unknown>): Promise<string> {
  interaction.result = result
  await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)))
  return interaction.returnTo
}

// ---- The page ----

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  // No scripts at all; the page cannot be framed (clickjacking an approve button).
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
}

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;max-width:38rem;margin:2.5rem auto;padding:0 1rem;color:#1b1f24}
.host{font-size:1.6rem;font-weight:700;word-break:break-all}.warn{background:#fff4e5;border:1px solid #f0a020;padding:.75rem;border-radius:6px}
.bad{background:#fdecec;border:1px solid #d33;padding:.75rem;border-radius:6px}.ok{color:#176f2c}
ul.scopes li{margin:.4rem 0}label{display:block;margin:1rem 0 .3rem}input[type=password]{width:100%;padding:.5rem;font-size:1rem}
button{font-size:1rem;padding:.55rem 1.2rem;margin:1rem .5rem 0 0}</style></head><body>${body}</body></html>`
  return new Response(html, { status, headers: PAGE_HEADERS })
}

export function consentPage(req: ConsentRequest, error?: string): string {
  const scopes = req.scopes
    .map((s) => `<li><code>${esc(s)}</code>: ${esc(agentScope(s)?.description ?? s)}</li>`)
    .join('')
  const parts = [
    `<h1>${esc(req.client_name)} wants access to your Portico workspace</h1>`,
    `<p>After you answer you will be sent to</p><p class="host" id="redirect-host">${esc(req.redirect_host)}</p>`,
  ]
  if (req.client_id_host) parts.push(`<p id="client-domain">This client is published by <strong>${esc(req.client_id_host)}</strong> (its metadata document is served there).</p>`)
  if (req.verified_as) parts.push(`<p class="ok">Verified: ${req.client_id_host ? 'this client\'s domain belongs' : 'every redirect of this client belongs'} to ${esc(req.verified_as)}.</p>`)
  if (req.local) {
    parts.push(
      '<p class="warn" id="local-warning">This client only redirects to this computer (a loopback address). ' +
        'Any program on this machine could have registered it: approve only if you just started it yourself.</p>',
    )
  }
  if (req.imitates) {
    parts.push(
      `<p class="bad" id="imitation">This client calls itself by the name of ${esc(req.imitates)}, but it does not redirect to ` +
        `${esc(req.imitates)}. It cannot be approved.</p>`,
    )
  }
  parts.push(`<h2>It asks to</h2><ul class="scopes" id="scopes">${scopes}</ul>`)
  if (error) parts.push(`<p class="bad" id="error">${esc(error)}</p>`)
  const approveControls = req.imitates
    ? ''
    : '<label for="api_key">Sign in with an API key of your workspace (owner, admin or member role as the scopes need)</label>' +
      '<input type="password" id="api_key" name="api_key" autocomplete="off">' +
      '<button type="submit" name="action" value="approve" id="approve">Approve</button>'
  parts.push(`<form method="post">${approveControls}<button type="submit" name="action" value="deny" id="deny">Deny</button></form>`)
  return parts.join('\n')
}

const MAX_FORM_BYTES = 8 * 1024

async function readForm(req: Request): Promise<URLSearchParams> {
  const text = await req.text()
  if (text.length > MAX_FORM_BYTES) throw new ApiError('invalid_request', 'The form is too large')
  return new URLSearchParams(text)
}

export interface ConsentDeps extends AuthDeps {
  auth: AuthServer
}

async function pending(deps: ConsentDeps, uid: string) {
  const request = await loadConsentRequest(deps.db, uid)
  const interaction = request ? await deps.auth.provider.Interaction.find(uid) : undefined
  return request && interaction ? { request, interaction } : null
}

const GONE = () => page(404, 'Request not found', '<h1>This request is unknown, expired or already answered</h1><p>Start again from your agent.</p>')
const redirect = (to: string) => new Response(null, { status: 303, headers: { location: to, 'cache-control': 'no-store' } })

export async function showConsent(deps: ConsentDeps, uid: string): Promise<Response> {
  const found = await pending(deps, uid)
  if (!found) return GONE()
  return page(200, `Approve ${found.request.client_name}?`, consentPage(found.request))
}

export async function answerConsent(deps: ConsentDeps, uid: string, req: Request): Promise<Response> {
  const found = await pending(deps, uid)
  if (!found) return GONE()
  const { request, interaction } = found
  const form = await readForm(req)
  const action = form.get('action')
  if (action === 'deny') return redirect(await deny(interaction))
  if (action !== 'approve') return page(400, 'Choose approve or deny', consentPage(request, 'Choose approve or deny.'))
  if (request.imitates) {
    return page(403, 'Cannot be approved', consentPage(request, `A client imitating ${request.imitates} cannot be approved.`))
  }
  let approver: Approver
  try {
    approver = await approverFromApiKey(deps, form.get('api_key') ?? '')
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    return page(401, 'Sign-in failed', consentPage(request, 'That API key is not valid for any workspace.'))
  }
  const missing = ungrantable(approver.role, request.scopes)
  if (missing.length) {
    return page(403, 'Not allowed', consentPage(request, `The ${approver.role} role cannot grant: ${missing.join(', ')}.`))
  }
  if (request.scopes.length === 0) return page(400, 'Nothing to grant', consentPage(request, 'The request asks for no scope Portico knows.'))
  return redirect(await approve({ db: deps.db, clock: deps.clock, auth: deps.auth }, interaction, request, approver))
}

/** The consent page routes, ahead of the authorization server's own /oauth routes. */
export function consentMount(deps: ConsentDeps): Mount {
  return (app: Elysia) => {
    app
      .get(`${OAUTH_MOUNT}/consent/:uid`, ({ params }) => showConsent(deps, params.uid))
      .post(`${OAUTH_MOUNT}/consent/:uid`, ({ params, request }) => answerConsent(deps, params.uid, request), { parse: 'none' })
    return app
  }
}
