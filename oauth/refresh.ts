// One refresh chain per grant (RFC 9700 section 4.14.2, refresh token rotation). The first refresh of
// a refresh token claims it (a row keyed by the token's hash) and runs the authorization server; its
// answer is kept, sealed, for REFRESH_REUSE_GRACE_S. Then:
// - a repeat inside the grace, before the successor was used, gets the same answer, the same
//   successor (a retry after a lost response, or parallel refreshes, which wait for the first one's
//   answer instead of minting chains of their own); a refusal is not kept, as nothing was used up;
// - once the successor was used, or after the grace, a replay of the older token is a sign it was
//   copied: the grant ends (`token_reuse`), with its refresh tokens and access tokens;
// - a repeat of a DPoP-bound refresh needs a proof by the same key, as the first one did.
// The rows are the only state; every process shares them. A claim whose first refresh never answered
// (its process died) is taken over after CLAIM_STALE_MS.
import { createHash } from 'node:crypto'
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose'
import type { Sql } from '../src/db/sql.ts'
import {
  claimRefresh,
  dropRefreshClaim,
  keepRefreshAnswer,
  purgeRefreshAnswers,
  refreshOutcome,
  refreshTokenUnused,
  type RefreshOutcome,
} from '../src/db/oauth-store.ts'
import type { Clock } from '../src/clock.ts'
import { decrypt, encrypt } from '../src/crypto.ts'
import { revokeGrant, REVOKE_REASONS } from '../src/domain/agent-grants.ts'
import { DPOP_ALGORITHMS } from '../src/http/dpop.ts'

export const REFRESH_REUSE_GRACE_S = 60
const CLAIM_STALE_MS = 30_000
const WAIT_STEP_MS = 25
const PURPOSE = 'refresh-outcome'

export interface RefreshDeps {
  db: Sql
  clock: Clock
  secretsKey: Buffer
}

type Outcome = RefreshOutcome

const hashOf = (token: string) => createHash('sha256').update(token).digest()

const json = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' } })
const invalidGrant = (description: string) => json(400, JSON.stringify({ error: 'invalid_grant', error_description: description }))

/** The key thumbprint of a DPoP proof's header, when it is a valid signed proof for this token endpoint request. */
async function proofKey(proof: string | null, url: string): Promise<string | null> {
  if (!proof) return null
  try {
    const { payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: DPOP_ALGORITHMS })
    if (payload.htm !== 'POST' || typeof payload.htu !== 'string' || new URL(payload.htu).pathname !== new URL(url).pathname) return null
    return await calculateJwkThumbprint(decodeProtectedHeader(proof).jwk!, 'sha256')
  } catch {
    return null
  }
}

/** The thumbprint named by a proof's header, without checking it (the authorization server checked it). */
async function headerKey(proof: string | null): Promise<string | null> {
  try {
    return proof ? await calculateJwkThumbprint(decodeProtectedHeader(proof).jwk!, 'sha256') : null
  } catch {
    return null
  }
}

/**
 * Answers a refresh_token grant request once per refresh token. `grant` is the grant and client the
 * token belongs to (null for an unknown token); `run` sends the request to the authorization server.
 */
export async function refreshOnce(
  deps: RefreshDeps,
  req: Request,
  form: URLSearchParams,
  grant: { grantId: string; clientId: string } | null,
  run: () => Promise<Response>,
): Promise<Response> {
  const token = form.get('refresh_token') ?? ''
  // An unknown token has nothing to keep: the authorization server answers it.
  if (!token || !grant) return run()
  const hash = hashOf(token)
  const { db } = deps
  const now = () => deps.clock.now()
  const claim = () =>
    claimRefresh(db, { token_hash: hash, grant_id: grant.grantId, client_id: grant.clientId }, {
      now: now(),
      expires: new Date(now().getTime() + CLAIM_STALE_MS + REFRESH_REUSE_GRACE_S * 1000),
      staleBefore: new Date(now().getTime() - CLAIM_STALE_MS),
    })
  // The first one claims the token; the others wait for its answer (parallel refreshes) and answer the
  // same. A refusal is not kept (the token was not used): the claim goes and the next one tries itself.
  for (;;) {
    if (await claim()) return first(deps, req, hash, run)
    const row = await refreshOutcome(db, hash)
    if (row?.answered_at) return repeat(deps, req, form, row)
    await Bun.sleep(WAIT_STEP_MS)
  }
}

async function first(deps: RefreshDeps, req: Request, hash: Buffer, run: () => Promise<Response>): Promise<Response> {
  let res: Response
  try {
    res = await run()
  } catch (err) {
    // Nothing answered: the claim goes, so a retry is a first refresh again.
    await dropRefreshClaim(deps.db, hash)
    throw err
  }
  const body = await res.text()
  let successor: string | null = null
  try {
    successor = res.status === 200 ? ((JSON.parse(body) as { refresh_token?: string }).refresh_token ?? null) : null
  } catch {
    successor = null
  }
  if (successor === null) {
    // Refused (or no rotation): nothing was used up, so nothing is kept.
    await dropRefreshClaim(deps.db, hash)
    return new Response(body, { status: res.status, headers: res.headers })
  }
  const answered = deps.clock.now()
  await keepRefreshAnswer(deps.db, hash, {
    answered_at: answered,
    status: res.status,
    sealed: encrypt(deps.secretsKey, body, PURPOSE),
    successor,
    jkt: await headerKey(req.headers.get('dpop')),
    expires_at: new Date(answered.getTime() + REFRESH_REUSE_GRACE_S * 1000),
  })
  return new Response(body, { status: res.status, headers: res.headers })
}

async function repeat(deps: RefreshDeps, req: Request, form: URLSearchParams, row: Outcome): Promise<Response> {
  const now = deps.clock.now()
  if (form.get('client_id') !== row.client_id) return invalidGrant('this refresh token was not issued to this client')
  const successorUsed = row.successor
    ? !(await refreshTokenUnused(deps.db, row.successor))
    : false
  const graceOver = now.getTime() > row.answered_at!.getTime() + REFRESH_REUSE_GRACE_S * 1000
  if (successorUsed || graceOver) {
    // RFC 9700 section 4.14.2: an older token came back after its successor was used; one of the two
    // parties holding it is not the client. The whole grant ends.
    if (row.grant_id) await revokeGrant(deps.db, row.grant_id, REVOKE_REASONS.reuse, now)
    return invalidGrant('this refresh token was already used: the grant has ended, ask the person to approve again')
  }
  if (row.jkt && (await proofKey(req.headers.get('dpop'), req.url)) !== row.jkt) {
    return json(400, JSON.stringify({ error: 'invalid_dpop_proof', error_description: 'this refresh token is bound to a key: send a DPoP proof signed by it' }))
  }
  return json(row.status!, decrypt(deps.secretsKey, row.sealed!, PURPOSE))
}

/** Forgets answers whose grace has passed; returns how many went. */
export async function purgeRefreshOutcomes(db: Sql): Promise<number> {
  return purgeRefreshAnswers(db)
}
