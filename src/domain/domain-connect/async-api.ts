// The asynchronous (OAuth) Domain Connect API of a DNS Provider, spoken from Portico (spec "Async
// Flow": "OAuth Flow: Getting an Access Token", "Making Requests with Access Tokens"), and the grants
// it leaves. Every request goes through the SSRF guard (http.ts).
//
// A grant is stored per connection (table domain_connect_grants) with its tokens sealed with
// SECRETS_KEY and what was applied under it, so a managed connection can be re-applied or reverted
// later without the end user: `reapplyWithGrant` and `revertWithGrant` refresh an expired access token
// with the refresh token first and persist the new tokens.
import type { Sql } from '../../db/sql.ts'
import { deleteSessionsExpiredBefore, type ApplyStep } from '../../db/domain-connect-sessions.ts'
import { liveGrantOfConnection, replaceGrant, setGrantTokens, type GrantRow } from '../../db/domain-connect-grants.ts'
import { decrypt, encrypt } from '../../crypto.ts'
import { rfc3986Encode } from './signing.ts'
import { providerRequest, type ProviderHttp } from './http.ts'
import type { AsyncClient } from './settings.ts'


export interface Tokens {
  access_token: string
  refresh_token?: string
  expires_in?: number
}

export type ApiOutcome<T> = { ok: true; value: T } | { ok: false; status?: number; error: string }

const SEAL = 'domain-connect'

