// The OAuth apps of DNS providers that Portico has an OAuth rail for, from each provider's public
// OAuth documentation. A rail is offered only on a deployment that configures its client id and
// secret (`<ID>_OAUTH_CLIENT_ID` / `_CLIENT_SECRET`, src/config.ts); the token it grants is used
// with the same adapter as an API token (src/adapters/dns-providers).
export interface OAuthEndpoints {
  /** The authorization server's base; `<ID>_OAUTH_BASE` replaces it (and `tokenBase`). */
  base: string
  authorize: string
  /** Where the token endpoint lives when it is not under `base`. */
  tokenBase?: string
  token: string
  scope: string
  /** More parameters of the authorization request (Google's `access_type=offline` for a refresh token). */
  params?: Record<string, string>
  /** Send `scope` with a refresh (Microsoft's v2 endpoint asks for it). */
  refreshScope?: boolean
}

export const OAUTH_ENDPOINTS: Record<string, OAuthEndpoints> = {
  // https://docs.digitalocean.com/reference/api/oauth/ : tokens are Bearer tokens for API v2.
  digitalocean: { base: 'https://cloud.digitalocean.com', authorize: '/v1/oauth/authorize', token: '/v1/oauth/token', scope: 'read write' },
  // https://techdocs.akamai.com/linode-api/reference/get-started#oauth : tokens work on API v4.
  linode: { base: 'https://login.linode.com', authorize: '/oauth/authorize', token: '/oauth/token', scope: 'domains:read_write' },
  // https://developer.dnsimple.com/v2/oauth/ : the token is an account token for API v2.
  dnsimple: { base: 'https://dnsimple.com', authorize: '/oauth/authorize', token: '/v2/oauth/access_token', scope: '' },
  // https://docs.netlify.com/api/get-started/#authentication (OAuth2 applications).
  netlify: { base: 'https://app.netlify.com', authorize: '/authorize', token: '/oauth/token', scope: '' },
  // https://vercel.com/docs/sign-in-with-vercel : a Vercel App (OAuth 2.0 with PKCE); the access token
  // (an hour) is a Bearer token for the REST API, the refresh token (30 days) rotates on use.
  vercel: { base: 'https://vercel.com', authorize: '/oauth/authorize', tokenBase: 'https://api.vercel.com', token: '/login/oauth/token', scope: 'openid offline_access' },
  // https://developers.google.com/identity/protocols/oauth2/web-server : an hour's access token, a
  // refresh token only with access_type=offline (prompt=consent asks for it again on a new sign-in);
  // the zones are found through the projects the person can see (Resource Manager, read-only).
  'google-cloud-dns': {
    base: 'https://accounts.google.com',
    authorize: '/o/oauth2/v2/auth',
    tokenBase: 'https://oauth2.googleapis.com',
    token: '/token',
    scope: 'https://www.googleapis.com/auth/ndev.clouddns.readwrite https://www.googleapis.com/auth/cloudplatformprojects.readonly',
    params: { access_type: 'offline', prompt: 'consent' },
  },
  // https://learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow : work and school
  // accounts (`organizations`), a Resource Manager token acting as the person; refresh tokens rotate.
  azure: {
    base: 'https://login.microsoftonline.com',
    authorize: '/organizations/oauth2/v2.0/authorize',
    token: '/organizations/oauth2/v2.0/token',
    scope: 'https://management.azure.com/user_impersonation offline_access',
    refreshScope: true,
  },
}

/** The environment prefix of a provider's OAuth client settings: `LINODE_OAUTH` → `_CLIENT_ID`, `_CLIENT_SECRET`, `_BASE`. */
export const oauthEnvPrefix = (id: string) => `${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_OAUTH`
