// Drift rules without a network: verdicts against a scripted resolver, the state after a check
// (which alerts fire, when attention is asked), the attention rank and the hourly slots.
import { describe, test, expect } from 'bun:test'
import type { Dns, Lookup } from '../../src/adapters/dns.ts'
import { afterCheck, compareBaseline, EVERY_MS, MANUAL_DETAIL, MIN_GAP_MS, NO_RAIL_DETAIL, rankOf, scheduleOf, slotAtOrBefore, slotOffsetMs, slotsBetween } from '../../src/domain/monitor.ts'
import type { MonitorState } from '../../src/db/monitor.ts'

/** A resolver answering from a table `name TYPE` → lookup; anything else is NXDOMAIN. */
function dnsOf(table: Record<string, Lookup>): Dns {
  return { lookup: async (name, type) => table[`${name} ${type}`] ?? { status: 'nxdomain' } }
}
const ok = (...values: string[]): Lookup => ({ status: 'ok', values })
const EDGE = 'edge.portico.test'

describe('compareBaseline', () => {
  test('an answering record is ok; an absent one is record_missing with expected and observed', async () => {
    const dns = dnsOf({ [`shop.example.com CNAME`]: ok(EDGE) })
    const good = await compareBaseline(dns, 'example.com', [{ type: 'CNAME', host: 'shop', value: EDGE }])
    expect(good).toEqual({ result: 'ok', drift: [], records: [{ type: 'CNAME', host: 'shop', value: EDGE, observed: [EDGE], status: 'ok' }] })
    const gone = await compareBaseline(dns, 'example.com', [{ type: 'CNAME', host: 'blog', value: EDGE }])
    expect(gone.result).toBe('drift')
    expect(gone.drift).toEqual([{ subdomain: 'blog', type: 'CNAME', verdict: 'record_missing', expected: [EDGE], observed: [] }])
  })

  test('a repointed CNAME is record_changed; an extra address beside ours is extra_value; other TXT values are fine', async () => {
    const dns = dnsOf({
      'shop.example.com CNAME': ok('elsewhere.example.net'),
      'example.com A': ok('192.0.2.10', '198.51.100.7'),
      '_portico-challenge.example.com TXT': ok('portico-verify=abc', 'google-site-verification=x'),
    })
    const r = await compareBaseline(dns, 'example.com', [
      { type: 'CNAME', host: 'shop', value: `${EDGE}.` },
      { type: 'A', host: '@', value: '192.0.2.10' },
      { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=abc' },
    ])
    expect(r.drift.map((d) => [d.subdomain, d.verdict])).toEqual([
      ['shop', 'record_changed'],
      ['@', 'extra_value'],
    ])
    expect(r.records.map((c) => c.status)).toEqual(['record_changed', 'extra_value', 'ok'])
  })

  test('one of two expected addresses gone is record_missing; a flattened apex follows its target', async () => {
    const dns = dnsOf({ 'example.com A': ok('192.0.2.10'), 'example.org A': ok('203.0.113.5'), [`${EDGE} A`]: ok('203.0.113.5') })
    const partial = await compareBaseline(dns, 'example.com', [
      { type: 'A', host: '@', value: '192.0.2.10' },
      { type: 'A', host: '@', value: '192.0.2.11' },
    ])
    expect(partial.drift[0]).toMatchObject({ verdict: 'record_missing', expected: ['192.0.2.10', '192.0.2.11'], observed: ['192.0.2.10'] })
    expect(partial.records.map((c) => c.status)).toEqual(['ok', 'record_missing'])
    expect((await compareBaseline(dns, 'example.org', [{ type: 'CNAME', host: '@', value: EDGE }])).result).toBe('ok')
    expect((await compareBaseline(dns, 'example.com', [{ type: 'CNAME', host: '@', value: EDGE }])).drift[0]!.verdict).toBe('record_changed')
  })

  test('a resolver failure is inconclusive, never a verdict', async () => {
    const dns = dnsOf({ 'shop.example.com CNAME': { status: 'error', error: 'timeout' } })
    const r = await compareBaseline(dns, 'example.com', [{ type: 'CNAME', host: 'shop', value: EDGE }])
    expect(r).toMatchObject({ result: 'inconclusive', error: 'timeout', drift: [] })
    expect(r.records[0]!.status).toBe('inconclusive')
  })
})

const clean: MonitorState = { result: 'ok', drift: [], drift_since: null, attention: null, action: null, repair_detail: null, error: null }
const missing = { subdomain: 'shop', type: 'CNAME', verdict: 'record_missing' as const, expected: [EDGE], observed: [] }
const driftCmp = { result: 'drift' as const, drift: [missing], records: [] }
const okCmp = { result: 'ok' as const, drift: [], records: [] }
const t0 = new Date('2026-01-01T10:00:00Z')
const t1 = new Date('2026-01-01T11:00:00Z')

describe('afterCheck', () => {
  test('drift alerts once, keeps drift_since, asks a person to act; restoring alerts restored', () => {
    const first = afterCheck(clean, driftCmp, t0, false, false, null)
    expect(first.missing).toEqual([missing])
    expect(first.state).toMatchObject({ result: 'drift', drift_since: t0, attention: 'action_required', repair_detail: MANUAL_DETAIL })
    const again = afterCheck(first.state, driftCmp, t1, false, false, null)
    expect(again.missing).toEqual([])
    expect(again.state.drift_since).toEqual(t0)
    const back = afterCheck(again.state, okCmp, t1, false, false, null)
    expect(back.restored).toEqual([missing])
    expect(back.state).toMatchObject({ result: 'ok', drift_since: null, attention: null })
    expect(back.history.map((h) => h.kind)).toEqual(['restored'])
  })

  test('inconclusive keeps the known drift and raises nothing', () => {
    const drifted = afterCheck(clean, driftCmp, t0, false, false, null).state
    const t = afterCheck(drifted, { result: 'inconclusive', drift: [], records: [], error: 'timeout' }, t1, false, false, null)
    expect(t.missing).toEqual([])
    expect(t.restored).toEqual([])
    expect(t.state).toMatchObject({ result: 'inconclusive', drift: [missing], attention: 'action_required', error: 'timeout' })
  })

  test('a managed connection without a rail needs a person; a fixed one records auto_fixed and alerts nothing', () => {
    expect(afterCheck(clean, driftCmp, t0, true, false, null).state.repair_detail).toBe(NO_RAIL_DETAIL)
    const fixed = afterCheck(clean, okCmp, t0, true, true, { fixed: true, detail: 're-applied' })
    expect(fixed.state).toMatchObject({ result: 'ok', attention: null, action: { kind: 'auto_fixed', at: t0.toISOString(), description: 're-applied' } })
    expect(fixed.missing).toEqual([])
    expect(fixed.history.map((h) => h.kind)).toEqual(['auto_fixed'])
    const failed = afterCheck(clean, driftCmp, t0, true, true, { fixed: false, detail: 'grant revoked' })
    expect(failed.state).toMatchObject({ attention: 'action_required', repair_detail: 'grant revoked' })
  })

  test('rank puts action required first, then drift, inconclusive, the rest', () => {
    expect([rankOf({ result: 'drift', attention: 'action_required' }), rankOf({ result: 'drift', attention: null }), rankOf({ result: 'inconclusive', attention: null }), rankOf({ result: 'ok', attention: null }), rankOf({ result: null, attention: null })]).toEqual([0, 1, 2, 3, 3])
  })
})

describe('hourly slots', () => {
  test('each connection keeps its offset within the hour; the next slot is within the coming hour', () => {
    const now = new Date('2026-01-01T10:17:00Z')
    // The first instant after `t` at the connection's slot, as the sweep and the listing compute it.
    const nextSlot = (id: string, t: Date) => new Date(slotAtOrBefore(slotOffsetMs(id), t.getTime()) + EVERY_MS)
    for (const id of ['con_a', 'con_b', 'con_0123456789abcdef']) {
      const next = nextSlot(id, now)
      expect(next.getTime()).toBeGreaterThan(now.getTime())
      expect(next.getTime() - now.getTime()).toBeLessThanOrEqual(EVERY_MS)
      expect(next.getTime() % EVERY_MS).toBe(slotOffsetMs(id))
      expect(nextSlot(id, next).getTime() - next.getTime()).toBe(EVERY_MS)
    }
  })

  test('offsets of many ids spread evenly over the hour', () => {
    const perMinute = new Array(60).fill(0)
    for (let i = 0; i < 60_000; i++) perMinute[Math.floor(slotOffsetMs(`con_${i.toString(36)}x`) / 60_000)]++
    expect(Math.min(...perMinute)).toBeGreaterThan(850)
    expect(Math.max(...perMinute)).toBeLessThan(1150)
  })
})

describe('schedule from the last written check and the sweep watermark', () => {
  const id = 'con_schedule'
  const offset = slotOffsetMs(id)
  const hour0 = Date.parse('2026-01-01T10:00:00Z')
  const slot = (h: number) => hour0 + h * EVERY_MS + offset

  test('slotsBetween counts the slot in (from, to]', () => {
    expect(slotsBetween(offset, slot(0) - 1, slot(0))).toBe(1)
    expect(slotsBetween(offset, slot(0), slot(1) - 1)).toBe(0)
    expect(slotsBetween(offset, slot(0) - 1, slot(3))).toBe(4)
    expect(slotsBetween(offset, slot(2), slot(1))).toBe(0)
  })

  test('never checked: no count, due at enrolment', () => {
    const enrolled = new Date(hour0)
    expect(scheduleOf(offset, 0, null, new Date(slot(5)), enrolled)).toEqual({ checked: 0, last_checked_at: null, next_check_at: enrolled })
  })

  test('each slot the watermark passed counts as a check, except within MIN_GAP_MS of the written one', () => {
    const written = new Date(slot(0) - MIN_GAP_MS / 2) // the slot of hour 0 is too close to count
    const at = (w: number) => scheduleOf(offset, 1, written, new Date(w), new Date(hour0))
    expect(at(slot(0))).toEqual({ checked: 1, last_checked_at: written, next_check_at: new Date(slot(1)) })
    expect(at(slot(1) - 1)).toEqual({ checked: 1, last_checked_at: written, next_check_at: new Date(slot(1)) })
    expect(at(slot(1))).toEqual({ checked: 2, last_checked_at: new Date(slot(1)), next_check_at: new Date(slot(2)) })
    expect(at(slot(3) + 1000)).toEqual({ checked: 4, last_checked_at: new Date(slot(3)), next_check_at: new Date(slot(4)) })
  })

  test('a watermark behind the written check changes nothing', () => {
    const written = new Date(slot(2) + 1000)
    expect(scheduleOf(offset, 7, written, new Date(slot(1)), new Date(hour0))).toEqual({ checked: 7, last_checked_at: written, next_check_at: new Date(slot(3)) })
  })
})
