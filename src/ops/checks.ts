// Refusals as a table (in the style of oidc-provider's checks): an operation lists what it refuses, in
// order, each as `{when, code, reason, title}`, and one function answers the first that holds. A
// reader sees every refusal of a step in one place; a new one is a row, not another `if` in a handler.
import { ApiError, type ErrorCode, type ErrorDetails, type ErrorReason } from '../errors.ts'

/** One refusal: when `when` holds for the facts, the operation answers `code` (with `reason` as `details.reason`). */
export interface Refusal<F> {
  when: (facts: F) => boolean
  code: ErrorCode
  /** `details.reason`, after the fields of `details` when it has both. */
  reason?: ErrorReason
  title: string | ((facts: F) => string)
  /** `details` (field errors, or fields beside `reason`). */
  details?: (facts: F) => ErrorDetails
}

/** Throws the first refusal of `table` that holds for `facts`, in the table's order; returns when none does. */
export function refuseFirst<F>(table: readonly Refusal<F>[], facts: F): void {
  const hit = table.find((r) => r.when(facts))
  if (!hit) return
  const title = typeof hit.title === 'function' ? hit.title(facts) : hit.title
  const details = hit.details?.(facts)
  throw new ApiError(hit.code, title, hit.reason ? { ...(details as Record<string, unknown> | undefined), reason: hit.reason } : details)
}
