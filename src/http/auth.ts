// Credential resolution (the API contract, section 5). The bearer's form says what it claims to be (an API
// key prefix, a JWT, or an opaque operator secret); it is then verified only as a credential the
// operation accepts. Anything else is 401 with the same answer, so a caller learns nothing about why.
// An agent token may also come as `Authorization: DPoP` with its proof (dpop.ts).
import type { Config } from '../config.ts'
import { addressOf, type AddressSource } from '../client-address.ts'
import type { Sql } from '../db/sql.ts'
import { liveKeyByHash, markKeyUsed } from '../db/api-keys.ts'
import { looksLikeApiKey, wellFormedApiKey } from '../domain/secrets.ts'
import { secretEquals, sha256Hex } from '../crypto.ts'
import { RecentMisses } from '../domain/throttle.ts'
import type { Clock } from '../clock.ts'
import type { Services } from '../services.ts'
import { ApiError } from '../errors.ts'
import type { Credential, Principal } from '../domain/principal.ts'
import { presentation } from './dpop.ts'
import type { Presentation } from '../domain/principal.ts'

export interface AuthDeps {
  config: Config
  db: Sql
  clock: Clock
  services: Services
}

function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)
}

function jwtType(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { typ?: string }
    return header.typ?.toLowerCase()
  } catch {
    return undefined
  }
}

const lastUsedWrites = new Map<string, number>()

/** Marks a key used, at most once a minute per key per process: a write per request would cost more than the read. */
function touchKey(db: Sql, keyId: string, now: Date): void {
  const prev = lastUsedWrites.get(keyId) ?? 0
  if (now.getTime() - prev < 60_000) return
  lastUsedWrites.set(keyId, now.getTime())
  markKeyUsed(db, keyId, now).catch(() => {})
}

/** Wrong API keys seen lately (per process): sent again, they are refused without a query. */
const misses = new RecentMisses()

async function apiKeyPrincipal(deps: AuthDeps, token: string, hex: string): Promise<Principal | null> {
  // A key Portico never mints (wrong length or alphabet) is refused before any lookup.
  if (!wellFormedApiKey(token)) return null
  const cache = deps.services.keyCache
  const nowMs = Date.now()
  const cached = cache?.get(hex, nowMs)
  if (cached) return cached
  if (misses.has(hex, nowMs)) return null
  const mark = cache?.mark() ?? 0
  const k = await liveKeyByHash(deps.db, Buffer.from(hex, 'hex'))
  if (!k) {
    misses.add(hex, nowMs)
    return null
  }
  touchKey(deps.db, k.id, deps.clock.now())
  const p = { kind: 'KEY' as const, tenantId: k.tenant_id, keyId: k.id, role: k.role, applicationId: k.application_id }
  cache?.set(hex, p, nowMs, mark)
  return p
}

/**
 * The usual request answered from memory, without the asynchronous path below: `Authorization: Bearer`
 * with a well-formed API key the key cache holds, on an operation that takes keys, with no edge or
 * provision header beside it and no failure anywhere for the throttle to weigh. Anything else (null)
 * goes through `authenticate`, which would find the same principal.
 */
export function cachedApiKey(deps: AuthDeps, headers: Headers, accepted: readonly Credential[], ip?: AddressSource): Principal | null {
  if (!accepted.includes('KEY') || !deps.services.keyCache) return null
  const header = headers.get('authorization')
  if (header === null || !header.startsWith('Bearer ')) return null
  const token = header.slice(7)
  if (!wellFormedApiKey(token) || headers.get('x-provision-secret') !== null) return null
  if (accepted.includes('EDGE') && headers.get('x-edge-auth') !== null) return null
  const throttle = ip === undefined ? undefined : deps.services.throttle
  if (throttle && !throttle.quiet) return null
  const hex = sha256Hex(token)
  const p = deps.services.keyCache.get(hex, Date.now())
  if (!p) return null
  throttle?.vouch(hex)
  return p
}

/** What a bearer claims to be, by its form alone. */
function bearerKind(token: string): 'KEY' | 'AGENT' | 'WIDGET' | 'OPAQUE' {
  if (looksLikeApiKey(token)) return 'KEY'
  if (looksLikeJwt(token)) return jwtType(token) === 'at+jwt' ? 'AGENT' : 'WIDGET'
  return 'OPAQUE'
}

/** Whether a bearer is a widget or agent token Portico signed, unexpired: a signature check in memory, no query. */
async function signedByPortico(deps: AuthDeps, token: string): Promise<boolean> {
  const kind = bearerKind(token)
  if (kind === 'WIDGET') {
    const w = await deps.services.widgetTokens.check(token, deps.clock.now())
    return w !== null && w !== EXPIRED
  }
  if (kind === 'AGENT') return (await deps.services.agentTokenSigned?.(token)) ?? false
  return false
}

/** A credential that is genuine but no longer valid (an expired widget token): refused, but not a guess. */
const EXPIRED = 'expired' as const

