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
}
