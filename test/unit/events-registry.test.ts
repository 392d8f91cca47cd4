// The event registry is the contract's catalogue, each type with a named envelope and payload; one
// field has one shape across events; events stored before the shapes were settled read back in today's
// shape. The published list (test/snapshots/event-types.json, the API contract, section 6 and Portico's own
// beside it) is written from the registry by `npm run generate` and only grows: a type removed or renamed
// in the registry fails here, and generate refuses to drop it (scripts/event-types.ts).
import { describe, test, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { currentShape, EVENT_SCHEMAS, EVENT_TYPES, EVENTS, exampleEnvelope, assertEventValid } from '../../src/domain/events.ts'
import { nameOf } from '../../src/domain/named.ts'
import { eventTypesFile, parsePublished, PUBLISHED_EVENT_TYPES, withdrawnTypes } from '../../scripts/event-types.ts'

const PUBLISHED = parsePublished(readFileSync(join(import.meta.dir, '../..', PUBLISHED_EVENT_TYPES), 'utf8'))!

describe('the event registry', () => {
  test('declares every published type: none removed or renamed, and a new one published (npm run generate)', () => {
    // A type in the list and not in the registry was taken back from receivers; one in the registry and
    // not in the list has not been generated and committed yet.
    expect({ withdrawn: withdrawnTypes(PUBLISHED, EVENT_TYPES), unpublished: withdrawnTypes(EVENT_TYPES, PUBLISHED) }).toEqual({ withdrawn: [], unpublished: [] })
    expect(EVENT_TYPES).toEqual(PUBLISHED as never)
    // the API contract, section 6's own types are there, in its order (Portico's own may stand between them).
    const contract = [
      'connection.created', 'connection.applied', 'connection.live', 'connection.failed', 'connection.records.updated',
      'connection.reapply.failed', 'connection.disconnected', 'connection.records_outdated',
    ]
    expect(PUBLISHED.filter((t) => contract.includes(t))).toEqual(contract)
  })

  test('the published list only grows: generate refuses to drop a type, naming it, and writes a new one', () => {
    const renamed = EVENT_TYPES.map((t) => (t === 'connection.live' ? 'connection.is_live' : t))
    expect(() => eventTypesFile(PUBLISHED, renamed)).toThrow('published event types no longer declared in src/domain/events.ts: connection.live.')
    expect(() => eventTypesFile(PUBLISHED, EVENT_TYPES.filter((t) => t !== 'power_status'))).toThrow(': power_status.')
    expect(parsePublished(eventTypesFile(PUBLISHED, [...EVENT_TYPES, 'connection.newly_declared']))).toEqual([...PUBLISHED, 'connection.newly_declared'])
    expect(eventTypesFile(PUBLISHED, EVENT_TYPES)).toBe(readFileSync(join(import.meta.dir, '../..', PUBLISHED_EVENT_TYPES), 'utf8'))
  })

  test('each type has a named envelope and payload', () => {
    for (const t of EVENT_TYPES) {
      expect(nameOf(EVENT_SCHEMAS[t])).toMatch(/Event$/)
      expect(nameOf(EVENTS[t].data)).toMatch(/Data$/)
    }
  })

  test('one shape per field: a data field named alike has the same schema on every event that carries it', () => {
    const seen = new Map<string, { type: string; schema: string }>()
    const clash: string[] = []
    for (const t of EVENT_TYPES) {
      for (const [field, schema] of Object.entries((EVENTS[t].data as { properties: Record<string, unknown> }).properties)) {
        const text = JSON.stringify({ ...(schema as object), description: undefined })
        const before = seen.get(field)
        if (before && before.schema !== text) clash.push(`data.${field}: ${before.type} and ${t} differ`)
        if (!before) seen.set(field, { type: t, schema: text })
      }
    }
    expect(clash).toEqual([])
  })

  test('the envelope uses the contract\'s field names, and refuses a field it does not declare', () => {
    const live = exampleEnvelope('connection.live')
    for (const f of ['id', 'type', 'user_id', 'domain', 'subdomain', 'provider', 'setup_type', 'propagation_status', 'data', 'created_at']) expect(Object.keys(live)).toContain(f)
    expect(Value.Check(EVENT_SCHEMAS['connection.live'], { ...live, stray: 1 })).toBe(false)
    expect(() => assertEventValid({ ...live, data: { records: [] } })).toThrow('connection.live')
  })

  test('events stored before the shapes were settled read back in today\'s shape', () => {
    const base = { id: 'evt_01jtd7q6e1r3t5y7u9i2o4p6a8', application_id: 'app_1', connection_id: 'con_1', domain: 'shop.example.com', subdomain: 'shop', setup_type: 'api', created_at: '2026-05-04T09:30:00.000Z' }
    const removal = { choice: 'remove', outcome: 'removed', via: 'cloudflare', removed: [], restored: [], left_in_place: [], failed: [], manual_steps: [] }
    const disconnected = currentShape({ ...base, type: 'connection.disconnected', data: { records: removal } })
    assertEventValid(disconnected)
    expect((disconnected.data as Record<string, unknown>).removal).toEqual(removal)
    const drift = { subdomain: 'shop', type: 'CNAME', verdict: 'record_missing', expected: ['edge.portico.example'], observed: [] }
    const missing = currentShape({ ...base, type: 'domain.record_missing', data: { records: [drift], drift: [drift] } })
    assertEventValid(missing)
    expect(missing.data).toEqual({ records: [{ type: 'CNAME', host: 'shop', value: 'edge.portico.example' }], drift: [drift] })
    const applied = currentShape({ ...base, type: 'connection.applied', propagation_status: 'pending', data: { updated_objects: [{ type: 'CNAME', name: 'shop.example.com', value: 'edge.portico.example' }] } })
    assertEventValid(applied)
    expect((applied.data as { updated_objects: unknown[] }).updated_objects).toEqual([{ type: 'CNAME', host: 'shop', name: 'shop.example.com', value: 'edge.portico.example' }])
    // Today's events pass through as they are.
    const today = exampleEnvelope('connection.disconnected')
    expect(currentShape(today)).toBe(today)
  })
})
