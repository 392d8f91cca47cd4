// Pre-validation's rules, without I/O: the stage table, what a verification means before the routing
// records are asked for, the first step's records, and wildcard names.
import { describe, test, expect } from 'bun:test'
import { afterVerification, type LifecycleState } from '../../src/domain/lifecycle.ts'
import { firstStepRecords, nextStage, STAGES, stepsOf, type Stage } from '../../src/domain/prevalidation.ts'
import { parseConnectable } from '../../src/domain/hostnames.ts'
import type { Verification } from '../../src/domain/verify.ts'
import { DAY } from '../../src/clock.ts'

const now = new Date('2026-12-06T12:00:00Z')
const all: Verification = { outcome: 'all', records: [] }
const none: Verification = { outcome: 'none', records: [] }
const state = (over: Partial<LifecycleState>): LifecycleState => ({ status: 'propagating', created_at: now, propagating_since: now, error_code: null, error_message: null, ...over })

describe('the stage table', () => {
  test('moves forward one stage per trigger, and to failed from any stage before complete', () => {
    const table = STAGES.map((s) => [s, nextStage(s, 'records_proven'), nextStage(s, 'certificate_on_edge'), nextStage(s, 'live'), nextStage(s, 'failed')])
    expect(table).toEqual([
      ['awaiting_records', 'issuing', null, null, 'failed'],
      ['issuing', null, 'awaiting_routing', null, 'failed'],
      ['awaiting_routing', null, null, 'complete', 'failed'],
      ['complete', null, null, null, null],
      ['failed', null, null, null, null],
    ])
    expect(nextStage(null, 'live')).toBeNull()
  })
})

describe('verification before the routing records are asked for', () => {
  test('every record resolving proves ownership: not live, no event, checks stop', () => {
    for (const stage of ['awaiting_records', 'issuing'] as Stage[]) {
      for (const status of ['pending', 'propagating'] as const) {
        expect(afterVerification(state({ status, validation_stage: stage }), all, now)).toEqual({ status, next_check_at: null, error_code: null, error_message: null, event: null, proven: true })
      }
    }
  })

  test('once routing is asked for, and on the usual path, every record resolving is live', () => {
    for (const stage of ['awaiting_routing', null]) expect(afterVerification(state({ validation_stage: stage }), all, now)).toMatchObject({ status: 'live', event: 'connection.live' })
  })

  test('records that never appear fail the connection after 24 hours, whatever the stage', () => {
    const t = afterVerification(state({ validation_stage: 'awaiting_records', propagating_since: new Date(now.getTime() - DAY) }), none, now)
    expect(t).toMatchObject({ status: 'failed', event: 'connection.failed', error_code: 'propagation_timeout' })
  })
})

describe('the first step', () => {
  test('an ownership TXT and the delegation, below the name; the apex redirecting to www delegates www too', () => {
    const sub = firstStepRecords(parseConnectable('shop.example.com')!, 'tok', 'dabc', 'dcv.portico.example', false)
    expect(sub.map((r) => [r.type, r.host, r.value, r.purpose])).toEqual([
      ['TXT', '_portico-challenge.shop', 'portico-verify=tok', 'ownership'],
      ['CNAME', '_acme-challenge.shop', 'dabc.dcv.portico.example', 'dcv_delegation'],
    ])
    const apex = firstStepRecords(parseConnectable('example.com')!, 'tok', 'dabc', 'dcv.portico.example', true)
    expect(apex.map((r) => `${r.type} ${r.host} ${r.value}`)).toEqual(['TXT _portico-challenge portico-verify=tok', 'CNAME _acme-challenge dabc.dcv.portico.example', 'CNAME _acme-challenge.www dabc-www.dcv.portico.example'])
  })

  test('a wildcard delegates the name below the star', () => {
    const w = parseConnectable('*.Customer.Example.com')!
    expect(w).toMatchObject({ domain: '*.customer.example.com', apex: 'example.com', subdomain: '*.customer', isApex: false, wildcard: true })
    expect(firstStepRecords(w, 'tok', 'dabc', 'dcv.portico.example', false).map((r) => r.host)).toEqual(['_portico-challenge.customer', '_acme-challenge.customer'])
    expect(parseConnectable('*.example.com')).toMatchObject({ domain: '*.example.com', subdomain: '*' })
    expect(parseConnectable('*.*.example.com')).toBeNull()
    expect(parseConnectable('shop.*.example.com')).toBeNull()
  })

  test('the steps: prove first, route asked only from awaiting_routing', () => {
    const prove = [{ type: 'TXT' as const, host: '_portico-challenge.shop', value: 'v', purpose: 'ownership' }, { type: 'CNAME' as const, host: '_acme-challenge.shop', value: 'd.z', purpose: 'dcv_delegation' }]
    const route = [{ type: 'CNAME' as const, host: 'shop', value: 'edge', purpose: 'routing' }]
    const before = stepsOf({ validation: 'before_cutover', validation_stage: 'awaiting_records', desired_records: prove, held_records: route })!
    expect(before.map((s) => [s.step, s.done, s.asked ?? null, s.records.length])).toEqual([['prove', false, null, 2], ['route', false, false, 1]])
    const after = stepsOf({ validation: 'before_cutover', validation_stage: 'awaiting_routing', desired_records: [...prove, ...route], held_records: null })!
    expect(after.map((s) => [s.step, s.done, s.asked ?? null, s.records.map((r) => r.host)])).toEqual([['prove', true, null, ['_portico-challenge.shop', '_acme-challenge.shop']], ['route', false, true, ['shop']]])
    expect(stepsOf({ validation: 'http', validation_stage: null, desired_records: route, held_records: null })).toBeNull()
  })
})
