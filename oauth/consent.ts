// The consent step of the agent OAuth flow (CONTRACT.md section 5 rule 6: a registered client can do
// nothing until a person approves a grant). The consent request is the authorization server's pending
// interaction; its unguessable id is the capability to read it. The page shows who asks (name,
// redirect host, brand verdict, loopback warning) and each scope in plain words. A person answers in
// two steps: signs in with an API key of their workspace (Continue), then sees the workspace by name,
// unchecks any scope they do not want to give, and approves (the primary button) or denies. Between
// the steps the page carries a signed, short-lived sign-in (SIGNIN_TTL_MS), never the key. A script
// may still post `api_key` with `action=approve` in one step (all requested scopes). Invariants:
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
import { createHmac } from 'node:crypto'
import { agentScope, can, parseScopes, type MemberRole } from '../src/domain/rbac.ts'
import { deriveKey, secretEquals } from '../src/domain/secrets.ts'
import type { Config } from '../src/config.ts'
import { authenticate, type AuthDeps } from '../src/http/auth.ts'
import { ApiError } from '../src/errors.ts'
import { brandingOut, type BrandingView } from '../src/domain/branding.ts'
import { judgeClient } from './brands.ts'
import { isClientIdUrl } from './client-id.ts'
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

/** Where the person returns to: the web host, or for an app scheme the scheme with its host (`claude://cb`). */
export function redirectHost(uri: string): string {
  try {
    const u = new URL(uri)
    if (u.protocol === 'https:' || u.protocol === 'http:') return u.host
    return u.host ? `${u.protocol}//${u.host}` : u.protocol
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
  /** The member the credential belongs to, when known: the grant ends with them (oauth/grants.ts). */
  memberId: string | null
  /** The workspace's name, and the name of the application the key belongs to, for the page. */
  workspace: string
  application: string | null
  /** The key's application's branding, for the page's header once signed in. */
  branding?: BrandingView | null
}

/** The approver behind an unrevoked API key id; null when revoked or unknown. */
async function approverFromKeyId(db: Sql, keyId: string): Promise<Approver | null> {
  // A key created for a member (the workspace's first owner, a console person) names them.
  const [k] = await db`
    select k.id, k.tenant_id, k.role, t.name as workspace, a.name as application, a.branding, m.id as member_id
    from api_keys k join tenants t on t.id = k.tenant_id
    left join applications a on a.id = k.application_id
    left join members m on m.id = k.created_by and m.tenant_id = k.tenant_id
    where k.id = ${keyId} and k.revoked_at is null`
  if (!k) return null
  return { tenantId: k.tenant_id, accountId: k.id, role: k.role, memberId: k.member_id ?? null, workspace: k.workspace, application: k.application ?? null, branding: brandingOut(k.branding) }
}

export async function approverFromApiKey(deps: AuthDeps, apiKey: string): Promise<Approver> {
  const p = await authenticate(deps, new Headers({ authorization: `Bearer ${apiKey.trim()}` }), ['KEY'])
  if (p.kind !== 'KEY') throw new ApiError('unauthorized')
  const approver = await approverFromKeyId(deps.db, p.keyId)
  if (!approver) throw new ApiError('unauthorized')
  return approver
}

/** How long a sign-in on the consent page lasts before Approve (the second step). */
export const SIGNIN_TTL_MS = 10 * 60_000

const signinMac = (config: Config, body: string) => createHmac('sha256', deriveKey(config.secretsKey, 'consent-signin')).update(body).digest('base64url')

/** A sign-in for this consent request only: `keyId.expiry.mac`. */
function signIn(config: Config, uid: string, keyId: string, now: Date): string {
  const body = `${keyId}.${now.getTime() + SIGNIN_TTL_MS}`
  return `${body}.${signinMac(config, `${uid}.${body}`)}`
}

/** The key id of a valid sign-in for `uid`; null when forged, for another request, or expired. */
function signedInKey(config: Config, uid: string, token: string, now: Date): string | null {
  const m = /^([\w-]+)\.(\d+)\.([\w-]+)$/.exec(token)
  if (!m || Number(m[2]) < now.getTime()) return null
  return secretEquals(m[3]!, signinMac(config, `${uid}.${m[1]}.${m[2]}`)) ? m[1]! : null
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
  /** The scopes the person left checked: some or all of the request's. */
  scopes: string[] = request.scopes,
): Promise<string> {
  const { provider, resource } = deps.auth
  const grant = new provider.Grant({ accountId: approver.accountId, clientId: request.client_id })
  grant.addResourceScope(resource, scopes.join(' '))
  const asked = String(interaction.params.scope ?? '').split(' ')
  const oidc = OIDC_SCOPES.filter((s) => asked.includes(s))
  if (oidc.length) grant.addOIDCScope(oidc.join(' '))
  // The authorization request resumes with the scopes the person left checked, so the provider does
  // not see the unchecked ones as still missing and ask again.
  interaction.params.scope = [...oidc, ...scopes].join(' ')
  const grantId = await grant.save()
  const now = deps.clock.now()
  await deps.db.begin(async (tx) => {
    await tx`
      insert into agent_grants (id, tenant_id, client_id, account_id, approved_member_id, scopes, created_at)
      values (${grantId}, ${approver.tenantId}, ${request.client_id}, ${approver.accountId}, ${approver.memberId}, ${scopes}::text[], ${now})`
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
  // No scripts at all; the page cannot be framed (clickjacking an approve button). Images: a branded header's logo.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'none'; base-uri 'none'",
}

/**
 * The header of the consent page: Portico's mark, or once a person has signed in, the branding of
 * their key's application (its logo and name on its accent colour, with the computed foreground),
 * and the CSS rules that colour it.
 */
export function consentHeader(brand?: BrandingView | null): { html: string; css: string } {
  if (!brand) return { html: '<header><span class="mark" aria-hidden="true">P</span><span>Portico</span></header>', css: '' }
  const name = brand.display_name ? `<span>${esc(brand.display_name)}</span>` : ''
  const logo = brand.logo_url ? `<img class="logo" src="${esc(brand.logo_url)}" alt="${brand.display_name ? '' : 'Application logo'}">` : ''
  const css = brand.accent_color ? `header.brand{background:${brand.accent_color};color:${brand.accent_foreground};border-bottom:0;padding:.75rem 1rem;border-radius:6px}` : ''
  return { html: `<header class="brand" id="brand">${logo}${name || (logo ? '' : '<span>Portico</span>')}</header>`, css }
}

function page(status: number, title: string, main: string, brand?: BrandingView | null): Response {
  const header = consentHeader(brand)
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${esc(title)}</title><style>
*{box-sizing:border-box}body{font-family:system-ui,sans-serif;max-width:38rem;margin:0 auto;padding:1rem;color:#1b1f24;line-height:1.45}
header{display:flex;align-items:center;gap:.5rem;padding:.5rem 0 1rem;border-bottom:1px solid #d8dde3;margin-bottom:1.5rem;font-weight:700}
.mark{display:inline-grid;place-items:center;width:1.8rem;height:1.8rem;border-radius:6px;background:#1f4fbf;color:#fff}
.who{display:flex;align-items:center;gap:.75rem}.avatar{flex:none;display:inline-grid;place-items:center;width:3rem;height:3rem;border-radius:50%;background:#5b3cc4;color:#fff;font-size:1.4rem;font-weight:700}
h1{font-size:1.5rem;margin:.25rem 0}.host{font-size:1.4rem;font-weight:700;overflow-wrap:anywhere}
.warn{background:#fff4e5;border:1px solid #b86e00;padding:.75rem;border-radius:6px}.bad{background:#fdecec;border:1px solid #b3261e;padding:.75rem;border-radius:6px}
.ok{color:#176f2c}.workspace{background:#eef3fb;border-radius:6px;padding:.75rem}
ul.scopes{padding-left:1.2rem}ul.scopes li{margin:.4rem 0}fieldset{border:1px solid #d8dde3;border-radius:6px}
fieldset label{display:flex;gap:.5rem;align-items:flex-start;margin:.5rem 0}fieldset input{width:1.25rem;height:1.25rem;flex:none;margin-top:.1rem}
label.key{display:block;margin:1rem 0 .3rem}input[type=password]{display:block;width:100%;max-width:100%;padding:.6rem;font-size:1rem;border:1px solid #6b7480;border-radius:6px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}
button{font-size:1rem;min-height:44px;padding:.55rem 1.4rem;border-radius:6px;cursor:pointer}
button.primary{background:#1f4fbf;color:#fff;border:1px solid #1f4fbf;font-weight:600}button.secondary{background:#fff;color:#1b1f24;border:1px solid #6b7480}
footer{margin-top:2rem;padding-top:1rem;border-top:1px solid #d8dde3;font-size:.875rem;color:#4a525c}
header .logo{max-height:2.25rem;max-width:9rem;background:#fff;border-radius:4px;padding:2px}${header.css}</style></head>
<body>${header.html}
<main>${main}</main>
<footer><p>Portico asks on behalf of your workspace. Approving lets the application act only within the scopes you leave checked; you can revoke it at any time from your workspace's agent list.</p></footer></body></html>`
  return new Response(html, { status, headers: PAGE_HEADERS })
}

/** The first letter of the client's name, shown as its badge (no remote logos: the page loads nothing). */
function avatar(name: string): string {
  const first = [...name.trim()][0] ?? '?'
  return `<span class="avatar" aria-hidden="true">${esc(first.toUpperCase())}</span>`
}

/** After sign-in: the workspace being opened, the scopes to leave checked, and the sign-in to carry. */
export interface SignedIn {
  approver: Approver
  session: string
}

export function consentPage(req: ConsentRequest, error?: string, signedIn?: SignedIn): string {
  const title = signedIn
    ? `Allow ${esc(req.client_name)} to access ${esc(signedIn.approver.workspace)}?`
    : `${esc(req.client_name)} wants access to your Portico workspace`
  const parts = [
    `<div class="who">${avatar(req.client_name)}<h1>${title}</h1></div>`,
    `<p>After you answer you will be sent to</p><p class="host" id="redirect-host">${esc(req.redirect_host)}</p>`,
  ]
  if (req.client_id_host) parts.push(`<p id="client-domain">This client is published by <strong>${esc(req.client_id_host)}</strong> (its metadata document is served there).</p>`)
  if (req.verified_as) parts.push(`<p class="ok">Verified: ${req.client_id_host ? 'this client\'s domain belongs to' : 'every redirect of this client is a web address of'} ${esc(req.verified_as)}.</p>`)
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
  if (error) parts.push(`<p class="bad" id="error" role="alert">${esc(error)}</p>`)
  const deny = '<button type="submit" name="action" value="deny" id="deny" class="secondary">Deny</button>'
  if (signedIn) {
    const { approver } = signedIn
    const app = approver.application ? ` (application ${esc(approver.application)})` : ''
    parts.push(`<p class="workspace" id="workspace">Workspace: <strong>${esc(approver.workspace)}</strong>${app}, signed in as ${esc(approver.role)}.</p>`)
    const boxes = req.scopes
      .map((s) => {
        const allowed = ungrantable(approver.role, [s]).length === 0
        const note = allowed ? '' : ` <em>(your ${esc(approver.role)} role cannot grant this)</em>`
        return `<label><input type="checkbox" name="scope" value="${esc(s)}"${allowed ? ' checked' : ' disabled'}><span><code>${esc(s)}</code>: ${esc(agentScope(s)?.description ?? s)}${note}</span></label>`
      })
      .join('')
    parts.push(
      `<form method="post"><fieldset id="scopes"><legend>It may, unless you uncheck it:</legend>${boxes}</fieldset>` +
        `<input type="hidden" name="scopes_shown" value="1"><input type="hidden" name="signin" value="${esc(signedIn.session)}">` +
        `<div class="actions"><button type="submit" name="action" value="approve" id="approve" class="primary">Approve</button>${deny}</div></form>`,
    )
    return parts.join('\n')
  }
  const scopes = req.scopes.map((s) => `<li><code>${esc(s)}</code>: ${esc(agentScope(s)?.description ?? s)}</li>`).join('')
  parts.push(`<h2>It asks to</h2><ul class="scopes" id="scopes">${scopes}</ul>`)
  const signInControls = req.imitates
    ? ''
    : '<label class="key" for="api_key">Sign in with an API key of your workspace (owner, admin or member role as the scopes need)</label>' +
      '<input type="password" id="api_key" name="api_key" autocomplete="off">'
  const next = req.imitates ? '' : '<button type="submit" name="action" value="signin" id="continue" class="primary">Continue</button>'
  parts.push(`<form method="post">${signInControls}<div class="actions">${next}${deny}</div></form>`)
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

/** The scopes the person left checked (all requested when the form showed no boxes: a one-step post). */
function chosenScopes(request: ConsentRequest, form: URLSearchParams): string[] {
  if (form.get('scopes_shown') === null) return request.scopes
  const checked = new Set(form.getAll('scope'))
  return request.scopes.filter((s) => checked.has(s))
}

export async function answerConsent(deps: ConsentDeps, uid: string, req: Request): Promise<Response> {
  const found = await pending(deps, uid)
  if (!found) return GONE()
  const { request, interaction } = found
  const form = await readForm(req)
  const action = form.get('action')
  if (action === 'deny') return redirect(await deny(interaction))
  if (action !== 'approve' && action !== 'signin') return page(400, 'Choose approve or deny', consentPage(request, 'Choose approve or deny.'))
  if (request.imitates) {
    return page(403, 'Cannot be approved', consentPage(request, `A client imitating ${request.imitates} cannot be approved.`))
  }
  if (request.scopes.length === 0) return page(400, 'Nothing to grant', consentPage(request, 'The request asks for no scope Portico knows.'))
  const now = deps.clock.now()
  let approver: Approver | null = null
  const signin = form.get('signin')
  if (signin !== null) {
    const keyId = signedInKey(deps.config, uid, signin, now)
    approver = keyId ? await approverFromKeyId(deps.db, keyId) : null
    if (!approver) return page(401, 'Sign in again', consentPage(request, 'Your sign-in expired or is no longer valid: sign in again.'))
  } else {
    try {
      approver = await approverFromApiKey(deps, form.get('api_key') ?? '')
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      return page(401, 'Sign-in failed', consentPage(request, 'That API key is not valid for any workspace.'))
    }
  }
  const signedIn = { approver, session: signin ?? signIn(deps.config, uid, approver.accountId, now) }
  if (action === 'signin') return page(200, `Approve ${request.client_name}?`, consentPage(request, undefined, signedIn), approver.branding)
  const scopes = chosenScopes(request, form)
  if (scopes.length === 0) return page(400, 'Nothing to grant', consentPage(request, 'Leave at least one scope checked, or deny.', signedIn), approver.branding)
  const missing = ungrantable(approver.role, scopes)
  if (missing.length) {
    return page(403, 'Not allowed', consentPage(request, `The ${approver.role} role cannot grant: ${missing.join(', ')}.`, signin ? signedIn : undefined))
  }
  return redirect(await approve({ db: deps.db, clock: deps.clock, auth: deps.auth }, interaction, request, approver, scopes))
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
