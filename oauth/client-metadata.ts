// Client ID Metadata Documents (MCP authorization, revision 2026-07-28; draft-ietf-oauth-client-id-
// metadata-document): a client whose `client_id` is an https URL is not registered; its metadata is the
// JSON document at that URL. Portico fetches it when oidc-provider looks the client up, and uses it like
// a registered client. Invariants:
// - the URL is https with a path (plain http only to loopback under the explicit test setting), and it
//   is fetched through the SSRF guard: every address of the host must be public, the connection goes
//   to the checked address, no redirects, at most MAX_BYTES, within FETCH_TIMEOUT_MS;
// - the document's `client_id` equals the URL exactly; its redirect URIs and name pass the same checks
//   as a dynamic registration (register.ts), except the brand check, which asks whether the document's
//   host belongs to the brand the name claims (the host is what the document proves); no secrets:
//   a public client only (`token_endpoint_auth_method` none, no `client_secret`);
// - HTTP caching is honoured within bounds: `max-age` clamped to [MIN_TTL_MS, MAX_TTL_MS], `no-store`
//   or `no-cache` means MIN_TTL_MS, no header means DEFAULT_TTL_MS; at most MAX_ENTRIES documents are
//   kept in memory, the oldest dropped first;
// - a valid document is mirrored into `agent_clients`, so the consent page, grants and revocation
//   treat it as any client; a document that fails any check is "client not found" to oidc-provider.
import type { Sql } from '../src/db/sql.ts'
import { upsertDocumentClient } from '../src/db/agent-clients.ts'
import type { Clock } from '../src/clock.ts'
import type { Dns } from '../src/adapters/dns.ts'
import { providerRequest } from '../src/domain/domain-connect/http.ts'
import { log } from '../src/logger.ts'
import { claimedBrands, judgeClient, nameProblem } from '../src/domain/agent-brands.ts'
import { validateMetadata } from './register.ts'

export const MAX_BYTES = 5 * 1024
export const FETCH_TIMEOUT_MS = 5_000
export const MIN_TTL_MS = 60_000
export const DEFAULT_TTL_MS = 5 * 60_000
export const MAX_TTL_MS = 24 * 3600_000
export const MAX_ENTRIES = 500

export interface ClientMetadataDeps {
  db: Sql
  clock: Clock
  dns: Dns
  /** The explicit test setting: documents on loopback, over plain http. */
  allowLoopback: boolean
}

/** What oidc-provider stores for a client (the same shape register.ts writes). */
export type ClientPayload = Record<string, unknown> & { client_id: string }

export type DocumentResult = { ok: true; client: ClientPayload } | { ok: false; reason: string }

/** Whether a client id names a metadata document rather than a registration. */

/** The URL rules of the draft (section 3): https, a path, no fragment, no credentials, no dot segments. */
function checkClientIdUrl(id: string, allowLoopback: boolean): string | null {
  let u: URL
  try {
    u = new URL(id)
  } catch {
    return 'the client id is not a URL'
  }
  if (u.protocol !== 'https:' && !(allowLoopback && u.protocol === 'http:' && judgeClient('', [id]).local)) return 'the client id must be an https URL'
  if (u.pathname === '/' || u.pathname === '') return 'the client id URL must have a path'
  if (u.hash || id.includes('#')) return 'the client id URL must not have a fragment'
  if (u.username || u.password) return 'the client id URL must not carry credentials'
  if (/\/\.\.?(\/|$)/.test(id.slice(u.origin.length))) return 'the client id URL must not have dot segments'
  if (u.href !== id) return 'the client id URL must be in normal form'
  return null
}

/** Milliseconds the response may be reused, from its Cache-Control, within bounds. */
export function cacheLifetime(cacheControl: string | null): number {
  if (!cacheControl) return DEFAULT_TTL_MS
  const cc = cacheControl.toLowerCase()
  if (/(^|,)\s*(no-store|no-cache)\b/.test(cc)) return MIN_TTL_MS
  const m = /(^|,)\s*max-age\s*=\s*"?(\d+)/.exec(cc)
  if (!m) return DEFAULT_TTL_MS
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Number(m[2]) * 1000))
}

