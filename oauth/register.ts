// Agent client registration, RFC 7591 (the API contract, section 4, Agents; section 8, Limits). Public
// clients only: no secret, PKCE at the authorization server. It speaks RFC 7591's envelope
// (`{error, error_description}`), so it is a raw route rather than a registry operation. Invariants:
// - redirect URIs are required; plain http only to loopback (RFC 8252 section 7.3), never to a
//   network host; no fragments; no scripting or file schemes;
// - a client name claiming a well-known brand is refused unless every redirect belongs to that brand
//   or is loopback (brands.ts);
// - hourly budgets per client address, per network prefix (/24, /64) and overall, counted in
//   PostgreSQL under one lock; the address is the socket peer's, or what trusted proxies
//   (TRUST_PROXY, client-address.ts) forwarded for; a few prefixes cannot use up the overall budget
//   for everyone (checkBudget);
// - clients no person approved are deleted after UNAPPROVED_CLIENT_TTL_MS (`cleanupAgentClients`).
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../src/json.ts'
import type { Elysia } from 'elysia'
import type { Mount } from '../src/http/app.ts'
import type { Clock } from '../src/clock.ts'
import { HOUR } from '../src/clock.ts'
import type { Sql } from '../src/db/sql.ts'
import { deleteUnapprovedClients, insertAgentClient, registrationsSince } from '../src/db/agent-clients.ts'
import { transactionLock } from '../src/db/locks.ts'
import { deleteStoredClients } from '../src/db/oauth-store.ts'
import { newId } from '../src/ids.ts'
import { findUnstorable } from '../src/domain/text.ts'
import { errorFields, log } from '../src/logger.ts'
import { postgresAdapter, purgeExpired } from './adapter.ts'
import { purgeProofs } from '../src/http/dpop.ts'
import { purgeRefreshOutcomes } from './refresh.ts'
import { purgeSignIns } from './people.ts'
import { judgeClient, nameProblem } from '../src/domain/agent-brands.ts'
import { addressPrefix, clientAddress, type TrustProxy } from '../src/client-address.ts'
import { IDENTITY_ONLY, jsonDeclared, undecodedCoding } from '../src/http/request-headers.ts'

export const REGISTER_PATH = '/v1/oauth/agent/register'

/** Registrations per rolling hour (AGENT_REGISTRATION_BUDGET is `perAddress/perPrefix/global`). */
export interface RegistrationLimits {
  perAddressPerHour: number
  perPrefixPerHour: number
  /** Past it, only prefixes with fewer than `prefixFloor` registrations this hour get in, up to twice it. */
  globalPerHour: number
  prefixFloor: number
}
export const REGISTRATION_LIMITS: RegistrationLimits = { perAddressPerHour: 20, perPrefixPerHour: 60, globalPerHour: 1000, prefixFloor: 3 }
export const UNAPPROVED_CLIENT_TTL_MS = 24 * HOUR
const MAX_BODY_BYTES = 64 * 1024
const MAX_REDIRECTS = 10
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'about:', 'blob:', 'ftp:', 'ws:', 'wss:'])
const GRANT_TYPES = ['authorization_code', 'refresh_token']
const REGISTRATION_LOCK = 0x61676e74 // "agnt"

/** What registration needs of the authorization server: oidc-provider's own client validation. */
export interface ClientValidator {
  provider: { Client: { validate(metadata: Record<string, unknown>): Promise<unknown> } }
}

export interface RegistrationDeps {
  db: Sql
  clock: Clock
  auth: ClientValidator
  limits?: RegistrationLimits
  /** Which socket peers' forwarded headers are believed; none by default. */
  trustProxy?: TrustProxy
}

type Rfc7591Error = 'invalid_redirect_uri' | 'invalid_client_metadata'

class RegistrationError extends Error {
  constructor(
    readonly error: Rfc7591Error | 'too_many_requests',
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description)
  }
}

const CORS = { 'access-control-allow-origin': '*' }

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...CORS, ...headers },
  })
}

interface ValidMetadata {
  clientName: string
  redirectUris: string[]
  /** oidc-provider's client type: `web` when every redirect is https, else `native` (loopback or app scheme). */
  applicationType: 'web' | 'native'
}

function checkRedirect(uri: unknown): string {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > 2000) throw new RegistrationError('invalid_redirect_uri', 'Each redirect URI must be a string of 1 to 2000 characters')
  let u: URL
  try {
    u = new URL(uri)
  } catch {
    throw new RegistrationError('invalid_redirect_uri', `${uri} is not an absolute URI`)
  }
  if (uri.includes('#')) throw new RegistrationError('invalid_redirect_uri', `${uri}: redirect URIs must not carry a fragment (RFC 6749 section 3.1.2)`)
  if (FORBIDDEN_SCHEMES.has(u.protocol)) throw new RegistrationError('invalid_redirect_uri', `${uri}: the ${u.protocol} scheme is not allowed`)
  if (u.protocol === 'http:' && !judgeClient('', [uri]).local) {
    throw new RegistrationError('invalid_redirect_uri', `${uri}: plain http is allowed only to loopback addresses; use https`)
  }
  return uri
}

