// The page a person opens to answer what an agent asked to do (src/domain/person-confirm.ts): the link
// from a `confirmation_required` answer, or from URL-mode elicitation. The person who approved the agent
// signs in as themselves (people.ts; their role must still allow the action): another member, however
// senior, cannot say yes for them. They read the question (which agent, which
// domain, what would be removed or replaced) and confirms or refuses. The agent's retry then goes
// through, once.
import type { Elysia } from 'elysia'
import type { Mount } from '../src/http/app.ts'
import { can } from '../src/domain/rbac.ts'
import { CONFIRM_PATH, CONFIRM_TTL_MS, confirmationIdOf, questionOf, quotedValues, replacedSets } from '../src/domain/person-confirm.ts'
import { quoteOutside } from '../src/domain/outside-text.ts'
import { confirmationById, markConfirmed, markRefused, type ConfirmationRow } from '../src/db/person-confirmations.ts'
import { agentClientName } from '../src/db/agent-clients.ts'
import { addressOfRequest } from '../src/client-address.ts'
import { personNav } from './consent.ts'
import { csrfToken, csrfValid, EMAIL, mailSignInLinks, signedInPerson, type PeopleDeps, type Person } from './people.ts'
import { esc, ownFormsOnly, page, readForm, withCookie } from './pages.ts'

const permissionFor = (row: ConfirmationRow) => (row.action === 'disconnect' ? 'connections:disconnect' : 'connections:write')

async function clientName(deps: PeopleDeps, clientId: string): Promise<string> {
  return (await agentClientName(deps.db, clientId)) ?? clientId
}

/** The records a write would replace, their values quoted as found in the zone: DNS text, not Portico's words. */
function replacedList(row: ConfirmationRow): string {
  const replaced = replacedSets(row)
  if (!replaced.length) return ''
  const items = replaced.map((r) => `<li><code>${esc(r.type)}</code> ${esc(r.name)}: ${quotedValues(r).map((v) => `<code class="outside">${esc(v)}</code>`).join(', ')}</li>`).join('')
  return (
    '<h2>Records it would replace</h2>' +
    '<p class="note" id="outside-note">The values below are quoted as they are in the zone now. They come from DNS, not from Portico: ' +
    'whatever they say, they are not part of this question. Invisible characters are shown as <code>\\u…</code> codes.</p>' +
    `<ul id="replaced">${items}</ul>`
  )
}

function signInForm(path: string, error?: string, sent?: string): string {
  return (
    (error ? `<p class="bad" role="alert" id="error">${esc(error)}</p>` : '') +
    (sent ? `<p class="note" role="status" id="sent">If <strong>${esc(sent)}</strong> belongs to a member of a Portico workspace, a sign-in link is on its way. It works once, for 15 minutes, and brings you back here.</p>` : '') +
    `<form method="post" action="${esc(path)}"><label class="field" for="email">Sign in as yourself to answer: your email address in the workspace</label>` +
    '<input type="email" id="email" name="email" autocomplete="email" required>' +
    '<div class="actions"><button type="submit" class="primary" name="action" value="email">Email me a sign-in link</button></div></form>'
  )
}

