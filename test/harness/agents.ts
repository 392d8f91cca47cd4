// Agents in tests: a Portico listening on a real loopback port (so PUBLIC_URL, the OAuth issuer and
// the MCP resource are the addresses a client really uses), and the agent OAuth flow walked the way a
// client and a person in a browser would: register, authorize with PKCE, read the consent page, post
// the form with an API key, follow the redirects with the cookies the server set, exchange the code.
import { createHash, randomBytes } from 'node:crypto'
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

export async function livePortico(env: Record<string, string> = {}): Promise<LivePortico> {
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  const p = await startPortico({ PUBLIC_URL: url, ...env })
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

/**
 * The whole flow for a fresh loopback client: a token with `scope`, approved with `apiKey`.
 * `tokenHeaders` makes the token request's extra headers (a DPoP proof) for the token endpoint URL.
 */
export async function agentToken(
  base: string,
  apiKey: string,
  scope: string,
  name = 'Test agent',
  tokenHeaders: () => Promise<Record<string, string>> = async () => ({}),
): Promise<{ tokens: Tokens; clientId: string }> {
  const redirectUri = 'http://127.0.0.1:9/callback'
  const reg = await registerClient(base, { client_name: name, redirect_uris: [redirectUri] })
  if (reg.status !== 201) throw new Error(`register: ${JSON.stringify(reg.body)}`)
  const { verifier, challenge } = pkce()
  const auth = await authorize(base, {
    client_id: reg.body.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    state: 'st',
    resource: `${base}/mcp`,
  })
  const done = await answer(base, auth, { api_key: apiKey, action: 'approve' }, redirectUri)
  const code = done.location ? new URL(done.location).searchParams.get('code') : null
  if (!code) throw new Error(`no code: ${done.status} ${done.location} ${done.page.slice(0, 300)}`)
  const t = await token(base, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: reg.body.client_id, code_verifier: verifier, resource: `${base}/mcp` }, await tokenHeaders())
  if (t.status !== 200) throw new Error(`token: ${JSON.stringify(t.body)}`)
  return { tokens: t.body, clientId: reg.body.client_id }
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
  const done = await answer(base, auth, { api_key: apiKey, action: 'approve' }, redirectUri)
  const code = done.location ? new URL(done.location).searchParams.get('code') : null
  if (!code) throw new Error(`no code: ${done.status} ${done.location} ${done.page.slice(0, 300)}`)
  const t = await token(base, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: `${base}/mcp` })
  if (t.status !== 200) throw new Error(`token: ${JSON.stringify(t.body)}`)
  return { tokens: t.body, clientId }
}
