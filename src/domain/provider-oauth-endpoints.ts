// The OAuth apps of DNS providers that Portico has an OAuth rail for, from each provider's public
// OAuth documentation. A rail is offered only on a deployment that configures its client id and
// secret (`<ID>_OAUTH_CLIENT_ID` / `_CLIENT_SECRET`, src/config.ts); the token it grants is used
// with the same adapter as an API token (src/adapters/dns-providers).
export interface OAuthEndpoints {
  base: string
  authorize: string
  token: string
  scope: string
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
}

/** The environment prefix of a provider's OAuth client settings: `LINODE_OAUTH` → `_CLIENT_ID`, `_CLIENT_SECRET`, `_BASE`. */
export const oauthEnvPrefix = (id: string) => `${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_OAUTH`
