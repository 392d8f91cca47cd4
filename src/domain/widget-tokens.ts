// Widget tokens (CONTRACT.md section 5): short-lived JWTs minted by POST /tokens for one application,
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

export class WidgetTokens {
  private readonly key: Uint8Array
  constructor(
    master: Buffer,
    private readonly issuer: string,
  ) {
    this.key = new Uint8Array(deriveKey(master, 'widget-token'))
  }

  async mint(c: Omit<WidgetClaims, 'tokenId'>, now: Date, ttlSeconds = WIDGET_TOKEN_TTL_SECONDS): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000)
    return new SignJWT({ tid: c.tenantId, scope: c.scope, ...(c.boundHost ? { dom: c.boundHost } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(WIDGET_AUDIENCE)
      .setSubject(c.applicationId)
      .setJti(newId('wtk', now.getTime()))
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .sign(this.key)
  }

  /** Returns the claims, or null for any token that is not a valid, unexpired widget token of ours. */
  async verify(token: string, now: Date): Promise<WidgetClaims | null> {
    const r = await this.check(token, now)
    return r === 'expired' ? null : r
  }

  /** As `verify`, but says `expired` for a genuine token of ours past its lifetime (not a guess). */
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
      return { tenantId: payload.tid, applicationId: payload.sub, scope, boundHost: typeof payload.dom === 'string' ? payload.dom : null, tokenId: payload.jti }
    } catch (err) {
      // jose checks the signature before the claims: an expired token is one we signed.
      if (err instanceof joseErrors.JWTExpired) return 'expired'
      if (err instanceof joseErrors.JOSEError) return null
      throw err
    }
  }
}