async function view(deps: PeopleDeps, token: string, person: Person | null, opts: { error?: string; sent?: string; status?: number } = {}): Promise<Response> {
  const path = `${CONFIRM_PATH}/${token}`
  const id = confirmationIdOf(deps.config, token)
  const row = id ? await confirmationById(deps.db, id) : undefined
  if (!row) return page(404, 'Not found', '<h1>This confirmation link is not valid</h1><p>Ask your agent to try again: it gets a new link.</p>')
  const now = deps.clock.now()
  const nav = personNav(person, path)
  if (row.used_at || row.confirmed_at) return page(200, 'Confirmed', `<h1>Confirmed</h1><p role="status" id="done">You confirmed this${row.used_at ? ', and your agent has done it' : '. Tell your agent to go ahead: its next try goes through'}.</p>`, { nav })
  if (row.expires_at <= now) return page(410, 'Expired', '<h1>This question has expired or was refused</h1><p>Nothing was changed. Ask your agent to try again if you still want it.</p>', { nav })
  const agent = await clientName(deps, row.client_id)
  const head = `<h1>${esc(questionOf(row).split('?')[0]!)}?</h1><p>Your agent <strong>${esc(quoteOutside(agent, 80))}</strong> asks for your yes before it goes ahead. Only your answer here counts: nothing the agent or its app answers for you does.</p><p class="note" id="question">${esc(questionOf(row))}</p>${replacedList(row)}`
  if (!person) return page(opts.status ?? 200, 'Confirm', head + signInForm(path, opts.error, opts.sent), { nav })
  if (person.tenantId !== row.tenant_id) return page(403, 'Another workspace', `${head}<p class="bad" role="alert">You are signed in to ${esc(person.workspace)}; this question belongs to another workspace. Sign out and sign in there.</p>`, { nav })
  if (person.memberId !== row.subject) return page(403, 'Not yours', `${head}<p class="bad" role="alert" id="not-yours">This agent acts for the person who approved it; only their yes counts. Ask them to open this link.</p>`, { nav })
  if (!can(person.role, permissionFor(row))) return page(403, 'Not allowed', `${head}<p class="bad" role="alert">Your ${esc(person.role)} role may not allow this: ask someone who may.</p>`, { nav })
  const csrf = csrfToken(deps.config, person)
  const form =
    (opts.error ? `<p class="bad" role="alert" id="error">${esc(opts.error)}</p>` : '') +
    `<p class="workspace">Workspace <strong>${esc(person.workspace)}</strong>, signed in as ${esc(person.email)}.</p>` +
    `<form method="post" action="${esc(path)}"><input type="hidden" name="csrf" value="${esc(csrf)}"><div class="actions">` +
    `<button type="submit" class="primary" name="action" value="confirm" id="confirm">${row.action === 'disconnect' ? `Disconnect ${esc(row.domain)}` : 'Replace these records'}</button>` +
    '<button type="submit" class="secondary" name="action" value="refuse" id="refuse">Do not</button></div></form>'
  return page(opts.status ?? 200, 'Confirm', head + form, { nav })
}

async function answer(deps: PeopleDeps, token: string, req: Request, ip: string | null): Promise<Response> {
  const person = await signedInPerson(deps, req)
  const form = await readForm(req)
  if (!form) return view(deps, token, person, { error: 'The form is too large.', status: 413 })
  const id = confirmationIdOf(deps.config, token)
  const row = id ? await confirmationById(deps.db, id) : undefined
  if (!row) return view(deps, token, person)
  const action = form.get('action')
  if (action === 'email') {
    const email = (form.get('email') ?? '').trim()
    if (!EMAIL.test(email)) return view(deps, token, null, { error: 'Enter your email address.', status: 400 })
    const asked = mailSignInLinks(deps, email, `${CONFIRM_PATH}/${token}`, ip, 'confirm', req)
    return asked.refused ? view(deps, token, null, { error: 'Too many sign-in links were asked for. Wait a few minutes, then try again.', status: 429 }) : withCookie(await view(deps, token, null, { sent: email }), asked.cookie)
  }
  if (!person) return view(deps, token, null, { error: 'Sign in first.', status: 401 })
  if (person.tenantId !== row.tenant_id || person.memberId !== row.subject || !can(person.role, permissionFor(row))) return view(deps, token, person)
  if (!csrfValid(deps.config, person, form.get('csrf'))) return view(deps, token, person, { error: 'This form is out of date: answer again.', status: 403 })
  const now = deps.clock.now()
  if (action === 'confirm') await markConfirmed(deps.db, row.id, person.memberId, now, CONFIRM_TTL_MS)
  else if (action === 'refuse') await markRefused(deps.db, row.id, now)
  else return view(deps, token, person, { error: 'Choose confirm or refuse.', status: 400 })
  return view(deps, token, person)
}

export function confirmMount(deps: PeopleDeps): Mount {
  const ipOf = addressOfRequest(deps.config.trustProxy, deps.config.trustProxyHeader)
  return (app: Elysia) => {
    app
      .get(`${CONFIRM_PATH}/:token`, async ({ params, request }) => view(deps, params.token, await signedInPerson(deps, request)))
      .post(`${CONFIRM_PATH}/:token`, ownFormsOnly(deps.config.publicUrl, ({ params, request, server }) => answer(deps, params.token!, request, ipOf(request, server))), { parse: 'none' })
    return app
  }
}
