// The consent step of the agent OAuth flow (CONTRACT.md section 5 rule 6: a registered client can do
// nothing until a person approves a grant). The consent request is the authorization server's pending
// interaction; its unguessable id is the capability to read it. The page shows who asks (name,
// redirect host, brand verdict, loopback warning) and each scope in plain words. The person signs in
// as themselves (people.ts: a one-time link mailed through their workspace's email sender, never an
// API key), then sees the workspace by name, unchecks any scope they do not want to give, and approves
// (the primary button) or denies. Invariants:
// - a request whose client name imitates a brand cannot be approved (no button, and a forged POST is
//   refused);
// - the approving member's role must hold the permission behind every scope they grant;
// - approval records one grant per person and client in the member's workspace, naming the member
//   (approving the same client again widens it); tokens carry only its scopes; a form that approves
//   carries the session's CSRF token.
import type { InteractionModel } from 'oidc-provider'
import type { Elysia } from 'elysia'
import type { Mount } from '../src/http/app.ts'
import type { Sql } from '../src/db/sql.ts'
import { markClientApproved } from '../src/db/agent-clients.ts'
import { insertAgentGrant, liveGrantOfAgent, widenAgentGrant } from '../src/db/agent-grants.ts'
import { GRANT_TTL_S, revokeGrant, REVOKE_REASONS } from '../src/domain/agent-grants.ts'
import { loadConsentRequest, type ConsentRequest } from '../src/domain/agent-consent.ts'
import { PERSON_CONFIRMS } from '../src/domain/person-confirm.ts'
import { quoteOutside } from '../src/domain/outside-text.ts'
import type { Clock } from '../src/clock.ts'
import { AGENT_SCOPE_IDS, agentScope, can, type MemberRole } from '../src/domain/rbac.ts'
import type { AuthDeps } from '../src/http/auth.ts'
import { addressOfRequest } from '../src/client-address.ts'
import { csrfToken, csrfValid, EMAIL, mailSignInLinks, signedInPerson, type Person } from './people.ts'
import { esc, page, readForm, seeOther } from './pages.ts'
import { OAUTH_MOUNT, type AuthServer } from './provider.ts'

/** The person answering a consent request, already authenticated. */
export interface Approver {
  tenantId: string
  /** Stable id of the person or credential; becomes the token subject. */
  accountId: string
  role: MemberRole
  /** The member the credential belongs to, when known: the grant ends with them (src/domain/agent-grants.ts). */
  memberId: string | null
  /** The workspace's name, and the name of the application the key belongs to, for the page. */
  workspace: string
  application: string | null
}

/** The signed-in member as the approver of a grant: the grant ends with them, narrows with their role. */
export function approverOf(person: Person): Approver {
  return { tenantId: person.tenantId, accountId: person.memberId, role: person.role, memberId: person.memberId, workspace: person.workspace, application: null }
}

/** Scopes of the request the approver's role may not grant. */
export function ungrantable(role: MemberRole, scopes: string[]): string[] {
  return scopes.filter((s) => {
    const scope = agentScope(s)
    return !scope || !can(role, scope.permission)
  })
}

const OIDC_SCOPES = ['openid', 'offline_access']

/**
 * Records the grant and finishes the interaction; returns where the browser goes next. One grant per
 * person and client: when the person already gave this client a grant that still holds (a step-up,
 * or the same client installed again), it is widened to the scopes of both, so its tokens and the new
 * ones end together when it is revoked. A grant past its time ends and a new one is made.
 */
