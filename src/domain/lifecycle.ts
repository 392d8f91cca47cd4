// The connection lifecycle (the API contract, section 3), as a pure function from a connection, a
// verification and the time to what changes: when to check next, and which transition of the table
// (src/domain/transitions.ts: `records_resolved`, `timed_out`) a result is, with its event and effects.
// Portico's choices where the contract is silent:
// - a connection starts `pending`: its records are not known to be in place;
// - it moves to `propagating` when a rail writes its records or when someone says they added them
//   (`:recheck`); the 24-hour clock starts then;
// - checks are frequent while a person is likely at their DNS provider, then back off (`EARLY`):
//   every 3 s for the first two minutes after a connection is created (or said to be set up), every
//   10 s until ten minutes, every minute until an hour;
// - a `pending` connection is never failed for late DNS: after its first hour it is re-checked every
//   15 minutes until three days, then every six hours with diagnosis `setup_incomplete`, and goes
//   live whenever its records appear.
import { DAY, HOUR } from '../clock.ts'
import type { ConnectionStatus } from '../db/connections.ts'
import type { Verification } from './verify.ts'
import { decideOpen, type Effect, type Rule } from './transitions.ts'

/** A connection's status, as its column stores it. */
export type Status = ConnectionStatus

export const PROPAGATION_TIMEOUT_MS = DAY
export const LATE_DNS_AFTER_MS = 3 * DAY
export const LATE_DNS_EVERY_MS = 6 * HOUR
const MINUTE = 60_000

export interface LifecycleState {
  status: Status
  created_at: Date
  propagating_since: Date | null
  error_code: string | null
  error_message: string | null
  /** Pre-validation's stage (src/domain/prevalidation.ts); null or absent on the usual path. */
  validation_stage?: string | null
}

export interface Transition {
  status: Status
  next_check_at: Date | null
  error_code: string | null
  error_message: string | null
  /** The event the transition's rule emits (src/domain/transitions.ts); null when the status stays. */
  event: Rule['event']
  /** What the rule sets in motion besides the status (the landing statement carries each out). */
  effects?: readonly Effect[]
  /**
   * Pre-validation: the first step's records (ownership TXT, `_acme-challenge` delegation) resolve.
   * That is not the routing: the connection stays where it is, leaves verification, and its
   * certificate is ordered; the routing records are asked for once it is on every edge node.
   */
  proven?: true
}

/** Stages before the routing records are asked for: every record resolving proves ownership, not `live`. */
const BEFORE_ROUTING = new Set(['awaiting_records', 'issuing'])

/** The first hour's check intervals: [age below which it applies, interval], in milliseconds. */
export const EARLY: readonly (readonly [number, number])[] = [
  [2 * MINUTE, 3_000],
  [10 * MINUTE, 10_000],
  [HOUR, MINUTE],
]

const early = (age: number) => EARLY.find(([until]) => age < until)?.[1]

function nextPropagatingCheck(since: Date, now: Date, inconclusive: boolean): Date {
  const age = now.getTime() - since.getTime()
  const every = Math.min(early(age) ?? 10 * MINUTE, inconclusive ? MINUTE : Infinity)
  const deadline = since.getTime() + PROPAGATION_TIMEOUT_MS
  return new Date(Math.min(now.getTime() + every, Math.max(deadline, now.getTime() + 30_000)))
}

export function nextPendingCheck(created: Date, now: Date): Date {
  const age = now.getTime() - created.getTime()
  const every = early(age) ?? (age < LATE_DNS_AFTER_MS ? 15 * MINUTE : LATE_DNS_EVERY_MS)
  return new Date(now.getTime() + every)
}

/** The lifecycle's two long waits; test mode plays them short for its own scenarios (src/domain/test-mode.ts). */
export interface LifecycleLimits {
  /** A propagating connection is failed with `propagation_timeout` this long after it started propagating. */
  propagationTimeoutMs: number
  /** A pending connection is diagnosed `setup_incomplete` this long after it was created. */
  lateDnsAfterMs: number
}
export const LIMITS: LifecycleLimits = { propagationTimeoutMs: PROPAGATION_TIMEOUT_MS, lateDnsAfterMs: LATE_DNS_AFTER_MS }

export function afterVerification(c: LifecycleState, v: Verification, now: Date, limits: LifecycleLimits = LIMITS): Transition {
  if (v.outcome === 'all' && c.validation_stage && BEFORE_ROUTING.has(c.validation_stage) && (c.status === 'pending' || c.status === 'propagating')) {
    return { status: c.status, next_check_at: null, error_code: c.error_code, error_message: c.error_message, event: null, proven: true }
  }
  if (v.outcome === 'all') {
    const d = decideOpen('records_resolved', c.status)
    if (!d) return { status: c.status, next_check_at: null, error_code: null, error_message: null, event: null }
    return { status: d.status, next_check_at: null, error_code: null, error_message: null, event: d.event, effects: d.rule.effects }
  }
  const keep = { error_code: c.error_code, error_message: c.error_message }
  if (c.status === 'propagating') {
    const since = c.propagating_since ?? now
    const late = v.outcome !== 'inconclusive' && now.getTime() - since.getTime() >= limits.propagationTimeoutMs
    const d = late ? decideOpen('timed_out', c.status) : null
    if (d) {
      return {
        status: d.status,
        next_check_at: null,
        error_code: 'propagation_timeout',
        error_message: 'The DNS records did not appear within 24 hours',
        event: d.event,
        effects: d.rule.effects,
      }
    }
    const next = nextPropagatingCheck(since, now, v.outcome === 'inconclusive')
    return { status: 'propagating', next_check_at: next, ...keep, event: null }
  }
  if (c.status === 'pending') {
    const late = now.getTime() - c.created_at.getTime() >= limits.lateDnsAfterMs
    return {
      status: 'pending',
      next_check_at: nextPendingCheck(c.created_at, now),
      error_code: late ? 'setup_incomplete' : c.error_code,
      error_message: late ? 'The DNS records have not been added yet' : c.error_message,
      event: null,
    }
  }
  // live or failed: verification is not scheduled for them; keep their state.
  return { status: c.status, next_check_at: null, ...keep, event: null }
}
