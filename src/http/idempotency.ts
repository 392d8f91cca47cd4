// `Idempotency-Key` on retryable POSTs, as integrators know it from Stripe (and the IETF draft
// "The Idempotency-Key HTTP Header Field"):
// - the key belongs to the credential that sent it (an API key, a widget token, an agent's grant, the
//   operator secrets): the same key from another credential is another key, so a replay never hands
//   one caller's answer (a minted secret) to another;
// - the same key with the same request (operation, path, query and body) replays the first answer,
//   status and body, with `Idempotent-Replayed: true`; with another request it is 422
//   `idempotency_key_reused` and nothing runs;
// - while the first request runs, the same key answers 409 `idempotency_key_in_use` (Retry-After 1);
// - the answer is written in the operation's own transaction, so a committed mutation always has it;
//   only a successful answer binds the key: an error answer releases it for a retry;
// - keys expire 24 hours after first use (movable clock in tests; a sweep deletes expired rows).
import { createHash } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import { claimKey, keyRow, releaseKey, storeAnswer } from '../db/idempotency.ts'
import type { Principal } from '../domain/principal.ts'
import { ApiError } from '../errors.ts'
import type { AnyOp } from '../ops/registry.ts'
import { acceptsIdempotencyKey, IDEMPOTENCY_HEADER } from '../ops/declared.ts'
import type { OpResult, RawInput, RunHooks } from '../ops/run.ts'

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000
/** How long a running request holds its key before another with the same body may take it over (its process died). */
export const IDEMPOTENCY_LEASE_MS = 2 * 60_000
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

export { acceptsIdempotencyKey, IDEMPOTENCY_HEADER }

export const IDEMPOTENCY_NOTE =
  'Send `Idempotency-Key` (1 to 255 visible ASCII characters, unique per intended change) to retry safely: the same key with the ' +
  'same request from the same credential within 24 hours replays the first successful answer (`Idempotent-Replayed: true`); ' +
  'with a different request it is 422 `idempotency_key_reused` and nothing is done; while the first is still running it is 409 ' +
  '`idempotency_key_in_use`. An error answer does not bind the key.'

/** The credential a key belongs to. */
export function keyScope(p: Principal): { scope: string; tenantId: string | null } {
  switch (p.kind) {
    case 'KEY':
      return { scope: `key:${p.keyId}`, tenantId: p.tenantId }
    case 'WIDGET':
      return { scope: `widget:${p.tokenId}`, tenantId: p.tenantId }
    case 'AGENT':
      return { scope: `agent:${p.clientId}:${p.subject}`, tenantId: p.tenantId }
    default:
      return { scope: p.kind.toLowerCase(), tenantId: null }
  }
}

/** The request a key is bound to: operation, path parameters, query and body, keys in a stable order. */
export function requestFingerprint(op: AnyOp, raw: RawInput): string {
  const stable = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(stable) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, stable((v as Record<string, unknown>)[k])])) : v
  const body = raw.body === undefined || raw.body === null ? {} : raw.body
  return createHash('sha256').update(JSON.stringify(stable([op.id, raw.params ?? {}, raw.query ?? {}, body]))).digest('hex')
}

export interface IdempotencyDeps {
  db: Sql
  clock: Clock
}

/** Runs the request under its key: replays, refuses, or runs it with the answer stored in its transaction. */
export async function withIdempotencyKey(
  deps: IdempotencyDeps,
  op: AnyOp,
  principal: Principal,
  key: string,
  raw: RawInput,
  run: (hooks: RunHooks) => Promise<OpResult>,
): Promise<OpResult> {
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters', [{ in: 'header', field: IDEMPOTENCY_HEADER, message: 'not a valid key' }])
  }
  const { scope, tenantId } = keyScope(principal)
  const hash = requestFingerprint(op, raw)
  for (let attempt = 0; ; attempt++) {
    const now = deps.clock.now()
    const claimed = await claimKey(deps.db, {
      scope,
      key,
      tenantId,
      opId: op.id,
      hash,
      now,
      leaseUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    })
    if (claimed) break
    const row = await keyRow(deps.db, scope, key)
    // Released or expired between the two statements: claim again.
    if (!row || row.expires_at <= now) {
      if (attempt < 3) continue
      throw new ApiError('idempotency_key_in_use', undefined, { idempotency_key: key }, { headers: { 'retry-after': '1' } })
    }
    if (row.op_id !== op.id || row.request_hash !== hash) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key for a new request', { idempotency_key: key })
    }
    if (row.state === 'done') {
      return { status: row.status!, body: row.body ?? undefined, headers: { ...(row.headers ?? {}), 'idempotent-replayed': 'true' } }
    }
    throw new ApiError('idempotency_key_in_use', undefined, { idempotency_key: key }, { headers: { 'retry-after': '1' } })
  }
  try {
    return await run({
      beforeCommit: (sql, result) =>
        storeAnswer(sql, scope, key, result.status, result.body === undefined ? null : JSON.parse(JSON.stringify(result.body)), result.headers ?? {}),
    })
  } catch (err) {
    await releaseKey(deps.db, scope, key, hash).catch(() => {})
    throw err
  }
}
