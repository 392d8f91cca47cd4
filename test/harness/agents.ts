// Agents in tests: a Portico listening on a real loopback port (so PUBLIC_URL, the OAuth issuer and
// the MCP resource are the addresses a client really uses), and the agent OAuth flow walked the way a
// client and a person in a browser would: register, authorize with PKCE, read the consent page, sign in
// as a member by the link mailed to them, approve, follow the redirects with the cookies the server
// set, exchange the code. Mail to people is caught per Portico (`mailbox`) unless a test asks for the
// real path (the workspace's SMTP sender).
import { createHash, randomBytes } from 'node:crypto'
import { signInMailSettled } from '../../oauth/people.ts'
import { startPortico, type TestPortico } from './portico.ts'

export interface LivePortico extends TestPortico {
  url: string
  stop(): Promise<void>
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

export interface CaughtMail {
  tenantId: string
  to: string
  subject: string
  text: string
}

const mailboxes = new Map<string, CaughtMail[]>()

/** The mail a live Portico sent to people (when it catches mail), newest last. */
export function mailbox(base: string): CaughtMail[] {
  const box = mailboxes.get(base)
  if (!box) throw new Error(`${base} does not catch mail (started with realMail?)`)
  return box
}

export async function livePortico(env: Record<string, string> = {}, opts: { realMail?: boolean } = {}): Promise<LivePortico> {
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  const p = await startPortico({ PUBLIC_URL: url, ...env })
  if (!opts.realMail) {
    const box: CaughtMail[] = []
    mailboxes.set(url, box)
    p.services.mailPeople = async (m) => {
      box.push(m)
      return 'sent'
    }
  }
  const server = p.app.listen({ port, hostname: '127.0.0.1' })
  return {
    ...p,
    url,
    async stop() {
      await server.stop(true)
      await p.close()
    },
  }
}

/** A minimal cookie jar: name=value per cookie, sent back on every request (one host only). */
export class CookieJar {
  private readonly cookies = new Map<string, string>()
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const i = pair!.indexOf('=')
      this.cookies.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim())
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

export async function registerClient(base: string, metadata: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/v1/oauth/agent/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  })
  return { status: res.status, body: await res.json() }
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

export interface Authorization {
  /** The consent page path (`/oauth/consent/<id>`). */
  consentPath: string
  consentId: string
  jar: CookieJar
}

/** Starts an authorization request; returns the consent page it leads to. */
export async function authorize(base: string, params: Record<string, string>): Promise<Authorization> {
  const jar = new CookieJar()
  const res = await fetch(`${base}/oauth/auth?${new URLSearchParams(params)}`, { redirect: 'manual' })
  jar.take(res)
  const location = res.headers.get('location')
  if (res.status !== 303 || !location?.includes('/oauth/consent/')) throw new Error(`authorize: ${res.status} ${location} ${await res.text()}`)
  const consentPath = new URL(location, base).pathname
  return { consentPath, consentId: consentPath.split('/').pop()!, jar }
}

/** Posts the consent form as the browser would, follows redirects up to the client's redirect URI. */
export async function answer(
  base: string,
  auth: Authorization,
  form: Record<string, string>,
  redirectPrefix: string,
  /** The form as sent, when a field repeats (checked scopes); else `form`. */
  fields: URLSearchParams = new URLSearchParams(form),
): Promise<{ status: number; location: string | null; page: string }> {
  let res = await fetch(base + auth.consentPath, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: auth.jar.header() },
    body: fields.toString(),
  })
  for (let hops = 0; hops < 5 && res.status === 303; hops++) {
    auth.jar.take(res)
    const location = new URL(res.headers.get('location')!, base).href
    if (location.startsWith(redirectPrefix)) return { status: 303, location, page: '' }
    res = await fetch(location, { redirect: 'manual', headers: { cookie: auth.jar.header() } })
  }
  return { status: res.status, location: res.headers.get('location'), page: await res.text() }
}

export interface Tokens {
  access_token: string
  refresh_token?: string
  token_type: string
  expires_in: number
  scope?: string
}

export async function token(base: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  })
  return { status: res.status, body: await res.json() }
}

/** The first active owner of the workspace `apiKey` belongs to: the person who approves in tests. */
export async function ownerEmail(base: string, apiKey: string): Promise<string> {
  const res = await fetch(`${base}/v1/members`, { headers: { authorization: `Bearer ${apiKey}` } })
  const body = (await res.json()) as { members?: { email: string; role: string; status: string }[] }
  const owner = body.members?.find((m) => m.role === 'owner' && m.status === 'active')
  if (!owner) throw new Error(`no active owner: ${res.status} ${JSON.stringify(body)}`)
  return owner.email
}

