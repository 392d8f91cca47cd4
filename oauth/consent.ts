// The consent step of the agent OAuth flow (the API contract, section 5 rule 6: a registered client can do
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
//   carries the session's CSRF token;
// - the page speaks the person's language (oauth/strings.ts: every locale the widget speaks).
import type { InteractionModel } from 'oidc-provider'
import type { Elysia } from 'elysia'
import type { Mount } from '../src/http/app.ts'
import type { Sql } from '../src/db/sql.ts'
import { markClientApproved } from '../src/db/agent-clients.ts'
import { insertAgentGrant, liveGrantOfAgent, widenAgentGrant } from '../src/db/agent-grants.ts'
import { GRANT_TTL_S, revokeGrant, REVOKE_REASONS } from '../src/domain/agent-grants.ts'
import { loadConsentRequest, type ConsentRequest } from '../src/domain/agent-consent.ts'
import { quoteOutside } from '../src/domain/outside-text.ts'
import type { Clock } from '../src/clock.ts'
import { AGENT_SCOPE_IDS, agentScope, can, type MemberRole } from '../src/domain/rbac.ts'
import type { AuthDeps } from '../src/http/auth.ts'
import { addressOfRequest } from '../src/client-address.ts'
import { csrfToken, csrfValid, EMAIL, mailSignInLinks, signedInPerson, type Person } from './people.ts'
import { esc, ownFormsOnly, page, readForm, seeOther, withCookie } from './pages.ts'
import { ENGLISH, say, sayHtml, sayPlain, speechOf, type Speech } from './strings.ts'
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

const scopeLine = (s: string, sp: Speech) => `<code>${esc(s)}</code>: ${esc(sp.s.scopes[s] ?? agentScope(s)?.description ?? s)}`

/** What a signed-in person may do from the header: their agents, and signing out. */
export function personNav(person: Person | null, back: string, { s }: Speech = ENGLISH): string {
  if (!person) return `<a href="/oauth/agents">${say(s.yourAgents)}</a>`
  return (
    `<a href="/oauth/agents">${say(s.yourAgents)}</a><form method="post" action="/oauth/signout" class="inline">` +
    `<input type="hidden" name="next" value="${esc(back)}"><button type="submit" class="link">${say(s.signOut, { email: person.email })}</button></form>`
  )
}

export type ConsentView = { kind: 'signin'; email?: string } | { kind: 'sent'; email: string } | { kind: 'signed-in'; person: Person; csrf: string }

