// An OAuth 2.0 authorization server as DNS providers run them (RFC 6749 §4.1 with PKCE, RFC 7636), for
// the provider fakes to mount next to their API: the person's consent page is `approve` (it answers the
// code the redirect would carry), the token endpoint trades a code, once, for an access token and a
// refresh token, and a refresh token for a new access token (a new refresh token too where the
// provider rotates them, the old one then refused). Errors are `{error, error_description}`: 401
// invalid_client, 400 invalid_grant. Issued access tokens are handed to the fake's API (`accept`).
import { json, nextId } from './common.ts'

export interface ProviderOAuthFake {
  clientId: string
  clientSecret: string
  /** Access tokens issued, oldest first. */
  issued: string[]
  /** The person approves at the authorization page; the code the redirect would carry. */
  approve(authorizeUrl: string): string
  /** The provider stops taking an access token (expired or revoked). */
  revoke(token: string): void
  /** Every refresh token is revoked (the person removed the app at the provider). */
  revokeRefresh(): void
  /** Authorization requests seen, for tests to check their parameters. */
  requests: URL[]
  /** Token requests seen (form bodies). */
  tokenRequests: URLSearchParams[]
}

export interface OAuthServerSpec {
  authorizePath: string
  tokenPath: string
  /** Access token prefix, as the provider's tokens look. */
  prefix: string
  expiresIn: number
  /** Refresh tokens work once and come back new with every refresh (Azure, Vercel). */
  rotate: boolean
  /** Whether a code is answered with a refresh token (Google: only with access_type=offline). */
  refreshWhen?(authorize: URL): boolean
  accept(token: string): void
  refuse(token: string): void
  /** The provider's own `token_type` spelling and extra fields of a token response. */
  tokenType?: string
  extra?(): Record<string, unknown>
}

export function oauthServer(spec: OAuthServerSpec): { oauth: ProviderOAuthFake; handle(req: Request, url: URL): Promise<Response | null> } {
  const codes = new Map<string, { url: URL; used: boolean }>()
  const refresh = new Set<string>()
  const issue = (withRefresh: boolean, scope: string) => {
    const access = spec.prefix + nextId()
    spec.accept(access)
    oauth.issued.push(access)
    const rt = withRefresh ? 'rt_' + nextId() : undefined
    if (rt) refresh.add(rt)
    return { access_token: access, token_type: spec.tokenType ?? 'Bearer', expires_in: spec.expiresIn, scope, ...(rt ? { refresh_token: rt } : {}), ...spec.extra?.() }
  }
  const oauth: ProviderOAuthFake = {
    clientId: 'client-' + nextId(),
    clientSecret: 'secret-' + nextId(),
    issued: [],
    requests: [],
    tokenRequests: [],
    approve(authorizeUrl) {
      const u = new URL(authorizeUrl)
      oauth.requests.push(u)
      const p = u.searchParams
      if (u.pathname !== spec.authorizePath || p.get('response_type') !== 'code' || p.get('client_id') !== oauth.clientId || p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge') || !p.get('state')) {
        throw new Error(`bad authorization request: ${authorizeUrl}`)
      }
      const code = 'code_' + nextId()
      codes.set(code, { url: u, used: false })
      return code
    },
    revoke: (t) => spec.refuse(t),
    revokeRefresh: () => refresh.clear(),
  }
  return {
    oauth,
    async handle(req, url) {
      if (req.method !== 'POST' || url.pathname !== spec.tokenPath) return null
      const form = new URLSearchParams(await req.clone().text())
      const grant = form.get('grant_type')
      if (grant !== 'authorization_code' && grant !== 'refresh_token') return null
      oauth.tokenRequests.push(form)
      if (form.get('client_id') !== oauth.clientId || form.get('client_secret') !== oauth.clientSecret) return json(401, { error: 'invalid_client', error_description: 'Client authentication failed.' })
      if (grant === 'refresh_token') {
        const rt = form.get('refresh_token') ?? ''
        if (!refresh.has(rt)) return json(400, { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked.' })
        if (spec.rotate) refresh.delete(rt)
        const out = issue(spec.rotate, form.get('scope') ?? '')
        return json(200, out)
      }
      const c = codes.get(form.get('code') ?? '')
      const challenge = c?.url.searchParams.get('code_challenge')
      const pkce = !!challenge && new Bun.CryptoHasher('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === challenge
      if (!c || c.used || c.url.searchParams.get('redirect_uri') !== form.get('redirect_uri') || !pkce) {
        return json(400, { error: 'invalid_grant', error_description: 'The authorization code is invalid, used, or was issued for another redirect or verifier.' })
      }
      c.used = true
      return json(200, issue(spec.refreshWhen ? spec.refreshWhen(c.url) : true, c.url.searchParams.get('scope') ?? ''))
    },
  }
}
