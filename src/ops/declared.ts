// What an operation can answer, derived from what it declares ("The document lists every answer",
// DESIGN.md): its own `errors` (what its handler decides), plus what every face adds for what it
// declares. The OpenAPI document lists exactly this set per operation, and in tests each face checks
// every error it answers against it (`undeclared`): a handler, a check or a face that answers a code
// the operation does not declare fails the test that provoked it.
//
// The rules, each from the part of the house that answers the code:
// - every operation: `internal_error` (500) and `service_unavailable` (503: a database that cannot be
//   reached, a passed deadline; src/http/app.ts, src/ops/deadline.ts);
// - any credential accepted (anything but NONE alone): `unauthorized` (401), `forbidden` (403: a valid
//   credential of another kind, a management key in production, a role, a widget token's class), and
//   `rate_limited` (429: the per-address budget of failed credential checks, src/domain/throttle.ts,
//   and per-credential limits); a `guessable` operation (a secret in its input) is throttled the same way;
// - a `scope` (agents may call it): `insufficient_scope` (403);
// - `invalid_request` (400): any input can be wrong (an MCP tool's unknown arguments too); a method
//   with a body: `unsupported_media_type` (415) and `payload_too_large` (413);
// - an id in the input (a path parameter, or a field `id` / `…_id` in the query or body): `not_found`
//   (404: unknown or another tenant's id; the API contract, section 7);
// - `Idempotency-Key` accepted: `idempotency_key_in_use` (409), `idempotency_key_reused` (422) and
//   `invalid_request` (a malformed key).
import type { TObject } from '@sinclair/typebox'
import { ApiError, ERROR_STATUS, type ErrorCode } from '../errors.ts'
import type { AnyOp } from './registry.ts'

export const IDEMPOTENCY_HEADER = 'idempotency-key'

/**
 * The operations that take `Idempotency-Key`: every POST that changes something and accepts a
 * credential. Reads sent as POST need none; an operation that declares the header itself (`POST
 * /registrar/purchase`, bound to its order) keeps its own handling.
 */
export function acceptsIdempotencyKey(op: AnyOp): boolean {
  if (op.method !== 'POST' || op.kind === 'read') return false
  if (op.auth.every((c) => c === 'NONE' || c === 'EDGE')) return false
  return !(op.headers && IDEMPOTENCY_HEADER in op.headers.properties)
}

const names = (s: TObject | undefined) => (s ? Object.keys(s.properties) : [])
const isId = (name: string) => name === 'id' || name.endsWith('_id')

/** An operation's error codes: its own and those its declaration implies (see the rules above). */
export function declaredErrors(op: AnyOp): Set<ErrorCode> {
  const out = new Set<ErrorCode>(op.errors)
  out.add('internal_error')
  out.add('service_unavailable')
  const authenticated = op.auth.some((c) => c !== 'NONE')
  if (authenticated) {
    out.add('unauthorized')
    out.add('forbidden')
  }
  if (authenticated || op.guessable) out.add('rate_limited')
  if (op.scope) out.add('insufficient_scope')
  // Any input can be wrong, and an MCP tool's arguments are checked even when it takes none.
  out.add('invalid_request')
  // A method with a body: the face refuses a body it cannot read, and one over 1 MiB (src/http/app.ts).
  if (op.method !== 'GET') {
    out.add('unsupported_media_type')
    out.add('payload_too_large')
  }
  if (names(op.params).length || [...names(op.query), ...names(op.body)].some(isId)) out.add('not_found')
  if (acceptsIdempotencyKey(op)) {
    out.add('idempotency_key_in_use')
    out.add('idempotency_key_reused')
  }
  return out
}

/** The declared codes grouped by HTTP status, statuses in order (the document's error responses). */
export function declaredByStatus(op: AnyOp): [number, ErrorCode[]][] {
  const by = new Map<number, ErrorCode[]>()
  for (const code of [...declaredErrors(op)].sort()) by.set(ERROR_STATUS[code], [...(by.get(ERROR_STATUS[code]) ?? []), code])
  return [...by].sort((a, b) => a[0] - b[0])
}

const cache = new WeakMap<AnyOp, Set<ErrorCode>>()

/**
 * In tests: an error an operation answered that its declaration does not list becomes a 500 naming the
 * operation and the code, so the test that provoked it fails (and says why). Elsewhere the error stands.
 */
export function undeclared(op: AnyOp | undefined, err: ApiError, testing: boolean): ApiError {
  if (!testing || !op) return err
  let set = cache.get(op)
  if (!set) cache.set(op, (set = declaredErrors(op)))
  if (set.has(err.code)) return err
  return new ApiError('internal_error', `Undeclared error: operation ${op.id} answered ${err.status} ${err.code}, which its declaration does not list (add it to errors: [...] or to the rules in src/ops/declared.ts)`)
}
