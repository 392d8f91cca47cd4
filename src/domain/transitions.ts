// The one owner of a connection's status changes: every change (from, to, cause), the event it emits
// and what it sets in motion, in one table. The code that changes a status asks `decide` and carries
// out the answer (src/domain/status-changes.ts stores it through src/db/ and emits its event; the
// verification sweep lands its batch the same way); no query decides a status. docs/events.md's
// "Status changes" section is generated from this table, and tests that pin a path's events ask
// `eventsAlong` instead of listing them, so giving a transition an event is a change to its row here
// (and, for a type not emitted before, its declaration in src/domain/events.ts).
//
// The stage machine of pre-validation (`validation_stage`, src/domain/prevalidation.ts `nextStage`) is
// a second, smaller table beside this one: a stage moves with these status changes, never instead.
//
// No imports beyond the status type: src/domain/test-mode.ts derives its scenarios' events from here,
// and src/domain/events.ts imports test-mode (a compile-time check in status-changes.ts holds every
// event named here to the event registry; test/unit/transitions.test.ts checks the rest).
import type { ConnectionStatus } from '../db/connections.ts'

/** Where a connection is: its status, or not opened yet, or closed (`disconnected_at` set). */
export type Place = ConnectionStatus | 'new' | 'closed'

/** What changes a connection's status. */
export type Cause =
  | 'created'
  | 'records_written'
  | 'records_rewritten'
  | 'said_added'
  | 'revived'
  | 'records_replaced'
  | 'records_resolved'
  | 'timed_out'
  | 'disconnected'

/** What a transition sets in motion besides the status; the store (or the landing statement) does each as told. */
export type Effect =
  /** `propagating_since` = now: the 24 hours to `failed` start. */
  | 'start_clock'
  /** `propagating_since` = null. */
  | 'clear_clock'
  /** `next_check_at` = now: verified at the next sweep (woken at once). */
  | 'check_now'
  /** `retried_at` = now and `failed_at` cleared. */
  | 'count_retry'
  /** `error_code` and `error_message` cleared. */
  | 'clear_diagnosis'
  /** `live_at` = now. */
  | 'stamp_live'
  /** `failed_at` = now. */
  | 'stamp_failed'
  /** A monitor already watching it starts over against the records as they are now (its state reset, enrolled now). */
  | 'rebaseline_monitor'
  /** The monitor's next sweep watches it: the sweep reads the outbox for the events of the rules with this effect. */
  | 'enrol_monitor'
  /** Certificate orders waiting for a live connection are woken (one notification, on commit). */
  | 'wake_certificate_orders'
  /** The monitor stops watching it (its state deleted). */
  | 'forget_monitor'

export interface Rule {
  cause: Cause
  /** The places the cause changes; from any other place the cause does nothing. */
  from: readonly Place[]
  /** Where it goes; `'same'`: it stays where it was (the cause still writes, and may emit). */
  to: Place | 'same'
  /** The event written in the same transaction (a type of src/domain/events.ts), or none. */
  event: `connection.${string}` | null
  effects: readonly Effect[]
  /** What causes it, for people (docs/events.md). */
  when: string
}

const VERIFYING: readonly Place[] = ['pending', 'propagating']
const OPEN: readonly Place[] = ['pending', 'propagating', 'live', 'failed']

/** Every status change of a connection. A cause may have several rows, one per place it starts from. */
export const TRANSITIONS = [
  { cause: 'created', from: ['new'], to: 'pending', event: 'connection.created', effects: ['check_now'], when: 'A connection is opened (POST /connections, a bulk item, a provider account\'s connect, a purchase).' },
  { cause: 'records_written', from: ['pending'], to: 'propagating', event: 'connection.applied', effects: ['start_clock', 'check_now', 'clear_diagnosis'], when: 'A rail wrote the records (API credential, OAuth, Domain Connect).' },
  { cause: 'records_written', from: ['failed'], to: 'propagating', event: 'connection.applied', effects: ['start_clock', 'check_now', 'count_retry', 'clear_diagnosis'], when: 'A rail wrote the records of a failed connection: a fresh 24 hours.' },
  { cause: 'records_written', from: ['propagating'], to: 'same', event: 'connection.applied', effects: ['check_now', 'clear_diagnosis'], when: 'A rail wrote the records while they propagate: checked again now, on the same clock.' },
  { cause: 'records_written', from: ['live'], to: 'same', event: 'connection.applied', effects: ['clear_diagnosis'], when: 'A rail wrote the records of a live connection.' },
  { cause: 'records_rewritten', from: ['pending'], to: 'propagating', event: null, effects: ['start_clock', 'check_now', 'clear_diagnosis'], when: 'Records written again through a kept grant (`:reapply`, the monitor\'s repair) or a write that changed nothing; `:reapply` announces `connection.records.updated` once re-verified.' },
  { cause: 'records_rewritten', from: ['failed'], to: 'propagating', event: null, effects: ['start_clock', 'check_now', 'count_retry', 'clear_diagnosis'], when: 'The same, of a failed connection: a fresh 24 hours.' },
  { cause: 'records_rewritten', from: ['propagating'], to: 'same', event: null, effects: ['check_now', 'clear_diagnosis'], when: 'The same, while they propagate.' },
  { cause: 'records_rewritten', from: ['live'], to: 'same', event: null, effects: ['clear_diagnosis'], when: 'The same, of a live connection.' },
  { cause: 'said_added', from: ['pending'], to: 'propagating', event: null, effects: ['start_clock', 'check_now'], when: 'Someone says the records are in place (`:recheck`, the widget\'s "I have added them").' },
  { cause: 'revived', from: ['failed'], to: 'propagating', event: null, effects: ['start_clock', 'check_now', 'count_retry', 'clear_diagnosis'], when: 'A failed connection is retried (`:recheck`, or connecting the domain again): a fresh 24 hours.' },
  { cause: 'records_replaced', from: OPEN, to: 'pending', event: null, effects: ['clear_clock', 'check_now', 'clear_diagnosis'], when: 'Custom records replace the desired ones (PUT /connections/{id}/records): verification starts over.' },
  { cause: 'records_resolved', from: VERIFYING, to: 'live', event: 'connection.live', effects: ['stamp_live', 'clear_diagnosis', 'rebaseline_monitor', 'enrol_monitor', 'wake_certificate_orders'], when: 'Every desired record resolves at the zone\'s own nameservers.' },
  { cause: 'timed_out', from: ['propagating'], to: 'failed', event: 'connection.failed', effects: ['stamp_failed'], when: 'The records did not appear within 24 hours of propagating (`propagation_timeout`).' },
  { cause: 'disconnected', from: OPEN, to: 'closed', event: 'connection.disconnected', effects: ['forget_monitor'], when: 'The connection is disconnected (DELETE /connections/{id}, `:disconnect`).' },
] as const satisfies readonly Rule[]