export async function approve(
  deps: { db: Sql; clock: Clock; auth: AuthServer },
  interaction: InteractionModel,
  request: ConsentRequest,
  approver: Approver,
  /** The scopes the person left checked: some or all of the request's. */
  scopes: string[] = request.scopes,
): Promise<string> {
  const { provider, resource } = deps.auth
  const asked = String(interaction.params.scope ?? '').split(' ')
  const oidc = OIDC_SCOPES.filter((s) => asked.includes(s))
  // The authorization request resumes with the scopes the person left checked, so the provider does
  // not see the unchecked ones as still missing and ask again.
  interaction.params.scope = [...oidc, ...scopes].join(' ')
  const now = deps.clock.now()
  const agent = { tenantId: approver.tenantId, clientId: request.client_id, accountId: approver.accountId }
  const grantId = await deps.db.begin(async (tx) => {
    const held = await liveGrantOfAgent(tx, agent)
    const current = held && held.created_at.getTime() + GRANT_TTL_S * 1000 > now.getTime() ? await provider.Grant.find(held.id) : undefined
    if (held && !current) await revokeGrant(tx, held.id, REVOKE_REASONS.expired, now)
    const grant = current ?? new provider.Grant({ accountId: approver.accountId, clientId: request.client_id })
    const all = AGENT_SCOPE_IDS.filter((s) => scopes.includes(s) || (current !== undefined && held!.scopes.includes(s)))
    grant.addResourceScope(resource, all.join(' '))
    if (oidc.length) grant.addOIDCScope(oidc.join(' '))
    const id = await grant.save()
    if (current) await widenAgentGrant(tx, id, all)
    else await insertAgentGrant(tx, { id, tenant_id: approver.tenantId, client_id: request.client_id, account_id: approver.accountId, approved_member_id: approver.memberId, scopes: all }, now)
    await markClientApproved(tx, request.client_id, now)
    return id
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

/** The first letter of the client's name, shown as its badge (no remote logos: the page loads nothing). */
function avatar(name: string): string {
  const first = [...name.trim()][0] ?? '?'
  return `<span class="avatar" aria-hidden="true">${esc(first.toUpperCase())}</span>`
}

const scopeLine = (s: string) => `<code>${esc(s)}</code>: ${esc(agentScope(s)?.description ?? s)}`

/** What a signed-in person may do from the header: their agents, and signing out. */
export function personNav(person: Person | null, back: string): string {
  if (!person) return '<a href="/oauth/agents">Your agents</a>'
  return (
    `<a href="/oauth/agents">Your agents</a><form method="post" action="/oauth/signout" class="inline">` +
    `<input type="hidden" name="next" value="${esc(back)}"><button type="submit" class="link">Sign out ${esc(person.email)}</button></form>`
  )
}

export type ConsentView = { kind: 'signin'; email?: string } | { kind: 'sent'; email: string } | { kind: 'signed-in'; person: Person; csrf: string }

export function consentPage(req: ConsentRequest, view: ConsentView, error?: string): string {
  const title =
    view.kind === 'signed-in'
      ? `Allow ${esc(quoteOutside(req.client_name, 80))} to access ${esc(view.person.workspace)}?`
      : `${esc(quoteOutside(req.client_name, 80))} wants access to your Portico workspace`
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
  parts.push(`<p class="note" id="person-confirms">${esc(PERSON_CONFIRMS)}</p>`)
  const deny = '<button type="submit" name="action" value="deny" id="deny" class="secondary">Deny</button>'
  if (view.kind === 'signed-in') {
    const { person, csrf } = view
    parts.push(`<p class="workspace" id="workspace">Workspace: <strong>${esc(person.workspace)}</strong>, signed in as ${esc(person.email)} (${esc(person.role)}).</p>`)
    const boxes = req.scopes
      .map((s) => {
        const allowed = ungrantable(person.role, [s]).length === 0
        const note = allowed ? '' : ` <em>(your ${esc(person.role)} role cannot grant this)</em>`
        return `<label><input type="checkbox" name="scope" value="${esc(s)}"${allowed ? ' checked' : ' disabled'}><span>${scopeLine(s)}${note}</span></label>`
      })
      .join('')
    const approve = req.imitates ? '' : '<button type="submit" name="action" value="approve" id="approve" class="primary">Approve</button>'
    parts.push(
      `<form method="post"><fieldset id="scopes"><legend>It may, unless you uncheck it:</legend>${boxes}</fieldset>` +
        `<input type="hidden" name="scopes_shown" value="1"><input type="hidden" name="csrf" value="${esc(csrf)}">` +
        `<div class="actions">${approve}${deny}</div></form>`,
    )
    return parts.join('\n')
  }
  const scopes = req.scopes.map((s) => `<li>${scopeLine(s)}</li>`).join('')
  parts.push(`<h2>It asks to</h2><ul class="scopes" id="scopes">${scopes}</ul>`)
  if (view.kind === 'sent') {
    parts.push(
      `<p class="note" id="sent" role="status">If <strong>${esc(view.email)}</strong> belongs to a member of a Portico workspace, a sign-in link is on its way. ` +
        'It works once, for 15 minutes, and brings you back here to answer.</p>',
    )
    parts.push(`<form method="post"><div class="actions">${deny}</div></form>`)
    return parts.join('\n')
  }
  const signIn = req.imitates
    ? ''
    : '<label class="field" for="email">Sign in as yourself: your email address in the workspace</label>' +
      `<input type="email" id="email" name="email" autocomplete="email" required value="${esc(view.email ?? '')}">`
  const next = req.imitates ? '' : '<button type="submit" name="action" value="email" id="continue" class="primary">Email me a sign-in link</button>'
  parts.push(`<form method="post">${signIn}<div class="actions">${next}${deny}</div></form>`)
  return parts.join('\n')
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

function consentResponse(status: number, request: ConsentRequest, view: ConsentView, uid: string, error?: string): Response {
  const person = view.kind === 'signed-in' ? view.person : null
  return page(status, `Approve ${quoteOutside(request.client_name, 80)}?`, consentPage(request, view, error), { nav: personNav(person, `/oauth/consent/${uid}`), brand: person?.branding })
}

function viewOf(deps: ConsentDeps, person: Person | null): ConsentView {
  return person ? { kind: 'signed-in', person, csrf: csrfToken(deps.config, person) } : { kind: 'signin' }
}

export async function showConsent(deps: ConsentDeps, uid: string, req: Request): Promise<Response> {
  const found = await pending(deps, uid)
  if (!found) return GONE()
  return consentResponse(200, found.request, viewOf(deps, await signedInPerson(deps, req)), uid)
}

/** The scopes the person left checked. */
function chosenScopes(request: ConsentRequest, form: URLSearchParams): string[] {
  const checked = new Set(form.getAll('scope'))
  return request.scopes.filter((s) => checked.has(s))
}

export async function answerConsent(deps: ConsentDeps, uid: string, req: Request, ip: string | null): Promise<Response> {
  const found = await pending(deps, uid)
  if (!found) return GONE()
  const { request, interaction } = found
  const person = await signedInPerson(deps, req)
  const form = await readForm(req)
  if (!form) return consentResponse(413, request, viewOf(deps, person), uid, 'The form is too large.')
  const action = form.get('action')
  if (action === 'deny') return seeOther(await deny(interaction))
  if (form.has('api_key')) {
    return consentResponse(400, request, viewOf(deps, person), uid, 'API keys are not accepted here: sign in as yourself with your email address.')
  }
  if (request.imitates) {
    return consentResponse(403, request, viewOf(deps, person), uid, `A client imitating ${request.imitates} cannot be approved.`)
  }
  if (action === 'email') {
    const email = (form.get('email') ?? '').trim()
    if (!EMAIL.test(email)) return consentResponse(400, request, { kind: 'signin', email }, uid, 'Enter your email address.')
    const sent = await mailSignInLinks(deps, email, `/oauth/consent/${uid}`, ip, 'to answer an agent\'s request for access')
    if (!sent) return consentResponse(429, request, { kind: 'signin', email }, uid, 'Too many sign-in links were asked for. Wait a few minutes, then try again.')
    return consentResponse(200, request, { kind: 'sent', email }, uid)
  }
  if (action !== 'approve') return consentResponse(400, request, viewOf(deps, person), uid, 'Choose approve or deny.')
  if (!person) return consentResponse(401, request, { kind: 'signin' }, uid, 'Sign in first: your sign-in ended or was never made.')
  const view = viewOf(deps, person)
  if (!csrfValid(deps.config, person, form.get('csrf'))) return consentResponse(403, request, view, uid, 'This form is out of date: answer again.')
  if (request.scopes.length === 0) return consentResponse(400, request, view, uid, 'The request asks for no scope Portico knows.')
  const scopes = chosenScopes(request, form)
  if (scopes.length === 0) return consentResponse(400, request, view, uid, 'Leave at least one scope checked, or deny.')
  const missing = ungrantable(person.role, scopes)
  if (missing.length) return consentResponse(403, request, view, uid, `The ${person.role} role cannot grant: ${missing.join(', ')}.`)
  return seeOther(await approve({ db: deps.db, clock: deps.clock, auth: deps.auth }, interaction, request, approverOf(person), scopes))
}

/** The consent page routes, ahead of the authorization server's own /oauth routes. */
export function consentMount(deps: ConsentDeps): Mount {
  const ipOf = addressOfRequest(deps.config.trustProxy)
  return (app: Elysia) => {
    app
      .get(`${OAUTH_MOUNT}/consent/:uid`, ({ params, request }) => showConsent(deps, params.uid, request))
      .post(`${OAUTH_MOUNT}/consent/:uid`, ({ params, request, server }) => answerConsent(deps, params.uid, request, ipOf(request, server)), { parse: 'none' })
    return app
  }
}
