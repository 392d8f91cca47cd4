// The pages a person uses as themselves (people.ts): the sign-in link's landing page, signing out, and
// "Your agents": the workspace's agent grants (client, its verified domain or "unverified", scopes,
// who approved, created, last used), each live one revoked in a click, as DELETE /v1/agent-grants/{id}
// does. A member may revoke a grant they approved; revoking others' needs a role that manages keys.
import type { Elysia } from 'elysia'
import type { Mount } from '../src/http/app.ts'
import { agentGrant, agentGrantsOf, isGrantOfTenant, type GrantRow } from '../src/db/agent-grants.ts'
import { agentScope, can } from '../src/domain/rbac.ts'
import { judgeClient } from '../src/domain/agent-brands.ts'
import { addressOfRequest } from '../src/client-address.ts'
import { isClientIdUrl } from '../src/domain/client-id.ts'
import { personNav } from './consent.ts'
import { redirectHost } from '../src/domain/agent-consent.ts'
import { quoteOutside, showHidden } from '../src/domain/outside-text.ts'
import { revokeGrant, REVOKE_REASONS, settleTenantGrants, GRANT_TTL_S } from '../src/domain/agent-grants.ts'
import { csrfToken, csrfValid, EMAIL, mailSignInLinks, peekSignIn, safeNext, signedInPerson, signOut, useSignIn, type PeopleDeps, type Person } from './people.ts'
import { esc, ownFormsOnly, page, readForm, seeOther, withCookie } from './pages.ts'
import { loadConsentRequest } from '../src/domain/agent-consent.ts'
import { OAUTH_MOUNT } from './provider.ts'

const AGENTS_PATH = `${OAUTH_MOUNT}/agents`

// ---- Sign-in link and sign-out ----

/**
 * Who is asking, for the link's page: the agent's name as outside text (quoted, hidden characters
 * shown) and the host its answer goes to, read from the consent request the link leads to. The mail
 * never says this (a client's name is a stranger's words); the page does, where the person can judge it.
 */