export function consentPage(req: ConsentRequest, view: ConsentView, error?: string, sp: Speech = ENGLISH): string {
  const { s } = sp
  // The client's name is outside text: quoted, hidden characters shown (src/domain/outside-text.ts).
  const client = quoteOutside(req.client_name, 80)
  const title = view.kind === 'signed-in' ? say(s.titleSignedIn, { client, workspace: view.person.workspace }) : say(s.titleAsk, { client })
  const parts = [
    `<div class="who">${avatar(req.client_name)}<h1>${title}</h1></div>`,
    `<p>${say(s.sentTo)}</p><p class="host" id="redirect-host"><bdi>${esc(req.redirect_host)}</bdi></p>`,
  ]
  if (req.client_id_host) parts.push(`<p id="client-domain">${sayHtml(s.publishedBy, { host: `<strong dir="ltr">${esc(req.client_id_host)}</strong>` })}</p>`)
  if (req.verified_as) parts.push(`<p class="ok">${say(req.client_id_host ? s.verifiedDomain : s.verifiedRedirects, { name: req.verified_as })}</p>`)
  if (req.local) parts.push(`<p class="warn" id="local-warning">${say(s.localWarning)}</p>`)
  if (req.imitates) parts.push(`<p class="bad" id="imitation">${say(s.imitation, { brand: req.imitates })}</p>`)
  if (error) parts.push(`<p class="bad" id="error" role="alert">${esc(error)}</p>`)
  parts.push(`<p class="note" id="person-confirms">${say(s.personConfirms)}</p>`)
  const deny = `<button type="submit" name="action" value="deny" id="deny" class="secondary">${say(s.deny)}</button>`
  if (view.kind === 'signed-in') {
    const { person, csrf } = view
    parts.push(`<p class="workspace" id="workspace">${sayHtml(s.workspace, { workspace: `<strong><bdi>${esc(person.workspace)}</bdi></strong>`, email: `<bdi>${esc(person.email)}</bdi>`, role: esc(person.role) })}</p>`)
    const boxes = req.scopes
      .map((id) => {
        const allowed = ungrantable(person.role, [id]).length === 0
        const note = allowed ? '' : ` <em>${sayHtml(s.roleCannot, { role: esc(person.role) })}</em>`
        return `<label><input type="checkbox" name="scope" value="${esc(id)}"${allowed ? ' checked' : ' disabled'}><span>${scopeLine(id, sp)}${note}</span></label>`
      })
      .join('')
    const approve = req.imitates ? '' : `<button type="submit" name="action" value="approve" id="approve" class="primary">${say(s.approve)}</button>`
    parts.push(
      `<form method="post"><fieldset id="scopes"><legend>${say(s.scopesLegend)}</legend>${boxes}</fieldset>` +
        `<input type="hidden" name="scopes_shown" value="1"><input type="hidden" name="csrf" value="${esc(csrf)}">` +
        `<div class="actions">${approve}${deny}</div></form>`,
    )
    return parts.join('\n')
  }
  const scopes = req.scopes.map((id) => `<li>${scopeLine(id, sp)}</li>`).join('')
  parts.push(`<h2>${say(s.asksTo)}</h2><ul class="scopes" id="scopes">${scopes}</ul>`)
  if (view.kind === 'sent') {
    parts.push(`<p class="note" id="sent" role="status">${sayHtml(s.sent, { email: `<strong dir="ltr">${esc(view.email)}</strong>` })}</p>`)
    parts.push(`<form method="post"><div class="actions">${deny}</div></form>`)
    return parts.join('\n')
  }
  const signIn = req.imitates
    ? ''
    : `<label class="field" for="email">${say(s.emailLabel)}</label>` +
      `<input type="email" id="email" name="email" autocomplete="email" dir="ltr" required value="${esc(view.email ?? '')}">`
  const next = req.imitates ? '' : `<button type="submit" name="action" value="email" id="continue" class="primary">${say(s.emailMe)}</button>`
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

const GONE = ({ s, lang }: Speech) => page(404, s.goneTitle, `<h1>${say(s.goneHeading)}</h1><p>${say(s.goneBody)}</p>`, { lang, navLabel: s.account, footer: footerOf(s) })

const footerOf = (s: Speech['s']) => sayHtml(s.footer, { agents: `<a href="/oauth/agents">${say(s.yourAgents)}</a>` })

function consentResponse(status: number, request: ConsentRequest, view: ConsentView, uid: string, sp: Speech, error?: string): Response {
  const person = view.kind === 'signed-in' ? view.person : null
  return page(status, sayPlain(sp.s.pageTitle, { client: quoteOutside(request.client_name, 80) }), consentPage(request, view, error, sp), {
    nav: personNav(person, `/oauth/consent/${uid}`, sp),
    brand: person?.branding,
    lang: sp.lang,
    navLabel: sp.s.account,
    footer: footerOf(sp.s),
  })
}

function viewOf(deps: ConsentDeps, person: Person | null): ConsentView {
  return person ? { kind: 'signed-in', person, csrf: csrfToken(deps.config, person) } : { kind: 'signin' }
}

export async function showConsent(deps: ConsentDeps, uid: string, req: Request): Promise<Response> {
  const sp = speechOf(req)
  const found = await pending(deps, uid)
  if (!found) return GONE(sp)
  return consentResponse(200, found.request, viewOf(deps, await signedInPerson(deps, req)), uid, sp)
}

/** The scopes the person left checked. */
function chosenScopes(request: ConsentRequest, form: URLSearchParams): string[] {
  const checked = new Set(form.getAll('scope'))
  return request.scopes.filter((s) => checked.has(s))
}

export async function answerConsent(deps: ConsentDeps, uid: string, req: Request, ip: string | null): Promise<Response> {
  const sp = speechOf(req)
  const { s } = sp
  const found = await pending(deps, uid)
  if (!found) return GONE(sp)
  const { request, interaction } = found
  const person = await signedInPerson(deps, req)
  const form = await readForm(req)
  if (!form) return consentResponse(413, request, viewOf(deps, person), uid, sp, s.errTooLarge)
  const action = form.get('action')
  if (action === 'deny') return seeOther(await deny(interaction))
  if (form.has('api_key')) {
    return consentResponse(400, request, viewOf(deps, person), uid, sp, s.errApiKey)
  }
  if (request.imitates) {
    return consentResponse(403, request, viewOf(deps, person), uid, sp, sayPlain(s.errImitating, { brand: request.imitates }))
  }
  if (action === 'email') {
    const email = (form.get('email') ?? '').trim()
    if (!EMAIL.test(email)) return consentResponse(400, request, { kind: 'signin', email }, uid, sp, s.errEmail)
    const asked = mailSignInLinks(deps, email, `/oauth/consent/${uid}`, ip, 'consent', req)
    if (asked.refused) return consentResponse(429, request, { kind: 'signin', email }, uid, sp, s.errTooMany)
    return withCookie(consentResponse(200, request, { kind: 'sent', email }, uid, sp), asked.cookie)
  }
  if (action !== 'approve') return consentResponse(400, request, viewOf(deps, person), uid, sp, s.errChoose)
  if (!person) return consentResponse(401, request, { kind: 'signin' }, uid, sp, s.errSignIn)
  const view = viewOf(deps, person)
  if (!csrfValid(deps.config, person, form.get('csrf'))) return consentResponse(403, request, view, uid, sp, s.errOutOfDate)
  if (request.scopes.length === 0) return consentResponse(400, request, view, uid, sp, s.errNoScope)
  const scopes = chosenScopes(request, form)
  if (scopes.length === 0) return consentResponse(400, request, view, uid, sp, s.errLeaveOne)
  const missing = ungrantable(person.role, scopes)
  if (missing.length) return consentResponse(403, request, view, uid, sp, sayPlain(s.errRole, { role: person.role, scopes: missing.join(', ') }))
  return seeOther(await approve({ db: deps.db, clock: deps.clock, auth: deps.auth }, interaction, request, approverOf(person), scopes))
}

/** The consent page routes, ahead of the authorization server's own /oauth routes. */
export function consentMount(deps: ConsentDeps): Mount {
  const ipOf = addressOfRequest(deps.config.trustProxy, deps.config.trustProxyHeader)
  return (app: Elysia) => {
    app
      .get(`${OAUTH_MOUNT}/consent/:uid`, ({ params, request }) => showConsent(deps, params.uid, request))
      .post(`${OAUTH_MOUNT}/consent/:uid`, ownFormsOnly(deps.config.publicUrl, ({ params, request, server }) => answerConsent(deps, params.uid!, request, ipOf(request, server))), { parse: 'none' })
    return app
  }
}
