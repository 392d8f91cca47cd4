// DPoP at the resource (RFC 9449 section 7): an access token bound to a key (`cnf.jkt`, minted when
// the client sent a DPoP proof to the token endpoint) is accepted only as `Authorization: DPoP <token>`
// with a `DPoP` proof header signed by that key for this very request. The checks, in order:
// 1. the proof is a JWT with `typ: dpop+jwt`, an asymmetric algorithm and a public `jwk` in its header,
//    signed by that key (section 4.3 items 1-6);
// 2. the key's thumbprint is the token's `cnf.jkt` (section 7.1);
// 3. `htm` is the request method and `htu` the request URL without query and fragment (items 8-9);
// 4. `iat` is within IAT_WINDOW_S of now, either way (item 11);
// 5. `ath` is the hash of the access token (item 12);
// 6. the `jti` was never seen for this key in its window: a replay cache in PostgreSQL shared by
//    every process (section 11.1).
// An unbound token is still a Bearer token; a bound one presented as Bearer, or an unbound one as DPoP,
// is refused (section 7.2: the scheme says which check applies).
// Refusals are challenged as section 7.1 asks: a proof that fails any check is `DPoP
// error="invalid_dpop_proof"`, a token under the wrong scheme `error="invalid_token"`, both naming the
// accepted algorithms (`algs`). No nonce is required, so `use_dpop_nonce` never comes.
import { createHash } from 'node:crypto'
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose'
import type { Sql } from '../db/sql.ts'
import type { Presentation } from '../domain/principal.ts'
import { noteProof, purgeSpentProofs } from '../db/oauth-store.ts'

export const IAT_WINDOW_S = 60
/** Proof algorithms accepted (also `dpop_signing_alg_values_supported` of the protected resource metadata). */
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'EdDSA', 'Ed25519', 'RS256', 'PS256']
const ALGORITHMS = DPOP_ALGORITHMS

/** How an agent token arrived: its scheme, and what a proof must match. */
/** `Authorization: Bearer <t>` or `DPoP <t>`, with what a proof must match; null for any other form. */
export function presentation(req: { headers: Headers; method: string; url: string }, publicUrl: string): { token: string; presented: Presentation } | null {
  const header = req.headers.get('authorization')
  if (header === null) return null
  // The usual form, `Bearer <token>` with one space and nothing else around it, without the pattern below.
  if (header.startsWith('Bearer ') && header.length > 7 && !SPACE.test(header.slice(7))) {
    return { token: header.slice(7), presented: { scheme: 'bearer', method: req.method, url: '', proof: null } }
  }
  const m = /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(header)
  if (!m) return null
  if (m[1]!.toLowerCase() !== 'dpop') return { token: m[2]!, presented: { scheme: 'bearer', method: req.method, url: '', proof: null } }
  // Only a proof is checked against the URL, so only the DPoP scheme pays for parsing it.
  const path = new URL(req.url, publicUrl).pathname
  return { token: m[2]!, presented: { scheme: 'dpop', method: req.method, url: publicUrl + path, proof: req.headers.get('dpop') } }
}

const SPACE = /\s/

const sha256url = (s: string) => createHash('sha256').update(s).digest('base64url')

function withoutQuery(u: string): string | null {
  try {
    const url = new URL(u)
    return url.origin + url.pathname
  } catch {
    return null
  }
}

/** Why a token was refused as presented: the RFC 9449 section 7.1 error code, and a reason for logs and the challenge. */
export interface PresentationRefusal {
  error: 'invalid_token' | 'invalid_dpop_proof'
  reason: string
}

const badProof = (reason: string): PresentationRefusal => ({ error: 'invalid_dpop_proof', reason })

/**
 * Whether the token may be used as presented. `jkt` is the token's `cnf.jkt` (absent for an unbound
 * token). Returns null when it may, else why not.
 */
export async function checkPresentation(db: Sql, token: string, jkt: string | undefined, p: Presentation): Promise<PresentationRefusal | null> {
  if (!jkt) return p.scheme === 'bearer' ? null : { error: 'invalid_token', reason: 'an unbound token cannot be presented as DPoP' }
  if (p.scheme !== 'dpop') return { error: 'invalid_token', reason: 'this token is bound to a key: present it with the DPoP scheme and a proof' }
  if (!p.proof) return badProof('missing DPoP proof')
  let claims: Record<string, unknown>
  let thumbprint: string
  try {
    const verified = await jwtVerify(p.proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ALGORITHMS })
    claims = verified.payload as Record<string, unknown>
    thumbprint = await calculateJwkThumbprint(decodeProtectedHeader(p.proof).jwk!, 'sha256')
  } catch {
    return badProof('the DPoP proof is not a valid signed dpop+jwt')
  }
  if (thumbprint !== jkt) return badProof('the DPoP proof is signed by another key than the token is bound to')
  if (claims.htm !== p.method) return badProof('htm does not match the request method')
  if (typeof claims.htu !== 'string' || withoutQuery(claims.htu) !== withoutQuery(p.url)) return badProof('htu does not match the request URL')
  const now = Math.floor(Date.now() / 1000)
  if (typeof claims.iat !== 'number' || Math.abs(claims.iat - now) > IAT_WINDOW_S) return badProof('iat is outside the accepted window')
  if (claims.ath !== sha256url(token)) return badProof('ath does not match the access token')
  if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > 200) return badProof('missing jti')
  // Kept until the proof's iat window has passed for certain; a second insert of the same jti finds it.
  const expires = new Date((claims.iat + 2 * IAT_WINDOW_S) * 1000)
  return (await noteProof(db, jkt, claims.jti, expires)) ? null : badProof('the DPoP proof was already used')
}

/** The RFC 9449 section 7.1 challenge for a refusal: `DPoP error="…", error_description="…", algs="…"`. */
export function dpopChallenge(refusal: PresentationRefusal): string {
  const q = (v: string) => `"${v.replace(/["\\]/g, '')}"`
  return `DPoP error=${q(refusal.error)}, error_description=${q(refusal.reason)}, algs=${q(DPOP_ALGORITHMS.join(' '))}`
}

/** Forgets proofs whose window has passed; returns how many went. */
export async function purgeProofs(db: Sql): Promise<number> {
  return purgeSpentProofs(db)
}