async function verifyBearer(deps: AuthDeps, token: string, hex: string, kind: ReturnType<typeof bearerKind>, presented: Presentation): Promise<Principal | null | typeof EXPIRED> {
  // Only an agent token may come under the DPoP scheme (RFC 9449); it then needs its proof.
  if (presented.scheme === 'dpop' && kind !== 'AGENT') return null
  switch (kind) {
    case 'KEY':
      return apiKeyPrincipal(deps, token, hex)
    case 'AGENT': {
      const a = deps.services.verifyAgentToken ? await deps.services.verifyAgentToken(token, presented) : null
      return a ? { kind: 'AGENT', ...a } : null
    }
    case 'WIDGET': {
      const w = await deps.services.widgetTokens.check(token, deps.clock.now())
      return w === EXPIRED ? EXPIRED : w ? { kind: 'WIDGET', ...w } : null
    }
    case 'OPAQUE':
      if (deps.config.managementKey && secretEquals(token, deps.config.managementKey)) return { kind: 'MGMT' }
      if (deps.config.provisionSecret && secretEquals(token, deps.config.provisionSecret)) return { kind: 'PROV' }
      return null
  }
}

/**
 * Resolves the caller. A valid credential of a kind the operation does not accept is 403 (it is
 * known, just not allowed here); a missing, unknown, expired or revoked one is 401. With `ip` (the
 * client's address) and a throttle, failed checks are counted and an address that spent its budget
 * is answered 429 before any credential it sends is looked at, unless that credential verified lately
 * (it is in the throttle's in-memory `known` set: src/domain/throttle.ts).
 */
export async function authenticate(
  deps: AuthDeps,
  headers: Headers,
  accepted: readonly Credential[],
  /** The request's method and URL, which a DPoP proof must name; absent, a DPoP-bound token is refused. */
  request: { method: string; url: string } = { method: '', url: '/' },
  ip?: AddressSource,
): Promise<Principal> {
  if (accepted.length === 1 && accepted[0] === 'NONE') return { kind: 'NONE' }
  const throttle = ip === undefined ? undefined : deps.services.throttle
  const edge = accepted.includes('EDGE') ? headers.get('x-edge-auth') : null
  const presented = presentation({ headers, method: request.method, url: request.url }, deps.config.publicUrl)
  const token = presented?.token ?? null
  const provHeader = headers.get('x-provision-secret')
  // The one secret this request stakes its claim on, by hash: what `known` remembers (and an API key's lookup key).
  const secret = edge ?? provHeader ?? token
  const hex = secret !== null ? sha256Hex(secret) : null
  // With no failure anywhere lately the address is not needed (nor asked for: src/client-address.ts).
  if (throttle && hex !== null && !throttle.quiet) {
    try {
      throttle.check(addressOf(ip), hex)
    } catch (err) {
      // A signed token (widget, agent) is checked by its signature alone, with no database query: one of ours
      // was minted by Portico (not guessed) and goes on to be verified whatever the neighbours spent.
      if (!(token !== null && secret === token && (await signedByPortico(deps, token)))) throw err
    }
  }
  if (edge && deps.config.edgeAuthSecret && secretEquals(edge, deps.config.edgeAuthSecret)) {
    throttle?.vouch(hex!)
    return { kind: 'EDGE' }
  }
  if (provHeader !== null && accepted.includes('PROV') && deps.config.provisionSecret && secretEquals(provHeader, deps.config.provisionSecret)) {
    throttle?.vouch(hex!)
    return { kind: 'PROV' }
  }
  let expired = false
  if (token) {
    // The token is what `hex` hashes unless an edge or provision header came too (then hash the token itself).
    const tokenHex = secret === token ? hex! : sha256Hex(token)
    const p = await verifyBearer(deps, token, tokenHex, bearerKind(token), presented!.presented)
    if (p === EXPIRED) expired = true
    else if (p) {
      throttle?.vouch(tokenHex)
      if (p.kind === 'MGMT' && deps.config.appEnv === 'production') {
        throw new ApiError('forbidden', 'Management-key routes are disabled in production')
      }
      if (accepted.includes(p.kind)) return p
      if (accepted.includes('NONE')) return { kind: 'NONE' }
      // A valid credential: its answer says where it stands against its limits, as every valid credential's does.
      const taken = deps.services.rateLimits?.take(p)
      throw new ApiError('forbidden', 'This credential cannot call this operation', undefined, taken ? { headers: taken.headers } : {})
    }
  }
  if (accepted.includes('NONE')) return { kind: 'NONE' }
  const sent = token !== null || provHeader !== null || edge !== null
  if (throttle && sent && !expired) {
    // A credential that verified before and fails now (revoked) is no longer known.
    throttle.known.forget(hex!)
    if (token !== null && secret !== token) throttle.known.forget(sha256Hex(token))
    throttle.fail(addressOf(ip))
  }
  throw new ApiError('unauthorized', sent ? 'The credential is not valid' : 'Missing credential', undefined, { headers: { 'www-authenticate': bearerChallenge(!!token) } })
}

/** RFC 6750 section 3: every 401 names the scheme, and `invalid_token` when a token came and was refused. */
function bearerChallenge(tokenGiven: boolean): string {
  return tokenGiven ? 'Bearer realm="portico", error="invalid_token", error_description="The credential is not valid"' : 'Bearer realm="portico"'
}