async function whoAsks(deps: PeopleDeps, next: string): Promise<string> {
  const consent = /^\/oauth\/consent\/([^/?#]+)$/.exec(next)
  if (consent) {
    const request = await loadConsentRequest(deps.db, decodeURIComponent(consent[1]!))
    if (!request) return '<p class="note" id="who-asks">The agent\'s request this link answers has ended; signing in shows what is left.</p>'
    return (
      `<p class="note" id="who-asks">An agent calling itself <strong>${esc(quoteOutside(request.client_name, 80))}</strong> asks for access to this workspace. ` +
      `Its answer goes to <strong dir="ltr">${esc(request.redirect_host)}</strong>. You will see what it asks for, and may refuse, after signing in.</p>`
    )
  }
  if (next.startsWith(`${OAUTH_MOUNT}/confirm/`)) return '<p class="note" id="who-asks">An agent of this workspace asks you to confirm a change; you will see it after signing in.</p>'
  return '<p class="note" id="who-asks">To see the agents of this workspace.</p>'
}

/** 429 for a sign-in link refused unread while its address waits (not a verdict on the link). */
function tooManyAttempts(seconds: number): Response {
  return page(429, 'Too many attempts', '<h1>Too many sign-in attempts from here</h1><p>Wait a few minutes, then open the link again (or ask for a new one).</p>', { headers: { 'retry-after': String(seconds) } })
}

export async function showSignIn(deps: PeopleDeps, token: string, ip: string | null, req: Request): Promise<Response> {
  const found = await peekSignIn(deps, token, ip, req)
  if (found && 'throttled' in found) return tooManyAttempts(found.throttled)
  if (!found) return page(404, 'Link expired', '<h1>This sign-in link was used or has expired</h1><p>Ask for a new one where you started.</p>')
  // Read on another device than the one that asked is normal; it is said, with what the link signs in.
  const elsewhere = found.otherBrowser
    ? `<p class="warn" id="other-browser">This link was asked for in another browser or on another device. Continuing signs <strong>this</strong> browser in as <strong>${esc(found.email)}</strong> in the workspace <strong>${esc(found.workspace)}</strong>. Continue only if you asked for it yourself.</p>`
    : ''
  return page(
    200,
    'Sign in to Portico',
    `<h1>Sign in as ${esc(found.email)}?</h1><p class="workspace">Workspace: <strong>${esc(found.workspace)}</strong></p>` +
      elsewhere +
      (await whoAsks(deps, found.next)) +
      '<form method="post"><div class="actions"><button type="submit" class="primary" id="signin">Continue</button></div></form>' +
      '<p>This link works once. If you did not ask for it, close this page: nothing happens.</p>',
  )
}

export async function useSignInLink(deps: PeopleDeps, token: string, ip: string | null, req?: Request): Promise<Response> {
  const used = await useSignIn(deps, token, ip, req)
  if (used && 'throttled' in used) return tooManyAttempts(used.throttled)
  if (!used) return page(404, 'Link expired', '<h1>This sign-in link was used or has expired</h1><p>Ask for a new one where you started.</p>')
  return seeOther(used.next, { 'set-cookie': used.cookie })
}

// ---- "Your agents" ----

const dateText = (d: Date | null) => (d ? `<time datetime="${d.toISOString()}">${esc(d.toISOString().slice(0, 16).replace('T', ' '))} UTC</time>` : 'never')

/** The client's domain and whether it is verified: a metadata document's host, or a brand's own https redirects. */
export function clientDomain(g: Pick<GrantRow, 'client_id' | 'client_name' | 'redirect_uris'>): { domain: string; verified: boolean } {
  if (isClientIdUrl(g.client_id)) {
    const host = new URL(g.client_id).host
    return { domain: host, verified: true }
  }
  const verdict = judgeClient(g.client_name, g.redirect_uris)
  return { domain: [...new Set(g.redirect_uris.map(redirectHost))].join(', '), verified: verdict.verifiedAs !== null }
}

const mayRevoke = (person: Person, g: GrantRow) => g.approved_member_id === person.memberId || can(person.role, 'keys:manage')

function grantItem(g: GrantRow, person: Person, csrf: string, now: Date): string {
  const expires = new Date(g.created_at.getTime() + GRANT_TTL_S * 1000)
  const live = !g.revoked_at && expires > now
  const { domain, verified } = clientDomain(g)
  const who = g.approver_email ?? (g.account_id.startsWith('key_') || !g.approved_member_id ? `an API key (${esc(g.account_id)})` : 'a member no longer in the workspace')
  const status = g.revoked_at ? `revoked (${esc(g.revoked_reason ?? 'revoked')})` : live ? 'active' : 'expired'
  const scopes = g.scopes.map((s) => `<code title="${esc(agentScope(s)?.description ?? s)}">${esc(s)}</code>`).join(', ')
  const revoke =
    live && mayRevoke(person, g)
      ? `<form method="post" action="${AGENTS_PATH}/${encodeURIComponent(g.id)}/revoke"><input type="hidden" name="csrf" value="${esc(csrf)}">` +
        `<button type="submit" class="danger" aria-label="Revoke ${esc(showHidden(g.client_name))}">Revoke</button></form>`
      : ''
  return (
    `<li data-grant="${esc(g.id)}"><h2>${esc(showHidden(g.client_name))}</h2><dl>` +
    `<dt>Domain</dt><dd>${esc(domain)} <strong>${verified ? '(verified)' : '(unverified)'}</strong></dd>` +
    `<dt>Scopes</dt><dd>${scopes}</dd>` +
    `<dt>Approved by</dt><dd>${esc(who)}</dd>` +
    `<dt>Created</dt><dd>${dateText(g.created_at)}</dd>` +
    `<dt>Last used</dt><dd>${dateText(g.last_used_at)}</dd>` +
    `<dt>Status</dt><dd class="${live ? 'status-active' : 'status-ended'}">${status}</dd>` +
    `</dl>${revoke}</li>`
  )
}

function signInForm(error?: string, sent?: string): string {
  const parts = ['<h1>Your agents</h1>', '<p>Sign in as yourself to see the agents people in your workspace approved, and revoke any of them.</p>']
  if (error) parts.push(`<p class="bad" role="alert" id="error">${esc(error)}</p>`)
  if (sent) parts.push(`<p class="note" role="status" id="sent">If <strong>${esc(sent)}</strong> belongs to a member of a Portico workspace, a sign-in link is on its way. It works once, for 15 minutes.</p>`)
  parts.push(
    '<form method="post"><label class="field" for="email">Your email address in the workspace</label>' +
      '<input type="email" id="email" name="email" autocomplete="email" required>' +
      '<div class="actions"><button type="submit" class="primary" name="action" value="email">Email me a sign-in link</button></div></form>',
  )
  return parts.join('\n')
}

export async function showAgents(deps: PeopleDeps, req: Request, notice?: string): Promise<Response> {
  const person = await signedInPerson(deps, req)
  if (!person) return page(200, 'Your agents', signInForm(), { nav: personNav(null, AGENTS_PATH) })
  const now = deps.clock.now()
  await settleTenantGrants(deps.db, person.tenantId, now)
  const grants = await agentGrantsOf(deps.db, person.tenantId)
  const csrf = csrfToken(deps.config, person)
  const live = grants.filter((g) => !g.revoked_at && g.created_at.getTime() + GRANT_TTL_S * 1000 > now.getTime())
  const ended = grants.filter((g) => !live.includes(g)).slice(0, 20)
  const main = [
    `<h1>Your agents</h1><p class="workspace">Workspace <strong>${esc(person.workspace)}</strong>, signed in as ${esc(person.email)} (${esc(person.role)}).</p>`,
    notice ? `<p class="note" role="status" id="notice">${esc(notice)}</p>` : '',
    live.length
      ? `<ul class="grants" id="active" aria-label="Active agents">${live.map((g) => grantItem(g, person, csrf, now)).join('')}</ul>`
      : '<p id="none">No agent holds access to this workspace now.</p>',
    ended.length ? `<h2>Ended</h2><ul class="grants" id="ended" aria-label="Ended agents">${ended.map((g) => grantItem(g, person, csrf, now)).join('')}</ul>` : '',
  ].join('\n')
  return page(200, 'Your agents', main, { nav: personNav(person, AGENTS_PATH), brand: person.branding, footer: 'Revoking ends the agent\'s access at once: its next request is refused and it must ask a person again.' })
}

async function answerAgents(deps: PeopleDeps, req: Request, ip: string | null): Promise<Response> {
  const form = await readForm(req)
  const email = (form?.get('email') ?? '').trim()
  if (!form || !EMAIL.test(email)) return page(400, 'Your agents', signInForm('Enter your email address.'))
  const asked = mailSignInLinks(deps, email, AGENTS_PATH, ip, 'agents', req)
  if (asked.refused) return page(429, 'Your agents', signInForm('Too many sign-in links were asked for from here. Wait a few minutes, then try again.'))
  return withCookie(page(200, 'Your agents', signInForm(undefined, email)), asked.cookie)
}

async function revoke(deps: PeopleDeps, req: Request, grantId: string): Promise<Response> {
  const person = await signedInPerson(deps, req)
  if (!person) return seeOther(AGENTS_PATH)
  const form = await readForm(req)
  if (!form || !csrfValid(deps.config, person, form.get('csrf'))) return page(403, 'Your agents', '<h1>This form is out of date</h1><p><a href="/oauth/agents">Back to your agents</a></p>')
  const g = await agentGrant(deps.db, grantId)
  const own = g ? await isGrantOfTenant(deps.db, grantId, person.tenantId) : false
  if (!g || !own) return page(404, 'Not found', '<h1>This agent is not in your workspace</h1><p><a href="/oauth/agents">Back to your agents</a></p>')
  if (!mayRevoke(person, g)) return page(403, 'Not allowed', `<h1>Your ${esc(person.role)} role cannot revoke agents other people approved</h1><p><a href="/oauth/agents">Back to your agents</a></p>`)
  await revokeGrant(deps.db, grantId, REVOKE_REASONS.workspace, deps.clock.now())
  return showAgents(deps, req, `${quoteOutside(g.client_name, 80)} was revoked: its access ended.`)
}

export function peopleMount(deps: PeopleDeps): Mount {
  const ipOf = addressOfRequest(deps.config.trustProxy, deps.config.trustProxyHeader)
  // Every form here signs in or acts: only from Portico's own pages (pages.ts).
  const own = (h: Parameters<typeof ownFormsOnly>[1]) => ownFormsOnly(deps.config.publicUrl, h)
  return (app: Elysia) => {
    app
      .get(`${OAUTH_MOUNT}/signin/:token`, ({ params, request, server }) => showSignIn(deps, params.token, ipOf(request, server), request))
      .post(`${OAUTH_MOUNT}/signin/:token`, own(({ params, request, server }) => useSignInLink(deps, params.token!, ipOf(request, server), request)), { parse: 'none' })
      .post(`${OAUTH_MOUNT}/signout`, own(async ({ request }) => {
        const form = await readForm(request.clone())
        return seeOther(safeNext(form?.get('next') ?? null), { 'set-cookie': await signOut(deps, request) })
      }), { parse: 'none' })
      .get(AGENTS_PATH, ({ request }) => showAgents(deps, request))
      .post(AGENTS_PATH, own(({ request, server }) => answerAgents(deps, request, ipOf(request, server))), { parse: 'none' })
      .post(`${AGENTS_PATH}/:id/revoke`, own(({ params, request }) => revoke(deps, request, params.id!)), { parse: 'none' })
    return app
  }
}
