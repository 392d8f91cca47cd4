// Provider OAuth (the first rail, the API contract, sections 1 and 4): the end user signs in at their DNS
// provider and grants Portico access; Portico then writes the records with that grant and keeps it
// (sealed with SECRETS_KEY) to re-apply and revert later.
// - `state` is `<id>.<HMAC-SHA256(id)>` under a key derived from SECRETS_KEY: a forged one fails the
//   signature check before any lookup; the row behind it is used once (an atomic `used_at` update)
//   and expires after ten minutes. PKCE (RFC 7636, S256) binds the code to this request.
// - The authorization code is exchanged server to server (RFC 6749 §4.1.3) with the client secret.
// - A refused grant later (revoked at the provider) flags the connection for re-consent
//   (`connection.reapply.failed`, src/domain/grants.ts `onRefusal`).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { Sql } from '../db/sql.ts'
import { exchange } from '../adapters/dns-providers/http.ts'
import { ProviderError } from '../adapters/dns-providers/types.ts'
import { ApiError, invalid } from '../errors.ts'
import { randomToken } from '../ids.ts'
import { OAUTH_ENDPOINTS } from './provider-oauth-endpoints.ts'
import { deriveKey } from '../crypto.ts'
import { accountCredential, providerFailure, seal, unseal, type Credential, type ProviderSettings } from './provider-accounts.ts'
import { lockAccountCredential, setAccountCredential, type AccountRow } from '../db/provider-accounts.ts'
import { insertOAuthState, useOAuthState, type StateRow } from '../db/provider-oauth-states.ts'

export const STATE_TTL_MS = 10 * 60_000

const ENDPOINTS = OAUTH_ENDPOINTS

/** The provider OAuth clients configured (`<ID>_OAUTH_CLIENT_ID` / `_SECRET`, optional `_BASE`), PUBLIC_URL for the callback, SECRETS_KEY for the state. */
export interface OAuthSettings {
  providerOAuth: Record<string, { clientId: string; clientSecret: string; base: string | null }>
  publicUrl: string
  secretsKey: Buffer
}

export function oauthProviders(config: OAuthSettings): Set<string> {
  return new Set(Object.keys(config.providerOAuth).filter((id) => ENDPOINTS[id]))
}

function endpoints(config: OAuthSettings, provider: string) {
  const e = ENDPOINTS[provider]
  const client = config.providerOAuth[provider]
  if (!e || !client) return null
  // A configured base (a stand-in, an egress proxy) serves both endpoints.
  const base = client.base ?? e.base
  const tokenBase = client.base ?? e.tokenBase ?? e.base
  return { ...client, authorizeUrl: base + e.authorize, tokenUrl: tokenBase + e.token, scope: e.scope, params: e.params ?? {}, refreshScope: e.refreshScope ?? false }
}

export const redirectUri = (config: OAuthSettings) => `${config.publicUrl}/v1/connect/oauth/callback`

const sign = (config: OAuthSettings, id: string) => createHmac('sha256', deriveKey(config.secretsKey, 'oauth-state')).update(id).digest('base64url')

export async function startOAuth(sql: Sql, config: OAuthSettings, now: Date, c: { id: string; tenant_id: string; provider_id: string | null }, returnUrl: string | null) {
  const ep = c.provider_id ? endpoints(config, c.provider_id) : null
  if (!ep) throw new ApiError('invalid_request', 'Signing in at this DNS provider is not available on this deployment; use another rail', { reason: 'oauth_not_available', provider: c.provider_id })
  const id = randomToken(18)
  const verifier = randomToken(32)
  const expires = new Date(now.getTime() + STATE_TTL_MS)
  await insertOAuthState(sql, { id, tenant_id: c.tenant_id, connection_id: c.id, provider: c.provider_id!, code_verifier: verifier, return_url: returnUrl, expires_at: expires }, now)
  const state = `${id}.${sign(config, id)}`
  const u = new URL(ep.authorizeUrl)
  u.searchParams.set('response_type', 'code')
  u.searchParams.set('client_id', ep.clientId)
  u.searchParams.set('redirect_uri', redirectUri(config))
  if (ep.scope) u.searchParams.set('scope', ep.scope)
  for (const [k, v] of Object.entries(ep.params)) u.searchParams.set(k, v)
  u.searchParams.set('state', state)
  u.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'))
  u.searchParams.set('code_challenge_method', 'S256')
  return { authorize_url: u.toString(), expires_at: expires }
}

/** Checks the signature, then takes the state row once; a forged, reused or expired state is a 400. */
export async function consumeState(sql: Sql, config: OAuthSettings, now: Date, state: string): Promise<StateRow> {
  const [id, mac] = state.split('.')
  const bad = () => invalid('The sign-in state is not valid; start again', { reason: 'invalid_state' })
  if (!id || !mac) throw bad()
  const want = Buffer.from(sign(config, id))
  const got = Buffer.from(mac)
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw bad()
  const s = await useOAuthState(sql, id, now)
  if (!s) throw invalid('This sign-in was already completed or is unknown; start again', { reason: 'state_used' })
  if (s.expires_at.getTime() <= now.getTime()) throw invalid('The sign-in took too long and expired; start again', { reason: 'state_expired' })
  return s
}