/**
 * What each cause knows for its event's `data` (src/domain/status-changes.ts picks the fields the event
 * declares); every cause knows the connection's `records`. test/unit/transitions.test.ts fails when a
 * rule's event needs a field its cause does not know.
 */
export const KNOWS: Record<Cause, readonly string[]> = {
  created: ['records'],
  records_written: ['records', 'updated_objects', 'via'],
  records_rewritten: ['records', 'updated_objects', 'via'],
  said_added: ['records'],
  revived: ['records'],
  records_replaced: ['records'],
  records_resolved: ['records', 'records_propagated', 'records_non_propagated'],
  timed_out: ['records', 'records_propagated', 'records_non_propagated'],
  disconnected: ['records', 'removal'],
}

export interface Decision {
  rule: Rule
  from: Place
  /** Where it ends: `rule.to`, or `from` for a rule that keeps the place. */
  to: Place
  event: Rule['event']
  has(effect: Effect): boolean
}

/** What `cause` does to a connection at `from`; null when it does nothing there (its rows do not start from `from`). */
export function decide(cause: Cause, from: Place): Decision | null {
  const rule: Rule | undefined = TRANSITIONS.find((r) => r.cause === cause && (r.from as readonly Place[]).includes(from))
  if (!rule) return null
  return { rule, from, to: rule.to === 'same' ? from : rule.to, event: rule.event, has: (e) => rule.effects.includes(e) }
}

/**
 * The statuses `cause` changes (its rows' `from`, open statuses only): what a query that selects the
 * connections a cause may still move is given, so no query repeats the table's sets as literals.
 */
export function statusesFrom(cause: Cause): ConnectionStatus[] {
  const places = (TRANSITIONS as readonly Rule[]).filter((r) => r.cause === cause).flatMap((r) => r.from)
  return [...new Set(places)].filter((p): p is ConnectionStatus => p !== 'new' && p !== 'closed')
}

/** `decide` for a connection known to be open, with its status as the store writes it. */
export function decideOpen(cause: Cause, from: ConnectionStatus): (Decision & { status: ConnectionStatus }) | null {
  const d = decide(cause, from)
  if (!d) return null
  if (d.to === 'new' || d.to === 'closed') throw new Error(`transitions: ${cause} closes or opens; it has no status to store`)
  return { ...d, status: d.to }
}

/** A step of a path: a cause, or an event no status change emits (`connection.records_outdated`), as it is. */
export type Step = Cause | `${string}.${string}`

/**
 * The events a connection emits along `steps`, from not opened yet: what a test or a scenario expects
 * of a path. A cause that does nothing where the connection is emits nothing and moves it nowhere.
 */
export function eventsAlong(...steps: Step[]): string[] {
  const out: string[] = []
  let at: Place = 'new'
  for (const step of steps) {
    if (step.includes('.')) {
      out.push(step)
      continue
    }
    const d = decide(step as Cause, at)
    if (!d) continue
    if (d.event) out.push(d.event)
    at = d.to
  }
  return out
}

/** The events of the rules with `effect` (each once): the monitor sweep enrols from `enrol_monitor`'s. */
export function eventsWith(effect: Effect): string[] {
  const rules = (TRANSITIONS as readonly Rule[]).filter((r) => r.effects.includes(effect) && r.event)
  return [...new Set(rules.map((r) => r.event!))]
}

/** The table as docs/events.md shows it. */
export function transitionsMarkdown(): string {
  const lines = ['| cause | from | to | event | also | when |', '| --- | --- | --- | --- | --- | --- |']
  for (const r of TRANSITIONS as readonly Rule[]) {
    const from = r.from.map((p) => `\`${p}\``).join(', ')
    const to = r.to === 'same' ? 'stays' : `\`${r.to}\``
    const also = r.effects.map((e) => `\`${e}\``).join(', ')
    lines.push(`| \`${r.cause}\` | ${from} | ${to} | ${r.event ? `\`${r.event}\`` : 'none'} | ${also} | ${r.when.replace(/\|/g, '\\|')} |`)
  }
  return lines.join('\n')
}
