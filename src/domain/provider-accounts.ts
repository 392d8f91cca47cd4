// Provider accounts (the API contract, section 2, "Provider account"): a DNS-provider credential saved for a
// tenant, sealed with SECRETS_KEY (src/domain/secrets.ts), never returned and never logged.
// - `continuous`: the credential stays, so Portico can re-apply and revert the connections it wrote
//   (they are `managed`).
// - `one_time`: the credential is deleted once its domains are connected, and the account answers 409
//   an hour after creation (the API contract, section 8).
// - `needs_reconnect`: the provider refused the credential itself; a new one must be saved.
// This module also opens a provider from a credential: PowerDNS API URLs come from integrators, so
// they go through the SSRF guard (loopback only under the explicit test setting) and the connection
// is pinned to the checked address.
import type { Sql } from '../db/sql.ts'
import { accountInTenant, connectionsOfAccount, insertAccount, setNeedsReconnect, type AccountRow } from '../db/provider-accounts.ts'
import { makeHosted, makePowerDns, ProviderError, ZoneChoiceError, type DnsProvider } from '../adapters/dns-providers/index.ts'
import { guardUrl, isUrlSyntacticallyAllowed } from '../adapters/ssrf.ts'
import { ApiError, invalid, notFound, PROVIDER_SERVER_ERROR_TITLE } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Principal } from './principal.ts'
import type { Dns } from '../adapters/dns.ts'
import { providerById } from './providers.ts'
import { decrypt, encrypt } from '../crypto.ts'
import { addressResolver } from './webhook-delivery.ts'

export const ONE_TIME_MS = 3_600_000
const PURPOSE = 'provider-credentials'

export interface Credential {
  provider: string
  secret: string
  apiUrl?: string | null
}

/** The settings provider calls need: the sealing key, loopback allowed (tests), API bases replaced, Namecheap's client address. */
export interface ProviderSettings {
  secretsKey: Buffer
  webhookAllowLoopback: boolean
  providerApiBases: Record<string, string>
  namecheapClientIp: string | null
}

export interface RailDeps {
  config: ProviderSettings
  dns: Dns
}

export const seal = (config: Pick<ProviderSettings, 'secretsKey'>, secret: string) => encrypt(config.secretsKey, secret, PURPOSE)
export const unseal = (config: Pick<ProviderSettings, 'secretsKey'>, sealed: string) => decrypt(config.secretsKey, sealed, PURPOSE)

/** A registration-time check of a PowerDNS API URL (no DNS): http(s), no credentials in it, public or test loopback. */
export function checkApiUrl(config: Pick<ProviderSettings, 'webhookAllowLoopback'>, raw: string): string {
  const r = isUrlSyntacticallyAllowed(raw, { allowLoopback: config.webhookAllowLoopback, requireHttps: !config.webhookAllowLoopback })
  if (!r.ok) throw invalid(`api_url is refused: ${r.reason}`, [{ in: 'body', field: 'api_url', message: r.reason }])
  return r.url.toString().replace(/\/+$/, '')
}

/** Opens the provider a credential reaches. PowerDNS: the API URL is checked and pinned at use. */
export async function openProvider(deps: RailDeps, cred: Credential): Promise<DnsProvider> {
  if (cred.provider === 'powerdns') {
    if (!cred.apiUrl) throw invalid('PowerDNS needs api_url (…/api/v1/servers/<server_id>) with the API key', [{ in: 'body', field: 'api_url', message: 'is required for PowerDNS' }])
    const guard = await guardUrl(cred.apiUrl, { allowLoopback: deps.config.webhookAllowLoopback, requireHttps: !deps.config.webhookAllowLoopback, resolve: addressResolver(deps.dns) })
    if (!guard.ok) throw invalid(`api_url is refused: ${guard.reason}`, [{ in: 'body', field: 'api_url', message: guard.reason }])
    return makePowerDns(cred.apiUrl, cred.secret, guard.address)
  }
  const hosted = makeHosted(cred.provider, cred.secret, deps.config.providerApiBases, { namecheapClientIp: deps.config.namecheapClientIp })
  if (!hosted) {
    throw new ApiError('invalid_request', `Portico has no API adapter for ${providerById(cred.provider)?.name ?? cred.provider ?? 'this DNS provider'}; use another rail`, { reason: 'provider_unsupported', provider: cred.provider })
  }
  return hosted
}

/**
 * A provider failure as the contract's error (section 7), decided in this one function: `details.reason`
 * is a catalogue code, the provider's own words go in `details.provider_message`, never the credential.
 */
