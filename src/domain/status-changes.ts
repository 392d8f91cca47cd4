// Carrying out the transition table (src/domain/transitions.ts): a status change is decided there,
// stored by a query of src/db/ that writes what it is told (`StatusWrite`, guarded on the status it was
// decided from), and its event is written in the same transaction with the data the cause knows.
import type { TObject } from '@sinclair/typebox'
import type { Sql } from '../db/sql.ts'
import type { ConnectionRow, ConnectionStatus, StatusWrite } from '../db/connections.ts'
import { EVENTS, emitForConnection, recordRefs, type ConnectionEventType } from './events.ts'
import { decideOpen, TRANSITIONS, type Cause } from './transitions.ts'

// Every event the table names is a connection event of the registry (a typo fails the typecheck).
void (TRANSITIONS satisfies readonly { event: ConnectionEventType | null }[])

export type StatusDecision = NonNullable<ReturnType<typeof decideOpen>>

/** What a query stores of a decision. */
export function statusWrite(d: StatusDecision): StatusWrite {
  return {
    from: d.from as ConnectionStatus,
    status: d.status,
    clock: d.has('start_clock') ? 'start' : d.has('clear_clock') ? 'clear' : 'keep',
    checkNow: d.has('check_now'),
    countRetry: d.has('count_retry'),
    clearDiagnosis: d.has('clear_diagnosis'),
  }
}

/**
 * What a cause knows when it changes a status, for its event's `data`: each event takes the fields its
 * declaration (src/domain/events.ts) names, so a rule can be given an event without code here.
 */
export type Facts = Record<string, unknown>

/** The `data` of `type` from `facts`: the fields its schema declares, those the cause knows. */
export function eventData(type: ConnectionEventType, facts: Facts): Record<string, unknown> {
  const fields = Object.keys((EVENTS[type].data as TObject).properties)
  return Object.fromEntries(fields.filter((k) => facts[k] !== undefined).map((k) => [k, facts[k]]))
}

/** Writes the decision's event for `row` (nothing for a rule without one); every cause knows the row's `records`. */
export async function emitDecided(sql: Sql, row: ConnectionRow, event: string | null, now: Date, facts: Facts): Promise<void> {
  if (!event) return
  const type = event as ConnectionEventType
  await emitForConnection(sql, row, type, now, eventData(type, { records: recordRefs(row.desired_records), ...facts }) as never)
}

/**
 * Carries out `cause` on an open connection last seen in `from`: asks the table, has `store` write the
 * decision (with whatever else the change writes, guarded on `from`) and emits the rule's event. Answers
 * the stored row; `c` itself when the cause does nothing there; undefined when the row had moved on
 * (another change won, or it was closed).
 */
export async function changeStatus<R extends ConnectionRow>(
  sql: Sql,
  c: R,
  cause: Cause,
  now: Date,
  store: (w: StatusWrite) => Promise<R | undefined>,
  facts: Facts = {},
  from: ConnectionStatus = c.status,
): Promise<R | undefined> {
  const d = decideOpen(cause, from)
  if (!d) return c
  const row = await store(statusWrite(d))
  if (row) await emitDecided(sql, row, d.event, now, facts)
  return row
}