function optionalList(body: Record<string, unknown>, field: string, allowed: string[]): void {
  const v = body[field]
  if (v === undefined) return
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && allowed.includes(x))) {
    throw new RegistrationError('invalid_client_metadata', `${field} may only contain ${allowed.join(', ')}`)
  }
}

/** Checks the metadata Portico acts on; other RFC 7591 metadata is accepted and ignored. */
export function validateMetadata(body: unknown): ValidMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RegistrationError('invalid_client_metadata', 'The body must be a JSON object of client metadata')
  }
  const b = body as Record<string, unknown>
  const unstored = findUnstorable(b)
  if (unstored !== null) throw new RegistrationError('invalid_client_metadata', `${unstored || 'The metadata'} contains a NUL character or an unpaired surrogate`)
  if (!Array.isArray(b.redirect_uris) || b.redirect_uris.length === 0) {
    throw new RegistrationError('invalid_redirect_uri', 'redirect_uris is required: a non-empty array of URIs')
  }
  if (b.redirect_uris.length > MAX_REDIRECTS) throw new RegistrationError('invalid_redirect_uri', `At most ${MAX_REDIRECTS} redirect URIs`)
  const redirectUris = [...new Set(b.redirect_uris.map(checkRedirect))]
  // Compatibility forms fold to their plain letters (NFKC): the name is stored as it is judged.
  // Only spaces are trimmed: String.prototype.trim would also drop a leading U+FEFF, which is refused below.
  const name = typeof b.client_name === 'string' ? b.client_name.normalize('NFKC').replace(/^ +| +$/g, '') : ''
  if (name.length === 0 || name.length > 100 || /[\p{Cc}\p{Cf}]/u.test(name)) {
    throw new RegistrationError('invalid_client_metadata', 'client_name is required: 1 to 100 printable characters')
  }
  const problem = nameProblem(name)
  if (problem) throw new RegistrationError('invalid_client_metadata', problem)
  optionalList(b, 'grant_types', GRANT_TYPES)
  optionalList(b, 'response_types', ['code'])
  if (b.token_endpoint_auth_method !== undefined && b.token_endpoint_auth_method !== 'none') {
    throw new RegistrationError('invalid_client_metadata', 'Only public clients are accepted: token_endpoint_auth_method must be "none"')
  }
  const imitates = judgeClient(name, redirectUris).imitates
  if (imitates) {
    throw new RegistrationError('invalid_client_metadata', `client_name claims ${imitates}, but not every redirect URI belongs to ${imitates} or to loopback`)
  }
  const applicationType = redirectUris.every((u) => u.startsWith('https:')) ? 'web' : 'native'
  return { clientName: name, redirectUris, applicationType }
}

/**
 * Refuses the registration when a budget is spent: the address's, its prefix's, or the overall one.
 * The overall budget is soft: once spent, a prefix that registered fewer than `prefixFloor` clients
 * this hour still gets in (up to a hard cap of twice the budget), so the few prefixes that filled it
 * lock nobody else out; filling the hard cap takes hundreds of prefixes.
 */
async function checkBudget(tx: Sql, ip: string | null, prefix: string | null, now: Date, limits: RegistrationLimits): Promise<void> {
  const since = new Date(now.getTime() - HOUR)
  const c = await registrationsSince(tx, ip, prefix, since)
  const n = (k: string) => c![`${k}_n`] as number
  const over =
    n('address') >= limits.perAddressPerHour ? 'address'
    : n('prefix') >= limits.perPrefixPerHour ? 'prefix'
    : n('all') >= 2 * limits.globalPerHour || (n('all') >= limits.globalPerHour && n('prefix') >= limits.prefixFloor) ? 'all'
    : null
  if (!over) return
  const retry = Math.max(1, Math.ceil(((c![`${over}_oldest`] as Date).getTime() + HOUR - now.getTime()) / 1000))
  throw new RegistrationError('too_many_requests', 'Too many client registrations; try again later', 429, { 'retry-after': String(retry) })
}

