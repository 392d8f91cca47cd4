// Widget tokens (the API contract, section 5): short-lived JWTs minted by POST /tokens for one application,
// optionally bound to one hostname. HS256 with a key derived from SECRETS_KEY, so every process of a
// deployment verifies without a database read.
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose'
import { deriveKey } from '../crypto.ts'
import { newId } from '../ids.ts'

export const WIDGET_AUDIENCE = 'portico:widget'
export const WIDGET_TOKEN_TTL_SECONDS = 3600

export interface WidgetClaims {
  tenantId: string
  applicationId: string
  scope: 'connect' | 'app'
  boundHost: string | null
  tokenId: string
}

/**
 * Widget tokens revoked before their expiry (DELETE /v1/applications/{id}/widget-tokens/{tokenId}), by id,
 * per process: loaded at start and whenever the revocation notifications resume, added to as they come.
 */
export class RevokedWidgetTokens {
  private readonly ids = new Map<string, number>()

  has(id: string, nowMs: number): boolean {
    const until = this.ids.get(id)
    if (until === undefined) return false
    if (until > nowMs) return true
    this.ids.delete(id)
    return false
  }

  add(id: string, expiresMs: number): void {
    this.ids.set(id, expiresMs)
  }

  replace(list: { id: string; expires_at: Date }[]): void {
    this.ids.clear()
    for (const r of list) this.ids.set(r.id, r.expires_at.getTime())
  }
}

/** The longest a widget token lives (POST /tokens `expires_in`): a revocation is remembered that long. */
export const WIDGET_TOKEN_MAX_TTL_SECONDS = 86_400

export class WidgetTokens {
  private readonly key: Uint8Array
  readonly revoked = new RevokedWidgetTokens()
  constructor(
    master: Buffer,
    private readonly issuer: string,
  ) {
    this.key = new Uint8Array(deriveKey(master, 'widget-token'))
  }

  async mint(c: Omit<WidgetClaims, 'tokenId'>, now: Date, ttlSeconds = WIDGET_TOKEN_TTL_SECONDS, tokenId = newId('wtk', now.getTime())): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000)
    return new SignJWT({ tid: c.tenantId, scope: c.scope, ...(c.boundHost ? { dom: c.boundHost } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(WIDGET_AUDIENCE)
      .setSubject(c.applicationId)
      .setJti(tokenId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .sign(this.key)
  }

  /** Returns the claims, or null for any token that is not a valid, unexpired widget token of ours. */
  async verify(token: string, now: Date): Promise<WidgetClaims | null> {
    const r = await this.check(token, now)
    return r === 'expired' ? null : r
  }

  /** As `verify`, but says `expired` for a genuine token of ours past its lifetime or revoked (not a guess). */
  async check(token: string, now: Date): Promise<WidgetClaims | 'expired' | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: this.issuer,
        audience: WIDGET_AUDIENCE,
        algorithms: ['HS256'],
        currentDate: now,
      })
      const scope = payload.scope === 'app' ? 'app' : 'connect'
      if (typeof payload.tid !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return null
      // Revoked by its integrator: genuine, no longer valid (like an expired one, not a guess).
      if (this.revoked.has(payload.jti, now.getTime())) return 'expired'
      return { tenantId: payload.tid, applicationId: payload.sub, scope, boundHost: typeof payload.dom === 'string' ? payload.dom : null, tokenId: payload.jti }
    } catch (err) {
      // jose checks the signature before the claims: an expired token is one we signed.
      if (err instanceof joseErrors.JWTExpired) return 'expired'
      if (err instanceof joseErrors.JOSEError) return null
      throw err
    }
  }
}