export function providerFailure(err: unknown, provider: string, domain?: string, what: 'write' | 'disconnect' = 'write'): ApiError {
  const e = providerFailureOf(err, provider, domain)
  const rb = err instanceof ProviderError ? err.rollback : undefined
  if (!rb || (rb.restored.length === 0 && rb.not_restored.length === 0)) return e
  if (what === 'disconnect' && rb.not_restored.length) {
    // A disconnect refused midway: `not_restored` names what the disconnect was putting back (the
    // customer's values before connecting); the connection keeps them, so sending it again does.
    const title = `${e.title}. The disconnect was refused midway and ${rb.not_restored.length} record set(s) hold neither Portico's values nor what they held before connecting: ${rb.not_restored.map((s) => `${s.name} ${s.type} (before connecting: ${s.values.length ? s.values.join(', ') : 'none'})`).join('; ')}. Send the disconnect again to put them back`
    return new ApiError(e.code, title, { ...(e.details as Record<string, unknown> | undefined), restored: rb.restored, not_restored: rb.not_restored }, { headers: e.headers })
  }
  // A write refused midway (issue 46): what it had changed was put back, and what could not be is
  // named with the values it held before, so nobody reads the customer's record as still there.
  const title = rb.not_restored.length
    ? `${e.title}. The change was refused midway and ${rb.not_restored.length} record set(s) Portico had changed could not be put back: ${rb.not_restored.map((s) => `${s.name} ${s.type} (${s.values.length ? `was ${s.values.join(', ')}` : 'did not exist'})`).join('; ')}`
    : `${e.title}. The change was refused midway; what Portico had changed was put back`
  const details = { ...(e.details as Record<string, unknown> | undefined), restored: rb.restored, not_restored: rb.not_restored }
  return new ApiError(e.code, title, details, { headers: e.headers })
}

/** The shortest Retry-After Portico passes on: a host's 0 or an HTTP date already past is no wait at all. */
export const RETRY_AFTER_FLOOR_S = 2
const retryAfterFloor = (s: number) => Math.max(RETRY_AFTER_FLOOR_S, Math.ceil(s))

function providerFailureOf(err: unknown, provider: string, domain?: string): ApiError {
  if (err instanceof ApiError) return err
  if (!(err instanceof ProviderError)) return new ApiError('dns_write_failed', 'The DNS provider could not be reached', { provider, reason: 'provider_error' }, { cause: err })
  switch (err.kind) {
    case 'auth':
      return new ApiError('ProviderAuthenticationError', undefined, { provider, reason: 'credential_refused', provider_message: err.message })
    case 'zone_not_found':
      return new ApiError('dns_write_failed', `The credential does not reach the zone of ${domain ?? 'this domain'}`, { provider, reason: 'zone_not_reached', ...(domain ? { domain } : {}) })
    case 'zone_ambiguous':
    case 'zone_not_delegated': {
      // Several zones of the domain's name (another account, a stale or staging copy) and the delegation
      // does not single one out: refused before anything is written, naming them.
      const zone_ids = err instanceof ZoneChoiceError ? err.zoneIds : []
      const title = err.kind === 'zone_ambiguous'
        ? `Several zones of ${domain ?? 'this domain'} are reachable with this credential and the delegation does not tell which one is served; nothing was written`
        : `No zone of ${domain ?? 'this domain'} reachable with this credential is the one the domain is delegated to; nothing was written`
      return new ApiError('dns_write_failed', title, { provider, reason: err.kind === 'zone_ambiguous' ? 'zone_ambiguous' : 'zone_not_delegated', zone_ids, provider_message: err.message, ...(domain ? { domain } : {}) })
    }
    case 'rate_limited':
      // The host's own rate limit (issue 46): named like every other refusal, its words apart.
      return new ApiError('rate_limited', 'The DNS provider is rate limiting; try again shortly', { provider, reason: 'provider_rate_limited', provider_message: err.message }, { headers: { 'retry-after': String(retryAfterFloor(err.retryAfter ?? 60)) } })
    case 'temporary':
      // The host's own server error (HTTP 5xx): temporary, retryable, with the host's wait or 30 s.
      if ((err.status ?? 0) >= 500) return new ApiError('service_unavailable', PROVIDER_SERVER_ERROR_TITLE, { provider, reason: 'provider_server_error', provider_message: err.message }, { headers: { 'retry-after': String(retryAfterFloor(err.retryAfter ?? 30)) } })
      // The host itself calls the refusal temporary (Dynadot's "problem with connection to main server"):
      // nothing was written; the same request later is expected to go through.
      return new ApiError('service_unavailable', 'The DNS provider is temporarily unable to take the change; retry after Retry-After', { provider, reason: 'provider_temporary', provider_message: err.message }, { headers: { 'retry-after': String(retryAfterFloor(err.retryAfter ?? 30)) } })
    case 'zone_changed':
      // The host refused an all-or-nothing change because the zone changed meanwhile, twice (issue 46):
      // nothing was written; the same request, planned from the zone as it then is, is expected to go through.
      return new ApiError('conflict', 'The zone changed at the DNS provider while Portico was writing to it; nothing was written, retry after Retry-After', { provider, reason: 'zone_changed', provider_message: err.message }, { headers: { 'retry-after': String(retryAfterFloor(err.retryAfter ?? 5)) } })
    case 'unreachable':
      // No answer at all (connection refused or reset, a TLS failure, a timeout): nothing was refused,
      // so it is temporary like the host's own server error.
      return new ApiError('service_unavailable', 'The DNS provider could not be reached; try again after Retry-After', { provider, reason: 'provider_unreachable', provider_message: err.message }, { headers: { 'retry-after': String(retryAfterFloor(err.retryAfter ?? 30)) } })
    case 'permission':
    case 'plan_restricted':
    case 'conflict':
      // The credential works but cannot do this: its scope, the account's plan, or a clashing record.
      return new ApiError('dns_write_failed', undefined, { provider, reason: err.kind === 'permission' ? 'insufficient_permission' : err.kind === 'conflict' ? 'record_conflict' : 'plan_restricted', provider_message: err.message })
    case 'unrepresentable':
      // The zone holds records this adapter cannot write back as they are: nothing was written.
      return new ApiError('dns_write_failed', undefined, { provider, reason: 'unrepresentable_records', provider_message: err.message })
    case 'too_many_pages':
      return new ApiError('dns_write_failed', undefined, { provider, reason: 'listing_too_long', provider_message: err.message })
    default:
      return new ApiError('dns_write_failed', undefined, { provider, reason: 'provider_refused', provider_message: err.message })
  }
}

