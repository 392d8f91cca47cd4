// Monitor operations (the API contract, section 4, "Templates, Secure, Monitor"; section 2, "Monitor domain
// entry"): the attention-first listing with summary counters, one connection's monitor detail, and
// the widget's read-only check of a supplied baseline against live DNS.
//
// Paging while drift changes: the first page is read in one statement whose MVCC snapshot goes into
// the cursor. Every rank change is logged with the id of the transaction that wrote it (the sweep,
// src/jobs/monitor-sweep.ts), so later pages read each domain's rank as of that snapshot with
// `pg_visible_in_snapshot`. All pages are therefore cuts of one ordering, keyed (rank, id), and a
// domain whose drift changes between pages is neither repeated nor skipped; its entry still shows
// its current state. The rank log holds 24 changes (at most one per hourly check), so a cursor is
// accepted for 12 hours.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import type { MonitorRow as Row } from '../../db/monitor.ts'
import { EVERY, MANUAL_DETAIL, NO_RAIL_DETAIL, scheduleOf } from '../../domain/monitor.ts'
import { absoluteHost } from '../../domain/hostnames.ts'
import { Nullable, Out, outside, Timestamp } from '../schemas.ts'
import type { Ctx } from '../registry.ts'

export const TAG = 'Monitor'

const Strings = Type.Array(Type.String())

const VerdictSchema = Type.Union([Type.Literal('record_missing'), Type.Literal('record_changed'), Type.Literal('extra_value')])

const DriftItemSchema = Out({ subdomain: Type.String({ description: 'The record host as in the baseline (`@` is the apex)' }), type: Type.String(), verdict: VerdictSchema, expected: Strings, observed: Type.Array(Type.String(), { description: 'What DNS answers now', ...outside('dns') }) })

const HistorySchema = named('MonitorHistoryEntry', Out({
  id: Type.String(),
  application_id: Type.String(),
  connection_id: Type.String(),
  domain: Type.String(),
  kind: Type.Union(['drift', 'restored', 'auto_fixed', 'repair_failed'].map((k) => Type.Literal(k))),
  detail: Type.Object({}, { additionalProperties: true, description: 'What was seen; may quote DNS answers and the DNS provider', ...outside('dns') }),
  created_at: Timestamp(),
}))

export const EntrySchema = named('MonitorDomain', Out({
  connection_id: Type.String(),
  application_id: Type.String(),
  domain: Type.String(),
  status: Type.String({ description: 'The connection status; only live connections are watched' }),
  watched: Type.Boolean(),
  active: Type.Boolean({ description: 'Checks are running for it (watched and not paused)' }),
  every: Type.String(),
  last_checked_at: Nullable(Timestamp('The last check: its domain\'s slot in the hour for a check that found nothing new, the time of the check otherwise; null before the first')),
  next_check_at: Nullable(Timestamp('The next check: the domain\'s slot in the coming hour, at least 10 minutes after the last check; sooner when the DNS host refused a repair for now and said when to try again (Retry-After)')),
  result: Nullable(Type.Union([Type.Literal('ok'), Type.Literal('drift'), Type.Literal('inconclusive')], { description: 'null: not checked yet' })),
  drift_since: Nullable(Timestamp()),
  drift: Type.Array(DriftItemSchema),
  checked: Type.Integer({ description: 'How many checks were made' }),
  error: Nullable(Type.String({ description: 'The resolver failure of an inconclusive check', ...outside('dns') })),
  action: Nullable(Out({ kind: Type.Literal('auto_fixed'), at: Timestamp(), description: Type.String() })),
  attention: Nullable(Type.Literal('action_required')),
  repair: Out({ automatic: Type.Boolean(), paused: Type.Boolean(), via: Nullable(Type.Literal('managed_dns')), detail: Type.String({ description: 'The repair policy, or what the last repair met; may quote the DNS provider', ...outside('provider') }) }),
  alerts: Out({ webhooks: Type.Boolean(), email: Type.Boolean() }),
  watching: Type.Array(Out({ name: Type.String(), type: Type.String(), value: Type.String() })),
  history: Type.Optional(Type.Array(HistorySchema, { description: 'Newest first; in the per-connection detail only' })),
}))

function repairOf(ctx: Ctx, r: Row) {
  const automatic = r.managed && ctx.services.monitorRepair !== undefined
  const policy = r.managed ? (automatic ? 'Drift is repaired through the managed grant.' : NO_RAIL_DETAIL) : MANUAL_DETAIL
  return { automatic, paused: false, via: r.managed ? ('managed_dns' as const) : null, detail: r.repair_detail ?? policy }
}

export function entryOut(ctx: Ctx, r: Row) {
  const watched = r.status === 'live'
  // Unchanged checks are not written: the count, last and next check follow from the sweep's watermark.
  const schedule = r.enrolled_at ? scheduleOf(r.slot_ms!, r.checked ?? 0, r.last_checked_at, r.swept_to, r.enrolled_at) : null
  return {
    connection_id: r.id,
    application_id: r.application_id,
    domain: r.domain,
    status: r.status,
    watched,
    active: watched,
    every: EVERY,
    last_checked_at: schedule?.last_checked_at ?? null,
    // A repair the host asked to be tried again sooner (its Retry-After) is checked then.
    next_check_at: watched ? (r.retry_at && schedule?.next_check_at && r.retry_at < schedule.next_check_at ? r.retry_at : (schedule?.next_check_at ?? null)) : null,
    result: r.result ?? null,
    drift_since: r.drift_since ?? null,
    drift: r.drift ?? [],
    checked: schedule?.checked ?? 0,
    error: r.error ?? null,
    action: r.action ?? null,
    attention: r.attention ?? null,
    repair: repairOf(ctx, r),
    alerts: { webhooks: ctx.config.monitorAlertsEnabled, email: false },
    watching: r.desired_records.filter((d) => d.type !== 'REDIR301').map((d) => ({ name: absoluteHost(d.host, r.apex_domain), type: d.type, value: d.value })),
  }
}