/** Mail asked for is sent after the answer (oauth/people.ts): this waits until what was asked has gone. */
export const mailSettled = signInMailSettled

/** The sign-in link in the newest mail to `email` (caught mail), once the mail asked for has gone. */
export async function linkIn(base: string, email: string): Promise<string> {
  await signInMailSettled()
  const mail = mailbox(base).filter((m) => m.to.toLowerCase() === email.toLowerCase()).at(-1)
  const link = mail?.text.match(/https?:\/\/\S+\/oauth\/signin\/[\w-]+/)?.[0]
  if (!link) throw new Error(`no sign-in link mailed to ${email}`)
  return link
}

/** Opens a sign-in link as the person's browser would: the landing page, then Continue; the session cookie goes into `jar`. */
export async function openSignInLink(link: string, jar: CookieJar): Promise<Response> {
  const landing = await fetch(link)
  if (landing.status !== 200) throw new Error(`sign-in link: ${landing.status}`)
  await landing.arrayBuffer()
  const res = await fetch(link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })
  jar.take(res)
  return res
}

/** Signs `email` in on the consent page (link mailed, opened, Continue); answers the signed-in consent page. */
export async function signInOnConsent(base: string, auth: Authorization, email: string): Promise<string> {
  const asked = await answer(base, auth, { action: 'email', email }, '\0')
  if (asked.status !== 200) throw new Error(`sign-in request: ${asked.status} ${asked.page.slice(0, 300)}`)
  await openSignInLink(await linkIn(base, email), auth.jar)
  const res = await fetch(base + auth.consentPath, { headers: { cookie: auth.jar.header() } })
  return res.text()
}

/** Signs in and approves the consent request with `scopes` checked (default: every one asked). */
export async function approveAs(base: string, auth: Authorization, email: string, redirectPrefix: string, scopes?: string[]) {
  const pageHtml = await signInOnConsent(base, auth, email)
  const csrf = pageHtml.match(/name="csrf" value="([^"]+)"/)?.[1]
  if (!csrf) throw new Error(`not signed in: ${pageHtml.slice(0, 500)}`)
  const asked = scopes ?? [...pageHtml.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1]!)
  const fields = new URLSearchParams([['action', 'approve'], ['scopes_shown', '1'], ['csrf', csrf], ...asked.map((s) => ['scope', s] as [string, string])])
  return answer(base, auth, {}, redirectPrefix, fields)
}

/**
 * The whole flow for a fresh loopback client: a token with `scope`, approved by the owner of the
 * workspace `apiKey` belongs to (or by `email`), signed in by the link mailed to them.
 * `tokenHeaders` makes the token request's extra headers (a DPoP proof) for the token endpoint URL.
 */
export async function agentToken(
  base: string,
  apiKey: string,
  scope: string,
  name = 'Test agent',
  tokenHeaders: () => Promise<Record<string, string>> = async () => ({}),
  email?: string,
): Promise<{ tokens: Tokens; clientId: string }> {
  const redirectUri = 'http://127.0.0.1:9/callback'
  const reg = await registerClient(base, { client_name: name, redirect_uris: [redirectUri] })
  if (reg.status !== 201) throw new Error(`register: ${JSON.stringify(reg.body)}`)
  const tokens = await clientToken(base, apiKey, reg.body.client_id, redirectUri, scope, tokenHeaders, email)
  return { tokens, clientId: reg.body.client_id }
}

/** The flow for a client already registered (a step-up, the same client again): authorize, approve, exchange the code. */
export async function clientToken(
  base: string,
  apiKey: string,
  clientId: string,
  redirectUri: string,
  scope: string,
  tokenHeaders: () => Promise<Record<string, string>> = async () => ({}),
  email?: string,
): Promise<Tokens> {
  const { verifier, challenge } = pkce()
  const auth = await authorize(base, {
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    state: 'st',
    resource: `${base}/mcp`,
  })
  const done = await approveAs(base, auth, email ?? (await ownerEmail(base, apiKey)), redirectUri)
  const code = done.location ? new URL(done.location).searchParams.get('code') : null
  if (!code) throw new Error(`no code: ${done.status} ${done.location} ${done.page.slice(0, 300)}`)
  const t = await token(base, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: `${base}/mcp` }, await tokenHeaders())
  if (t.status !== 200) throw new Error(`token: ${JSON.stringify(t.body)}`)
  return t.body
}