export interface Tokens {
  access_token: string
  refresh_token: string | null
  expires_at: string | null
}

/** The code for tokens at the provider's token endpoint (RFC 6749 §4.1.3, with the PKCE verifier). */
export async function exchangeCode(config: OAuthSettings, provider: string, code: string, verifier: string, now: Date): Promise<Tokens> {
  const ep = endpoints(config, provider)
  if (!ep) throw new ApiError('service_unavailable', 'The OAuth client of this provider is no longer configured')
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, client_id: ep.clientId, client_secret: ep.clientSecret, redirect_uri: redirectUri(config), code_verifier: verifier })
  const r = await exchange('POST', ep.tokenUrl, { 'content-type': 'application/x-www-form-urlencoded' }, form.toString())
  if (r.status >= 300 || typeof r.body?.access_token !== 'string') {
    throw new ApiError('ProviderAuthenticationError', 'The DNS provider did not grant access', { provider, reason: 'oauth_code_refused', provider_message: r.body?.error_description ?? r.body?.error ?? `HTTP ${r.status}` })
  }
  const expiresIn = Number(r.body.expires_in)
  return { access_token: r.body.access_token, refresh_token: r.body.refresh_token ?? null, expires_at: Number.isFinite(expiresIn) ? new Date(now.getTime() + expiresIn * 1000).toISOString() : null }
}

/** Refreshes an access token with its refresh token (RFC 6749 §6). */
async function refreshTokens(config: OAuthSettings, provider: string, refreshToken: string, now: Date): Promise<Tokens> {
  const ep = endpoints(config, provider)
  if (!ep) throw new ApiError('ProviderAuthenticationError', 'The OAuth client of this provider is no longer configured', { provider, reason: 'oauth_not_configured' })
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: ep.clientId, client_secret: ep.clientSecret, ...(ep.refreshScope ? { scope: ep.scope } : {}) })
  // Only the grant's own refusal (invalid_grant and the like) asks the person again: a refused client is
  // the deployment's to fix, and an unreachable token endpoint is worth another try later.
  const r = await exchange('POST', ep.tokenUrl, { 'content-type': 'application/x-www-form-urlencoded' }, form.toString()).catch((err) => {
    throw providerFailure(err, provider)
  })
  if (r.status >= 500) throw providerFailure(new ProviderError('unreachable', `the token endpoint answered HTTP ${r.status}`), provider)
  if (r.body?.error === 'invalid_client' || r.body?.error === 'unauthorized_client') {
    throw new ApiError('service_unavailable', 'The DNS provider refused this deployment\'s OAuth client; the grant itself may still be good', { provider, reason: 'oauth_client_refused' })
  }
  if (r.status >= 300 || typeof r.body?.access_token !== 'string') {
    throw new ApiError('ProviderAuthenticationError', 'The DNS provider refused to renew the grant', { provider, reason: 'oauth_grant_revoked', provider_message: r.body?.error ?? `HTTP ${r.status}` })
  }
  const expiresIn = Number(r.body.expires_in)
  return { access_token: r.body.access_token, refresh_token: r.body.refresh_token ?? refreshToken, expires_at: Number.isFinite(expiresIn) ? new Date(now.getTime() + expiresIn * 1000).toISOString() : null }
}

/** Refresh a token this close to its expiry before using it. */
const REFRESH_MARGIN_MS = 5 * 60_000

/**
 * The credential of a provider account, ready to use: an OAuth grant whose access token has expired
 * (or is about to) is renewed with its refresh token first and sealed again. A refused renewal is
 * `ProviderAuthenticationError`, the same as a revoked grant.
 */
export async function usableCredential(deps: { db: Sql; config: OAuthSettings & Pick<ProviderSettings, 'secretsKey'>; clock: { now(): Date } }, a: AccountRow): Promise<Credential | null> {
  if (a.kind !== 'oauth' || !a.credential_sealed) return accountCredential(deps.config, a)
  const tokens = JSON.parse(unseal(deps.config, a.credential_sealed)) as Tokens
  const now = deps.clock.now()
  if (!tokens.expires_at || Date.parse(tokens.expires_at) - now.getTime() > REFRESH_MARGIN_MS || !tokens.refresh_token) {
    return { provider: a.provider, secret: tokens.access_token, apiUrl: null }
  }
  // Under the account's row lock: refresh tokens that rotate (Azure, Vercel) work once, so two uses at
  // the same time must not both spend the same one; the second finds the first's fresh token.
  const fresh = await deps.db.begin(async (tx) => {
    const row = await lockAccountCredential(tx, a)
    const latest = row?.credential_sealed ? (JSON.parse(unseal(deps.config, row.credential_sealed)) as Tokens) : tokens
    if (latest.access_token !== tokens.access_token && (!latest.expires_at || Date.parse(latest.expires_at) - now.getTime() > REFRESH_MARGIN_MS)) return latest
    const t = await refreshTokens(deps.config, a.provider, latest.refresh_token ?? tokens.refresh_token!, now)
    await setAccountCredential(tx, a, seal(deps.config, JSON.stringify(t)), now)
    return t
  })
  return { provider: a.provider, secret: fresh.access_token, apiUrl: null }
}
