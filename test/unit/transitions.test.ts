// The transition table (src/domain/transitions.ts) is the one owner of a connection's status changes:
// each (cause, place) has at most one rule, every event it names is a connection event of the
// registry whose data its cause can fill, paths give their events from the table, and the queries
// store what a decision says (no status decided in SQL).
import { describe, test, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EVENTS, EVENT_TYPES } from '../../src/domain/events.ts'
import { decide, decideOpen, eventsAlong, eventsWith, KNOWS, TRANSITIONS, transitionsMarkdown, statusesFrom, type Rule } from '../../src/domain/transitions.ts'
import { eventData, statusWrite } from '../../src/domain/status-changes.ts'
import { afterVerification } from '../../src/domain/lifecycle.ts'

const RULES = TRANSITIONS as readonly Rule[]
const ROOT = join(import.meta.dir, '../..')

describe('the transition table', () => {
  test('a cause has at most one rule per place it starts from', () => {
    const seen = new Set<string>()
    const twice: string[] = []
    for (const r of RULES) {
      for (const f of r.from) {
        const key = `${r.cause} from ${f}`
        if (seen.has(key)) twice.push(key)
        seen.add(key)
      }
    }
    expect(twice).toEqual([])
  })

  test('every event it names is a connection event of the registry, and its cause knows every field the event requires', () => {
    const missing: string[] = []
    for (const r of RULES) {
      if (!r.event) continue
      expect(EVENT_TYPES as readonly string[]).toContain(r.event)
      const d = EVENTS[r.event as keyof typeof EVENTS]
      expect(d.subject).toBe('connection')
      for (const field of ((d.data as { required?: string[] }).required ?? [])) if (!KNOWS[r.cause].includes(field)) missing.push(`${r.cause} → ${r.event}: data.${field}`)
    }
    expect(missing).toEqual([])
  })

  test('the statuses a cause moves are read from its rows (the verification sweep selects by them), never a place outside the store', () => {
    expect(statusesFrom('records_resolved')).toEqual(['pending', 'propagating'])
    expect(statusesFrom('timed_out')).toEqual(['propagating'])
    expect(statusesFrom('created')).toEqual([])
  })

  test('a cause does nothing where it has no rule; a rule that keeps its place keeps it', () => {
    expect(decide('said_added', 'live')).toBeNull()
    expect(decide('timed_out', 'pending')).toBeNull()
    expect(decideOpen('records_written', 'live')).toMatchObject({ to: 'live', status: 'live', event: 'connection.applied' })
    expect(decideOpen('records_written', 'failed')).toMatchObject({ to: 'propagating', event: 'connection.applied' })
    expect(() => decideOpen('disconnected', 'live')).toThrow()
  })

  test('a decision is stored as written: the status it expects, the one it sets, and the columns its effects stamp', () => {
    expect(statusWrite(decideOpen('revived', 'failed')!)).toEqual({ from: 'failed', status: 'propagating', clock: 'start', checkNow: true, countRetry: true, clearDiagnosis: true })
    expect(statusWrite(decideOpen('records_replaced', 'live')!)).toEqual({ from: 'live', status: 'pending', clock: 'clear', checkNow: true, countRetry: false, clearDiagnosis: true })
    expect(statusWrite(decideOpen('records_written', 'live')!)).toEqual({ from: 'live', status: 'live', clock: 'keep', checkNow: false, countRetry: false, clearDiagnosis: true })
  })

  test('paths give their events from the table; an event no status change emits passes through', () => {
    const at = (cause: Parameters<typeof decide>[0], from: Parameters<typeof decide>[1]) => decide(cause, from)!.event
    const of = (...events: (string | null)[]) => events.filter((e): e is string => e !== null)
    expect(eventsAlong('created', 'said_added', 'records_resolved')).toEqual(of(at('created', 'new'), at('said_added', 'pending'), at('records_resolved', 'propagating')))
    expect(eventsAlong('created', 'records_written', 'timed_out')).toEqual(of(at('created', 'new'), at('records_written', 'pending'), at('timed_out', 'propagating')))
    // Off the table nothing happens: a live connection is neither said to be added nor timed out.
    expect(eventsAlong('created', 'records_resolved', 'said_added', 'timed_out', 'connection.records_outdated', 'disconnected')).toEqual(
      of(at('created', 'new'), at('records_resolved', 'pending'), 'connection.records_outdated', at('disconnected', 'live')),
    )
    expect(eventsAlong('created', 'timed_out')).toEqual(of(at('created', 'new')))
  })

  test('verification asks the table: going live carries the rule\'s effects, staying carries none', () => {
    const base = { created_at: new Date(0), propagating_since: new Date(0), error_code: null, error_message: null }
    const all = { outcome: 'all', records: [] } as never
    const none = { outcome: 'none', records: [] } as never
    const live = afterVerification({ ...base, status: 'pending' }, all, new Date(1000))
    expect(live).toMatchObject({ status: 'live', event: decide('records_resolved', 'pending')!.event, effects: decide('records_resolved', 'pending')!.rule.effects })
    expect(afterVerification({ ...base, status: 'live' }, all, new Date(1000))).toMatchObject({ status: 'live', event: null })
    expect(afterVerification({ ...base, status: 'propagating' }, none, new Date(2 * 86_400_000))).toMatchObject({ status: 'failed', event: decide('timed_out', 'propagating')!.event })
    expect(eventsWith('enrol_monitor')).toEqual(['connection.live'])
  })

  test('an event\'s data takes the fields it declares from what the cause knows', () => {
    const rec = [{ type: 'CNAME', host: 'shop', value: 'edge.example' }]
    expect(eventData('connection.applied', { records: rec, updated_objects: [], via: undefined, removal: {} })).toEqual({ updated_objects: [] })
    expect(eventData('connection.created', { records: rec, updated_objects: [] })).toEqual({ records: rec })
  })

  test('docs/events.md shows the table', () => {
    expect(readFileSync(join(ROOT, 'docs/events.md'), 'utf8')).toContain(transitionsMarkdown())
  })

  test('no query decides a status: no SQL `case` sets one, and the verification landing stamps what it is told', () => {
    const decides = /status\s*=\s*case|case when status/i
    for (const file of ['src/db/connections.ts', 'src/db/rail-writes.ts', 'src/db/verification.ts']) {
      expect({ file, decides: decides.test(readFileSync(join(ROOT, file), 'utf8')) }).toEqual({ file, decides: false })
    }
    expect(readFileSync(join(ROOT, 'src/db/verification.ts'), 'utf8')).not.toMatch(/event\s*=\s*'connection\./)
  })
})
