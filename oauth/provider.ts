// The agents' OAuth 2.1 authorization server: oidc-provider in this process, mounted under /oauth
// through a Request/Response bridge, its state in PostgreSQL (adapter.ts) and its ES256 signing keys
// generated once and kept sealed in the database, so every process and restart signs and verifies
// with the same keys. Invariants:
// - authorization code with PKCE S256 only, public clients only (no secret), no implicit flow;
// - access tokens are JWTs (`typ: at+jwt`, RFC 9068) for one audience, the MCP resource
//   `${PUBLIC_URL}/mcp` (RFC 8707 resource indicators), ten minutes long; refresh tokens rotate, one
//   chain per grant: a repeat inside a short grace gets the same successor (refresh.ts);
// - tokens carry only the scopes a person granted, plus the tenant the grant is for;
// - a token stops working when its grant ends (grants.ts: revoked, approver gone) or its client is
//   deleted, checked per request; a DPoP-bound token needs a proof on every request (dpop.ts);
// - RFC 7009 revocation of either token kind ends the whole grant, as DELETE /v1/agent-grants does.
import Provider, { errors, type ClientModel } from 'oidc-provider'
import { exportJWK, generateKeyPair, createLocalJWKSet, jwtVerify, type JWK } from 'jose'
import { toReqRes, toFetchResponse } from 'fetch-to-node'
import type { Socket } from 'node:net'
import type { Elysia } from 'elysia'
import { mountedMethods, splitUrl, type Mount } from '../src/http/app.ts'
import { METHOD_ORDER } from '../src/http/router.ts'
import type { Clock } from '../src/clock.ts'
import type { Config } from '../src/config.ts'
import type { Sql } from '../src/db/sql.ts'
import { isAgentClient } from '../src/db/agent-clients.ts'
import { insertSigningKeys, refreshTokenGrant, sealedSigningKeys } from '../src/db/oauth-store.ts'
import { decrypt, deriveKey, encrypt } from '../src/crypto.ts'
import { errorFields, log } from '../src/logger.ts'
import { randomToken } from '../src/ids.ts'
import { postgresAdapter } from './adapter.ts'
import { refreshOnce } from './refresh.ts'
import { checkPresentation, dpopChallenge, type PresentationRefusal } from '../src/http/dpop.ts'
import type { Presentation } from '../src/domain/principal.ts'
import { ApiError } from '../src/errors.ts'
import { GRANT_TTL_S, liveGrant, revokeGrant, REVOKE_REASONS, takeStepUp, touchGrant } from '../src/domain/agent-grants.ts'
import { clientMetadataDocuments } from './client-metadata.ts'
import type { Dns } from '../src/adapters/dns.ts'
import { AGENT_SCOPE_IDS, DEFAULT_AGENT_SCOPE_IDS, parseScopes } from '../src/domain/rbac.ts'

export const OAUTH_MOUNT = '/oauth'
export const ACCESS_TOKEN_TTL_S = 600
const REFRESH_TOKEN_TTL_S = GRANT_TTL_S
const KEYS_PURPOSE = 'oauth-jwks'

export interface AuthServerDeps {
  config: Config
  db: Sql
  clock: Clock
  /** For client ID metadata documents; without it only registered clients exist. */
  dns?: Dns
}

export interface AgentIdentity {
  tenantId: string
  clientId: string
  subject: string
  scopes: string[]
}

export interface AuthServer {
  provider: Provider
  issuer: string
  /** The MCP resource URL: the only audience tokens are minted for. */
  resource: string
  /** Answers a request under /oauth. */
  handle(req: Request, ip: string | null): Promise<Response>
  /** RFC 8414 authorization server metadata, with Portico's registration endpoint. */
  metadata(): Promise<Record<string, unknown>>
  /** Verifies a delegated agent access token for the MCP resource, as presented (scheme, DPoP proof); null when not valid. */
  verifyAccessToken(token: string, presented: Presentation): Promise<AgentIdentity | null>
  /** The same check, saying why a token was refused (the challenge a resource answers with). */
  checkAccessToken(token: string, presented: Presentation): Promise<AccessCheck>
  /**
   * The check as /v1 uses it: null for a token that is not valid (a Bearer challenge follows), and an
   * `unauthorized` error carrying the RFC 9449 section 7.1 DPoP challenge when the token was refused for
   * how it was presented.
   */
  verifyForApi(token: string, presented: Presentation): Promise<AgentIdentity | null>
  /** Signature, issuer, audience and lifetime only: no query (the failure throttle's pre-check). */
  accessTokenSigned(token: string): Promise<boolean>
}