/** The token endpoint: an authorization code or a refresh token for tokens (RFC 6749 section 4.1.3, 6). */
export async function tokenRequest(http: ProviderHttp, urlApi: string, client: AsyncClient, grant: Record<string, string>): Promise<ApiOutcome<Tokens>> {
  // The async draft: parameters in a JSON body (never the secret in the query string); any 2xx is success.
  const res = await providerRequest(http, `${urlApi}/v2/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...grant, client_id: client.client_id, client_secret: client.client_secret }),
  })
  if (!res.ok) return { ok: false, error: res.error }
  const tok = res.json as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown } | null
  if (res.status < 200 || res.status > 299 || typeof tok?.access_token !== 'string') return { ok: false, status: res.status, error: `token endpoint answered ${res.status}` }
  return {
    ok: true,
    value: {
      access_token: tok.access_token,
      ...(typeof tok.refresh_token === 'string' ? { refresh_token: tok.refresh_token } : {}),
      ...(typeof tok.expires_in === 'number' ? { expires_in: tok.expires_in } : {}),
    },
  }
}

/** `POST {urlAPI}/v2/domainTemplates/providers/{providerId}/services/{serviceId}/{apply|revert}` with the bearer token. */
async function templateCall(
  http: ProviderHttp,
  verb: 'apply' | 'revert',
  urlApi: string,
  templateProviderId: string,
  at: { apex: string; host: string },
  step: ApplyStep,
  accessToken: string,
): Promise<ApiOutcome<null>> {
  const q =
    verb === 'apply'
      ? new URLSearchParams({ domain: at.apex, ...(at.host ? { host: at.host } : {}), ...step.params, ...(step.group_ids ? { groupId: step.group_ids.join(',') } : {}), force: '1' })
      : new URLSearchParams({ domain: at.apex, ...(at.host ? { host: at.host } : {}) })
  const url = `${urlApi}/v2/domainTemplates/providers/${rfc3986Encode(templateProviderId)}/services/${rfc3986Encode(step.service_id)}/${verb}?${q.toString()}`
  const res = await providerRequest(http, url, { method: 'POST', headers: { authorization: `Bearer ${accessToken}` } })
  if (!res.ok) return { ok: false, error: res.error }
  if (res.status < 200 || res.status > 299) return { ok: false, status: res.status, error: `${verb} ${step.service_id} answered ${res.status} ${res.text.slice(0, 200)}` }
  return { ok: true, value: null }
}

export async function applySteps(http: ProviderHttp, urlApi: string, templateProviderId: string, at: { apex: string; host: string }, steps: ApplyStep[], accessToken: string): Promise<ApiOutcome<null>> {
  for (const step of steps) {
    const r = await templateCall(http, 'apply', urlApi, templateProviderId, at, step, accessToken)
    if (!r.ok) return r
  }
  return { ok: true, value: null }
}

// ---------------------------------------------------------------- grants

export interface GrantDeps {
  db: Sql
  http: ProviderHttp
  secretsKey: Buffer
  clients: Record<string, AsyncClient>
  now: () => Date
}

export async function storeGrant(
  sql: Sql,
  key: Buffer,
  g: Omit<GrantRow, 'access_token_sealed' | 'refresh_token_sealed' | 'access_expires_at'>,
  tokens: Tokens,
  now: Date,
): Promise<void> {
  await replaceGrant(sql, {
    ...g,
    access_token_sealed: encrypt(key, tokens.access_token, SEAL),
    refresh_token_sealed: tokens.refresh_token ? encrypt(key, tokens.refresh_token, SEAL) : null,
    access_expires_at: tokens.expires_in ? new Date(now.getTime() + tokens.expires_in * 1000) : null,
  }, now)
}

/** The live Domain Connect grant of a connection (tenant-scoped), if it has one; `grantOf` in grants.ts answers for every rail. */
export async function domainConnectGrantOf(sql: Sql, tenantId: string, connectionId: string): Promise<GrantRow | undefined> {
  return liveGrantOfConnection(sql, tenantId, connectionId)
}

/** A usable access token: the stored one, or a refreshed one (persisted) when it has expired. */
async function accessToken(deps: GrantDeps, g: GrantRow): Promise<ApiOutcome<string>> {
  const now = deps.now()
  if (!g.access_expires_at || g.access_expires_at.getTime() - 30_000 > now.getTime()) return { ok: true, value: decrypt(deps.secretsKey, g.access_token_sealed, SEAL) }
  const client = deps.clients[g.dc_provider_id.toLowerCase()]
  if (!client) return { ok: false, error: `no Domain Connect client is configured for ${g.dc_provider_id}` }
  if (!g.refresh_token_sealed) return { ok: false, error: 'the access token expired and the grant has no refresh token' }
  const r = await tokenRequest(deps.http, g.url_api, client, {
    grant_type: 'refresh_token',
    refresh_token: decrypt(deps.secretsKey, g.refresh_token_sealed, SEAL),
    redirect_uri: g.redirect_uri,
  })
  if (!r.ok) return r
  const t = r.value
  await setGrantTokens(deps.db, g, {
    access_token_sealed: encrypt(deps.secretsKey, t.access_token, SEAL),
    refresh_token_sealed: t.refresh_token ? encrypt(deps.secretsKey, t.refresh_token, SEAL) : g.refresh_token_sealed,
    access_expires_at: t.expires_in ? new Date(now.getTime() + t.expires_in * 1000) : null,
  }, now)
  return { ok: true, value: t.access_token }
}

/** Applies again every template of the grant, as first applied (the records the connection needs). */
export async function reapplyWithGrant(deps: GrantDeps, g: GrantRow): Promise<ApiOutcome<null>> {
  const token = await accessToken(deps, g)
  if (!token.ok) return token
  return applySteps(deps.http, g.url_api, g.template_provider_id, g, g.applies, token.value)
}

/** Reverts every template of the grant at the provider (spec: the provider removes what the template set). */
export async function revertWithGrant(deps: GrantDeps, g: GrantRow): Promise<ApiOutcome<null>> {
  const token = await accessToken(deps, g)
  if (!token.ok) return token
  for (const step of [...g.applies].reverse()) {
    const r = await templateCall(deps.http, 'revert', g.url_api, g.template_provider_id, g, step, token.value)
    if (!r.ok) return r
  }
  return { ok: true, value: null }
}

/**
 * Consent sessions a day past their expiry are deleted (used ones keep answering their replay until
 * then); hourly from the job sweeps. Returns how many went.
 */
export async function cleanupSessions(db: Sql, now: Date): Promise<number> {
  return deleteSessionsExpiredBefore(db, new Date(now.getTime() - 24 * 60 * 60 * 1000))
}