/** The diagnosis code a connection records for a provider failure (the API contract, section 2). */
export function diagnosisOf(e: ApiError): string | null {
  if (e.code === 'ProviderAuthenticationError') return 'ProviderAuthenticationError'
  const reason = (e.details as { reason?: string } | undefined)?.reason
  if (reason === 'zone_not_reached' || reason === 'zone_ambiguous' || reason === 'zone_not_delegated') return 'zone_not_reached'
  if ((e.details as { reason?: string } | undefined)?.reason === 'access_denied') return 'access_denied'
  if (e.code === 'dns_write_failed') return 'dns_write_failed'
  return null
}

export async function createAccount(
  sql: Sql,
  config: Pick<ProviderSettings, 'secretsKey'>,
  now: Date,
  tenantId: string,
  input: { kind?: 'api_key' | 'oauth'; provider: string; secret: string; apiUrl: string | null; label: string | null; access: 'continuous' | 'one_time'; createdBy: string | null },
): Promise<AccountRow> {
  return insertAccount(sql, {
    id: newId('pac', now.getTime()),
    tenant_id: tenantId,
    kind: input.kind ?? 'api_key',
    provider: input.provider,
    label: input.label,
    access: input.access,
    api_url: input.apiUrl,
    credential_sealed: seal(config, input.secret),
    created_by: input.createdBy,
    expires_at: input.access === 'one_time' ? new Date(now.getTime() + ONE_TIME_MS) : null,
  }, now)
}

export async function getAccount(sql: Sql, tenantId: string, id: string, lock = false): Promise<AccountRow> {
  const row = await accountInTenant(sql, tenantId, id, lock)
  if (!row) throw notFound('Provider account not found')
  return row
}

export function accountCredential(config: Pick<ProviderSettings, 'secretsKey'>, a: AccountRow): Credential | null {
  if (!a.credential_sealed) return null
  const secret = unseal(config, a.credential_sealed)
  // An OAuth grant is sealed as its token set; the access token is what the provider API takes.
  if (a.kind === 'oauth') return { provider: a.provider, secret: (JSON.parse(secret) as { access_token: string }).access_token, apiUrl: null }
  return { provider: a.provider, secret, apiUrl: a.api_url }
}

/** A one-time account past its hour, or whose key is already gone, is refused with 409. */
export function assertUsable(a: AccountRow, now: Date): void {
  if (a.access === 'one_time' && ((a.expires_at && a.expires_at.getTime() <= now.getTime()) || !a.credential_sealed)) {
    throw new ApiError('account_expired', a.credential_sealed ? 'This one-time provider account was valid for one hour; save the credential again' : 'This one-time provider account already connected its domains and deleted its key', { account_id: a.id })
  }
  if (!a.credential_sealed) throw new ApiError('conflict', 'This provider account holds no credential; save one again', { account_id: a.id })
}

export async function markNeedsReconnect(sql: Sql, id: string, reason: string, now: Date): Promise<void> {
  await setNeedsReconnect(sql, id, reason.slice(0, 500), now)
}

export function canManage(p: Principal, a: AccountRow): boolean {
  if (p.kind !== 'KEY') return false
  return p.role === 'owner' || p.role === 'admin' || a.created_by === p.keyId
}

export async function accountOut(sql: Sql, p: Principal, a: AccountRow) {
  const conns = await connectionsOfAccount(sql, a)
  return {
    id: a.id,
    kind: a.kind,
    provider: a.provider,
    provider_name: providerById(a.provider)?.name ?? a.provider,
    label: a.label,
    access: a.access,
    scope: a.scope,
    domains: conns.map((c) => c.domain),
    credential_held: a.credential_sealed !== null,
    status: a.status,
    last_error: a.last_error,
    created_by: a.created_by,
    last_used_at: a.last_used_at,
    expires_at: a.expires_at,
    created_at: a.created_at,
    updated_at: a.updated_at,
    connections: conns,
    uses: a.access === 'continuous' ? ['connect', 'apply', 'reapply', 'revert', 'repair'] : ['connect'],
    can_manage: canManage(p, a),
  }
}