export async function registerClient(deps: RegistrationDeps, body: unknown, ip: string | null) {
  const prefix = ip === null ? null : addressPrefix(ip)
  const meta = validateMetadata(body)
  const now = deps.clock.now()
  const clientId = newId('agc', now.getTime())
  const issuedAt = Math.floor(now.getTime() / 1000)
  const stored = {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    client_name: meta.clientName,
    redirect_uris: meta.redirectUris,
    application_type: meta.applicationType,
    grant_types: GRANT_TYPES,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  }
  try {
    await deps.auth.provider.Client.validate(stored)
  } catch (err) {
    const message = (err as { error_description?: string }).error_description ?? 'The client metadata is not valid'
    throw new RegistrationError(/redirect_uri/.test(message) ? 'invalid_redirect_uri' : 'invalid_client_metadata', message)
  }
  await deps.db.begin(async (tx) => {
    // One lock makes the budget exact under concurrent registrations (they are rare and cheap).
    await transactionLock(tx, REGISTRATION_LOCK)
    await checkBudget(tx, ip, prefix, now, deps.limits ?? REGISTRATION_LIMITS)
    await new (postgresAdapter(tx))('Client').upsert(clientId, stored)
    await insertAgentClient(tx, { client_id: clientId, client_name: meta.clientName, redirect_uris: meta.redirectUris, ip, ip_prefix: prefix }, now)
  })
  return {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    client_name: meta.clientName,
    redirect_uris: meta.redirectUris,
    token_endpoint_auth_method: 'none' as const,
    grant_types: GRANT_TYPES,
    response_types: ['code'],
  }
}

/**
 * Deletes clients no person approved within UNAPPROVED_CLIENT_TTL_MS, expired authorization-server
 * rows and DPoP proofs past their window. Idempotent; a job calls it, and registration runs it now and then.
 */
export async function cleanupAgentClients(db: Sql, clock: Clock): Promise<{ clients: number; expired: number }> {
  const cutoff = new Date(clock.now().getTime() - UNAPPROVED_CLIENT_TTL_MS)
  const gone = await db.begin(async (tx) => {
    const ids = await deleteUnapprovedClients(tx, cutoff)
    if (ids.length) await deleteStoredClients(tx, ids)
    return ids.length
  })
  return { clients: gone, expired: (await purgeExpired(db)) + (await purgeProofs(db)) + (await purgeRefreshOutcomes(db)) + (await purgeSignIns(db, clock.now())) }
}

const CLEANUP_EVERY_MS = 10 * 60_000
let lastCleanup = 0

/** Cleanup piggybacks on registration at most every ten minutes per process, off the request path. */
function maybeCleanup(deps: RegistrationDeps): void {
  const now = deps.clock.now().getTime()
  if (now - lastCleanup < CLEANUP_EVERY_MS) return
  lastCleanup = now
  cleanupAgentClients(deps.db, deps.clock).catch((err) => log.error('agent client cleanup failed', errorFields(err)))
}

/** Answers a registration request from the socket peer `peer` (behind trusted proxies, the client they name). */
export async function handleRegistration(deps: RegistrationDeps, req: Request, peer: string | null): Promise<Response> {
  const ip = clientAddress(req.headers, peer, deps.trustProxy ?? (() => false))
  try {
    // RFC 7591 section 3: client metadata is sent as application/json. A body declared as anything else
    // (or as nothing: a browser sends text/plain or no type without asking first) is refused, so no page
    // can register clients from its visitors' browsers without CORS's preflight.
    const type = req.headers.get('content-type')
    if (type === null || !jsonDeclared(type)) throw new RegistrationError('invalid_client_metadata', 'Send the client metadata as JSON with Content-Type: application/json', 415)
    if (undecodedCoding(req.headers) !== null) throw new RegistrationError('invalid_client_metadata', 'Send the client metadata without Content-Encoding', 415, IDENTITY_ONLY)
    const text = await req.text()
    if (text.length > MAX_BODY_BYTES) throw new RegistrationError('invalid_client_metadata', 'The body is too large')
    if (nestsDeeperThan(text)) throw new RegistrationError('invalid_client_metadata', `The body nests deeper than ${MAX_JSON_DEPTH} levels`)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new RegistrationError('invalid_client_metadata', 'The body must be JSON client metadata')
    }
    const registered = await registerClient(deps, body, ip)
    maybeCleanup(deps)
    return json(201, registered)
  } catch (err) {
    if (err instanceof RegistrationError) return json(err.status, { error: err.error, error_description: err.description }, err.headers)
    log.error('agent registration failed', errorFields(err))
    return json(500, { error: 'server_error', error_description: 'Internal error' })
  }
}

export function registrationMount(deps: RegistrationDeps): Mount {
  return (app: Elysia) => {
    app
      .post(REGISTER_PATH, ({ request, server }) => handleRegistration(deps, request, server?.requestIP(request)?.address ?? null), { parse: 'none' })
      .options(REGISTER_PATH, () => new Response(null, { status: 204, headers: { ...CORS, 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type' } }))
    return app
  }
}