let documentHost: ReturnType<typeof Bun.serve> | null = null
let documentSeq = 0

/**
 * The whole flow for a client that identifies itself with a client ID metadata document (served from
 * loopback, so the Portico needs WEBHOOK_ALLOW_LOOPBACK): no registration, so tests that only need a
 * token do not spend the per-address registration budget. Each call is a new client (a new URL).
 */
export async function documentToken(base: string, apiKey: string, scope: string, name = 'Test agent'): Promise<{ tokens: Tokens; clientId: string }> {
  const redirectUri = 'http://127.0.0.1:9/callback'
  documentHost ??= Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req) => {
      const url = new URL(req.url)
      const label = decodeURIComponent(url.searchParams.get('name') ?? 'Test agent')
      return Response.json({ client_id: url.href, client_name: label, redirect_uris: [redirectUri] })
    },
  })
  const clientId = `http://127.0.0.1:${documentHost.port}/clients/${++documentSeq}.json?name=${encodeURIComponent(name)}`
  const { verifier, challenge } = pkce()
  const auth = await authorize(base, { client_id: clientId, redirect_uri: redirectUri, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope, state: 'st', resource: `${base}/mcp` })
  const done = await approveAs(base, auth, await ownerEmail(base, apiKey), redirectUri)
  const code = done.location ? new URL(done.location).searchParams.get('code') : null
  if (!code) throw new Error(`no code: ${done.status} ${done.location} ${done.page.slice(0, 300)}`)
  const t = await token(base, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: `${base}/mcp` })
  if (t.status !== 200) throw new Error(`token: ${JSON.stringify(t.body)}`)
  return { tokens: t.body, clientId }
}

/**
 * The person's part of an SDK client's sign-in: open the authorization URL the client built, read the
 * consent page, sign in as the owner of the workspace `apiKey` belongs to (the mailed link), approve,
 * and follow the redirects to the client's redirect URI. Answers the consent page as first shown and the
 * callback's parameters.
 */
export async function approveInBrowser(base: string, url: URL, apiKey: string, redirectPrefix: string): Promise<{ page: string; code: string; callback: URLSearchParams }> {
  const jar = new CookieJar()
  const res = await fetch(url, { redirect: 'manual' })
  jar.take(res)
  const consentPath = new URL(res.headers.get('location')!, base).pathname
  const auth: Authorization = { consentPath, consentId: consentPath.split('/').pop()!, jar }
  const page = await (await fetch(base + consentPath, { headers: { cookie: jar.header() } })).text()
  const done = await approveAs(base, auth, await ownerEmail(base, apiKey), redirectPrefix)
  if (!done.location?.startsWith(redirectPrefix)) throw new Error(`the sign-in did not reach the redirect: ${done.status} ${done.page.slice(0, 200)}`)
  const callback = new URL(done.location).searchParams
  return { page, code: callback.get('code')!, callback }
}

/**
 * A person answering a confirmation link (`details.confirm_url`): opens it, signs in by the mailed
 * link, and presses the button for `action` (`confirm` or `refuse`). Answers the page after it.
 */
export async function personAnswers(confirmUrl: string, email: string, action: 'confirm' | 'refuse' = 'confirm'): Promise<{ status: number; page: string }> {
  const base = new URL(confirmUrl).origin
  const jar = new CookieJar()
  const first = await fetch(confirmUrl)
  if (first.status !== 200) return { status: first.status, page: await first.text() }
  await first.arrayBuffer()
  const asked = await fetch(confirmUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ action: 'email', email }).toString() })
  if (asked.status !== 200) return { status: asked.status, page: await asked.text() }
  await asked.arrayBuffer()
  const signedIn = await openSignInLink(await linkIn(base, email), jar)
  if (signedIn.status !== 303) return { status: signedIn.status, page: await signedIn.text() }
  const page = await (await fetch(confirmUrl, { headers: { cookie: jar.header() } })).text()
  const csrf = page.match(/name="csrf" value="([^"]+)"/)?.[1]
  if (!csrf) return { status: 403, page }
  const res = await fetch(confirmUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() }, body: new URLSearchParams({ action, csrf }).toString() })
  return { status: res.status, page: await res.text() }
}