/** Validates a fetched document for the URL it came from. */
export function validateDocument(url: string, doc: unknown): DocumentResult {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { ok: false, reason: 'the document is not a JSON object' }
  const d = doc as Record<string, unknown>
  if (d.client_id !== url) return { ok: false, reason: 'the document\'s client_id is not its URL' }
  if ('client_secret' in d || 'client_secret_expires_at' in d) return { ok: false, reason: 'the document carries a client secret' }
  // The brand check judges the document's host, not the redirects: a native client on anthropic.com
  // may redirect to loopback and call itself Claude; the same name served from elsewhere may not.
  const name = typeof d.client_name === 'string' ? d.client_name.normalize('NFKC') : ''
  const problem = nameProblem(name)
  if (problem) return { ok: false, reason: problem }
  const verdict = judgeClient(name, [url])
  const claimed = claimedBrands(name)[0]
  // Loopback proves nothing here (judgeClient lets loopback redirects pass): the host must be the brand's.
  if (claimed && !verdict.verifiedAs) return { ok: false, reason: `the client calls itself ${claimed.name}, but its document is not on ${claimed.name}'s domain` }
  let meta
  try {
    // Redirect and name checks are the registration's. When the host proved the brand, the registration's
    // brand check by redirect does not apply: it sees a neutral name.
    meta = validateMetadata(verdict.verifiedAs ? { ...d, client_name: 'client' } : d)
  } catch (err) {
    return { ok: false, reason: (err as Error).message }
  }
  return {
    ok: true,
    client: {
      client_id: url,
      client_name: name.trim(),
      redirect_uris: meta.redirectUris,
      application_type: meta.applicationType,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  }
}

export function clientMetadataDocuments(deps: ClientMetadataDeps) {
  const cache = new Map<string, { until: number; result: DocumentResult }>()
  const remember = (url: string, result: DocumentResult, ttl: number) => {
    cache.delete(url)
    cache.set(url, { until: performance.now() + ttl, result })
    while (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!)
  }

  const fetchDocument = async (url: string): Promise<{ result: DocumentResult; ttl: number }> => {
    const bad = checkClientIdUrl(url, deps.allowLoopback)
    if (bad) return { result: { ok: false, reason: bad }, ttl: MIN_TTL_MS }
    const res = await providerRequest({ dns: deps.dns, allowLoopback: deps.allowLoopback, timeoutMs: FETCH_TIMEOUT_MS }, url, { method: 'GET' })
    if (!res.ok) return { result: { ok: false, reason: `the document could not be fetched: ${res.error}` }, ttl: MIN_TTL_MS }
    if (res.status !== 200) return { result: { ok: false, reason: `the document answered HTTP ${res.status}` }, ttl: MIN_TTL_MS }
    if (Buffer.byteLength(res.text) > MAX_BYTES) return { result: { ok: false, reason: `the document is larger than ${MAX_BYTES} bytes` }, ttl: MIN_TTL_MS }
    return { result: validateDocument(url, res.json), ttl: cacheLifetime(res.headers.get('cache-control')) }
  }

  /**
   * The client a URL client id names, or null. A valid one is mirrored into agent_clients on every
   * lookup, not only on a fetch: the hourly cleanup may have removed an unapproved row while the
   * document is still cached here.
   */
  async function find(url: string): Promise<ClientPayload | null> {
    const hit = cache.get(url)
    let result = hit && hit.until > performance.now() ? hit.result : null
    if (!result) {
      const fetched = await fetchDocument(url)
      result = fetched.result
      remember(url, result, fetched.ttl)
      if (!result.ok) log.info('client metadata document refused', { client_id: url, reason: result.reason })
    }
    if (!result.ok) return null
    const c = result.client
    await upsertDocumentClient(deps.db, { client_id: url, client_name: c.client_name as string, redirect_uris: c.redirect_uris as string[] }, deps.clock.now())
    return c
  }

  return { find }
}