/** A token check's outcome: who the agent is, or why the token is refused. */
export type AccessCheck = { ok: true; identity: AgentIdentity } | { ok: false; refusal: PresentationRefusal | null }

/** The signing key set: read from the database, or generated and stored by the first process. */
async function signingKeys(db: Sql, config: Config, clock: Clock): Promise<JWK[]> {
  const read = async () => {
    const sealed = await sealedSigningKeys(db)
    return sealed ? (JSON.parse(decrypt(config.secretsKey, sealed, KEYS_PURPOSE)) as JWK[]) : null
  }
  const have = await read()
  if (have) return have
  const { privateKey } = await generateKeyPair('ES256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), kid: randomToken(12), alg: 'ES256', use: 'sig' }
  const sealed = encrypt(config.secretsKey, JSON.stringify([jwk]), KEYS_PURPOSE)
  // Two processes starting together: the first insert wins and both read it back.
  await insertSigningKeys(db, sealed, clock.now())
  return (await read())!
}

function publicJwk({ d: _d, ...pub }: JWK): JWK {
  return pub
}

function providerConfig(deps: AuthServerDeps, keys: JWK[], resource: string): Record<string, unknown> {
  const { config, db, clock } = deps
  return {
    adapter: postgresAdapter(db, deps.dns ? clientMetadataDocuments({ db, clock: deps.clock, dns: deps.dns, allowLoopback: config.webhookAllowLoopback }).find : undefined),
    jwks: { keys },
    clients: [],
    cookies: {
      keys: [deriveKey(config.secretsKey, 'oauth-cookies').toString('base64url')],
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    // People sign in on the consent page with a tenant credential; the account is that credential.
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    claims: { openid: ['sub'] },
    scopes: ['openid', 'offline_access'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // MCP clients may omit `resource`; every token is for the MCP server anyway.
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget('the only resource is the MCP server')
          return {
            scope: AGENT_SCOPE_IDS.join(' '),
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          }
        },
      },
    },
    // MCP clients never send prompt=consent, which oidc-provider wants before issuing refresh tokens;
    // a client registered for the refresh_token grant gets one (rotated on every use below).
    issueRefreshToken: async (_ctx: unknown, client: ClientModel) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    extraTokenClaims: async (_ctx: unknown, token: { kind: string; grantId?: string; clientId?: string }) => {
      if (token.kind !== 'AccessToken' || !token.grantId || !token.clientId) return undefined
      const grant = await liveGrant(db, token.grantId, token.clientId, clock.now())
      return grant ? { tenant_id: grant.tenantId, grant_id: token.grantId } : undefined
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      IdToken: ACCESS_TOKEN_TTL_S,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: GRANT_TTL_S,
      Interaction: 30 * 60,
      Session: 24 * 3600,
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${OAUTH_MOUNT}/consent/${interaction.uid}` },
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html'
      ctx.body = errorPage(out.error ?? 'error', out.error_description ?? '')
    },
  }
}

const REVOCATION_PATH = `${OAUTH_MOUNT}/token/revocation`
const TOKEN_PATH = `${OAUTH_MOUNT}/token`

function oauthError(status: number, error: string, description: string): Response {
  return new Response(JSON.stringify({ error, error_description: description }), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } })
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function errorPage(error: string, description: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portico: sign-in error</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto"><h1>This sign-in cannot continue</h1>
<p><code>${escapeHtml(error)}</code></p><p>${escapeHtml(description)}</p></body></html>`
}

/**
 * MCP clients often ask for no scope, or only OIDC ones; oidc-provider then has nothing to grant for
 * the resource and answers access_denied. Such a request asks for reading and writing (never for
 * disconnecting, which a client asks for by step-up when it needs it), and the person decides on the
 * consent page.
 */
function withAgentScopes(req: Request): Request {
  if (req.method !== 'GET') return req
  const url = new URL(req.url)
  if (url.pathname !== `${OAUTH_MOUNT}/auth`) return req
  const scope = url.searchParams.get('scope') ?? ''
  if (parseScopes(scope).length > 0) return req
  url.searchParams.set('scope', [scope, ...DEFAULT_AGENT_SCOPE_IDS].filter(Boolean).join(' '))
  return new Request(url, req)
}

export async function createAuthServer(deps: AuthServerDeps): Promise<AuthServer> {
  const { config, db } = deps
  const issuer = config.publicUrl
  const resource = `${config.publicUrl}/mcp`
  const keys = await signingKeys(db, config, deps.clock)
  const provider = new Provider(issuer, providerConfig(deps, keys, resource))
  provider.on('server_error', (_ctx: unknown, err: unknown) => log.error('oauth server error', errorFields(err)))
  const tokens = accessTokens(deps, keys, issuer, resource)
  const callProvider = providerBridge(provider, issuer)
  const handle = oauthHandler(deps, tokens.tokenGrant, callProvider)
  const metadata = discoveryMetadata(deps, issuer, handle)
  const { checkAccessToken, verifyAccessToken, verifyForApi, accessTokenSigned } = tokens
  return { provider, issuer, resource, handle, metadata, verifyAccessToken, checkAccessToken, verifyForApi, accessTokenSigned }
}

type CallProvider = (req: Request, ip: string | null) => Promise<Response>
type TokenGrant = (token: string) => Promise<{ grantId: string; clientId: string } | null>

/**
 * oidc-provider is a Koa app for node:http; fetch-to-node turns the Request into a node request and
 * the node response back into a Response. Koa reads `socket.encrypted` for the scheme, and builds the
 * request's URL from Host: it is told the issuer's host, whatever Host was sent (Portico builds no link
 * from Host, and a Host no URL parser takes, `256.256.256.256` or a port past 65535, is still one host
 * by RFC 3986 that Koa's URL would throw on).
 */
function providerBridge(provider: Provider, issuer: string): CallProvider {
  const callback = provider.callback()
  const secure = issuer.startsWith('https:')
  const host = new URL(issuer).host
  return async (req, ip) => {
    const { req: nodeReq, res } = toReqRes(withAgentScopes(req))
    nodeReq.headers.host = host
    const path = nodeReq.url ?? '/'
    ;(nodeReq as typeof nodeReq & { originalUrl: string }).originalUrl = path
    nodeReq.url = path.startsWith(OAUTH_MOUNT) ? path.slice(OAUTH_MOUNT.length) || '/' : path
    Object.defineProperty(nodeReq, 'socket', { value: { encrypted: secure, remoteAddress: ip ?? undefined } as unknown as Socket })
    callback(nodeReq, res)
    return toFetchResponse(res)
  }
}

/** Answers a request under /oauth: revocation and refreshes are decided here, the rest by the provider. */
function oauthHandler(deps: AuthServerDeps, tokenGrant: TokenGrant, callProvider: CallProvider): AuthServer['handle'] {
  const revocation = revocationEndpoint(deps, tokenGrant)
  const token = tokenEndpoint(deps, tokenGrant, callProvider)
  return async (req, ip) => {
    if (req.method === 'POST') {
      const path = new URL(req.url).pathname
      if (path === REVOCATION_PATH) return revocation(req)
      if (path === TOKEN_PATH) return token(req, ip)
    }
    const res = await callProvider(req, ip)
    // A path the provider has no route for is Koa's plain "Not Found": answered in the envelope every other face's 404 is.
    if (res.status === 404 && res.headers.get('content-type')?.startsWith('text/plain')) return Response.json({ code: 'not_found', title: 'No such route' }, { status: 404 })
    return res
  }
}

/** The token endpoint: ended grants and widening refreshes are refused, a refresh is answered once per token. */
function tokenEndpoint(deps: AuthServerDeps, tokenGrant: TokenGrant, callProvider: CallProvider): CallProvider {
  const { db, clock, config } = deps
  const endedRefresh = endedRefreshCheck(deps, tokenGrant)
  return async (request, ip) => {
    const body = await request.text()
    const form = new URLSearchParams(body)
    const refused = await endedRefresh(form)
    if (refused) return refused
    const again = () => new Request(request.url, { method: 'POST', headers: request.headers, body })
    if (form.get('grant_type') !== 'refresh_token') return callProvider(again(), ip)
    const found = await tokenGrant(form.get('refresh_token') ?? '')
    // A refresh cannot widen a grant: after an insufficient_scope challenge the client is sent to
    // its person (an SDK that refreshes first falls back to a new authorization on invalid_grant).
    const wider = found ? await takeStepUp(db, found.grantId, clock.now()) : null
    if (wider) return oauthError(400, 'invalid_grant', `A refresh cannot add ${wider.join(' ')}: ask the person, with an authorization request for the scopes you need`)
    return refreshOnce({ db, clock, secretsKey: config.secretsKey }, again(), form, found, () => callProvider(again(), ip))
  }
}

/** RFC 8414 metadata: the provider's discovery document with Portico's registration endpoint, read once. */
function discoveryMetadata(deps: AuthServerDeps, issuer: string, handle: AuthServer['handle']): AuthServer['metadata'] {
  let discovery: Record<string, unknown> | null = null
  return async () => {
    if (!discovery) {
      const url = `${issuer}${OAUTH_MOUNT}/.well-known/openid-configuration`
      const res = await handle(new Request(url, { headers: { host: new URL(issuer).host } }), null)
      const doc = (await res.json()) as Record<string, unknown>
      discovery = {
        ...doc,
        registration_endpoint: `${issuer}/v1/oauth/agent/register`,
        scopes_supported: [...AGENT_SCOPE_IDS, 'offline_access'],
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        client_id_metadata_document_supported: deps.dns !== undefined,
      }
    }
    return discovery
  }
}

/** The checks of an access token against our public keys, and the grant a token of either kind names. */
function accessTokens(deps: AuthServerDeps, keys: JWK[], issuer: string, resource: string) {
  const { db, clock } = deps
  const jwks = createLocalJWKSet({ keys: keys.map(publicJwk) })
  const verifyOptions = { issuer, audience: resource, typ: 'at+jwt', algorithms: ['ES256'] }

  const checkAccessToken = async (token: string, presented: Presentation): Promise<AccessCheck> => {
    const invalid: AccessCheck = { ok: false, refusal: null }
    try {
      const { payload } = await jwtVerify(token, jwks, verifyOptions)
      const { tenant_id: tenantId, grant_id: grantId, client_id: clientId, sub, scope, cnf } = payload as Record<string, unknown>
      if (typeof tenantId !== 'string' || typeof grantId !== 'string' || typeof clientId !== 'string' || typeof sub !== 'string') return invalid
      const jkt = (cnf as { jkt?: unknown } | undefined)?.jkt
      const refused = await checkPresentation(db, token, typeof jkt === 'string' ? jkt : undefined, presented)
      if (refused) {
        log.info('agent token refused', { client_id: clientId, reason: refused.reason })
        return { ok: false, refusal: refused }
      }
      // The grant must still hold (not revoked, approver still there), and its client still registered.
      const grant = await liveGrant(db, grantId, clientId, clock.now())
      if (grant?.tenantId !== tenantId) return invalid
      touchGrant(db, grantId, clock.now())
      // A lowered approver narrows the grant below what the token was minted with.
      const scopes = typeof scope === 'string' ? scope.split(' ').filter((s) => grant.scopes.includes(s)) : []
      return { ok: true, identity: { tenantId, clientId, subject: sub, scopes } }
    } catch {
      return invalid
    }
  }
  const accessTokenSigned = (token: string): Promise<boolean> =>
    jwtVerify(token, jwks, verifyOptions).then(
      () => true,
      () => false,
    )
  const verifyAccessToken = async (token: string, presented: Presentation): Promise<AgentIdentity | null> => {
    const checked = await checkAccessToken(token, presented)
    return checked.ok ? checked.identity : null
  }
  const verifyForApi = async (token: string, presented: Presentation): Promise<AgentIdentity | null> => {
    const checked = await checkAccessToken(token, presented)
    if (checked.ok) return checked.identity
    if (checked.refusal) throw new ApiError('unauthorized', 'The access token was refused as presented', undefined, { headers: { 'www-authenticate': dpopChallenge(checked.refusal) } })
    return null
  }

  /** The grant and client a token names: an access token by its verified claims, a refresh token by its row. */
  const tokenGrant: TokenGrant = async (token) => {
    if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
      // An expired access token may still be revoked; its signature must be ours.
      const { payload } = await jwtVerify(token, jwks, { ...verifyOptions, currentDate: new Date(0) }).catch(() => ({ payload: null }))
      const p = payload as { grant_id?: unknown; client_id?: unknown } | null
      return typeof p?.grant_id === 'string' && typeof p.client_id === 'string' ? { grantId: p.grant_id, clientId: p.client_id } : null
    }
    const row = await refreshTokenGrant(db, token)
    return row?.grant_id ? { grantId: row.grant_id, clientId: row.client_id } : null
  }

  return { checkAccessToken, accessTokenSigned, verifyAccessToken, verifyForApi, tokenGrant }
}

/**
 * A refresh of a grant that has ended (its approver removed, its key revoked) is refused here: the
 * provider knows nothing of approvers and would mint a token that fails on first use.
 */
function endedRefreshCheck({ db, clock }: AuthServerDeps, tokenGrant: TokenGrant) {
  return async (form: URLSearchParams): Promise<Response | null> => {
    if (form.get('grant_type') !== 'refresh_token') return null
    const found = await tokenGrant(form.get('refresh_token') ?? '')
    if (!found || (await liveGrant(db, found.grantId, found.clientId, clock.now()))) return null
    return oauthError(400, 'invalid_grant', 'the grant has ended: ask the person to approve again')
  }
}

/**
 * RFC 7009 revocation for public clients: `client_id` identifies the client (no secret), and a token
 * of either kind ends its whole grant. Unknown or already revoked tokens answer 200 as well
 * (section 2.2); another client's token is refused without revoking it.
 */
function revocationEndpoint({ db, clock }: AuthServerDeps, tokenGrant: TokenGrant) {
  return async (req: Request): Promise<Response> => {
    const form = new URLSearchParams(await req.text())
    const token = form.get('token')
    const clientId = form.get('client_id')
    if (!clientId || !(await isAgentClient(db, clientId))) {
      return oauthError(401, 'invalid_client', 'client_id does not name a registered client')
    }
    if (!token) return oauthError(400, 'invalid_request', 'token is required')
    const found = await tokenGrant(token)
    if (found && found.clientId !== clientId) return oauthError(400, 'unauthorized_client', 'this token was not issued to this client')
    if (found) await revokeGrant(db, found.grantId, REVOKE_REASONS.client, clock.now())
    return new Response(null, { status: 200, headers: { 'cache-control': 'no-store' } })
  }
}

/**
 * The authorization server's routes as configured here (oidc-provider's defaults; POST to the
 * authorization and logout endpoints is off, as its `enableHttpPostMethods` is): a method none of them
 * takes is a 405 naming those it does, as on every face. test/integration/http-grammar.test.ts asks
 * each with its methods, so a change of the provider's routes is seen.
 */
export const PROVIDER_ROUTES: readonly (readonly [RegExp, readonly string[]])[] = [
  [/^\/oauth\/auth(\/[^/]+)?$/, ['GET']],
  [/^\/oauth\/token$/, ['POST']],
  [/^\/oauth\/token\/revocation$/, ['POST']],
  [/^\/oauth\/jwks$/, ['GET']],
  [/^\/oauth\/request$/, ['POST']],
  [/^\/oauth\/session\/end$/, ['GET']],
  [/^\/oauth\/session\/end\/confirm$/, ['POST']],
  [/^\/oauth\/session\/end\/success$/, ['GET']],
]

/** Every /oauth route goes to the authorization server (the consent page routes are mounted first). */
export function oauthMount(auth: AuthServer): Mount {
  // Elysia registers routes on the instance itself; the instance is handed back with its plain type.
  return (app: Elysia) => {
    // Portico's own pages under /oauth (consent, sign-in, agents) asked with another method land here too.
    let pages: ((path: string) => string[]) | null = null
    app.all(
      `${OAUTH_MOUNT}/*`,
      ({ request, server }) => {
        pages ??= mountedMethods(app.routes)
        const refused = wrongMethod(request, pages)
        return refused ?? auth.handle(request, server?.requestIP(request)?.address ?? null)
      },
      { parse: 'none' },
    )
    return app
  }
}

/** The 405 of a path under /oauth asked with a method none of its routes takes (OPTIONS goes on: the provider answers CORS). */
function wrongMethod(req: Request, pages: (path: string) => string[]): Response | null {
  if (req.method === 'OPTIONS') return null
  const path = splitUrl(req.url).path
  const allowed = new Set(pages(path))
  for (const [route, methods] of PROVIDER_ROUTES) if (route.test(path)) for (const m of methods) allowed.add(m)
  if (allowed.has('GET')) allowed.add('HEAD')
  if (allowed.size === 0 || allowed.has(req.method)) return null
  const allow = METHOD_ORDER.filter((m) => allowed.has(m)).join(', ')
  return Response.json(new ApiError('method_not_allowed', `Use ${allow} on this path`).body(), { status: 405, headers: { allow, 'cache-control': 'no-store' } })
}
