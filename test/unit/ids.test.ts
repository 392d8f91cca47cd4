// Event ids are monotonic within a process: minted in the same millisecond (or with the clock stepped
// back by less than a second) they still sort in minting order; a clock set back further starts over
// from its own time, so an id keeps saying when it was minted.
import { describe, test, expect } from 'bun:test'
import { b32next, idFloor, monotonicId, newId } from '../../src/ids.ts'

describe('monotonic ids', () => {
  test('ids minted in one millisecond sort in the order they were minted (newId does not promise it)', () => {
    const ms = Date.UTC(2026, 4, 4, 9, 30)
    const ids = Array.from({ length: 2000 }, () => monotonicId('tst', ms))
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id >= idFloor('tst', ms) && id < idFloor('tst', ms + 1)).toBe(true)
    const plain = Array.from({ length: 2000 }, () => newId('tsp', ms))
    expect([...plain].sort()).not.toEqual(plain)
  })

  test('a clock stepped back a little keeps the order; one set back by more than a second starts over from its time', () => {
    const ms = Date.UTC(2026, 4, 4, 10, 0)
    const a = monotonicId('tsb', ms)
    const b = monotonicId('tsb', ms - 500)
    expect(b > a).toBe(true)
    const c = monotonicId('tsb', ms - 60_000)
    expect(c >= idFloor('tsb', ms - 60_000) && c < idFloor('tsb', ms - 59_999)).toBe(true)
    expect(monotonicId('tsb', ms - 60_000) > c).toBe(true)
    // Another prefix has its own order.
    expect(monotonicId('tsc', ms - 120_000) < idFloor('tsc', ms)).toBe(true)
  })

  test('the next random part carries like a base32 number; past the largest, the next millisecond', () => {
    expect(b32next('000000000000000z')).toBe('0000000000000010')
    expect(b32next('00000000000y0zzz')).toBe('00000000000y1000')
    expect(b32next('zzzzzzzzzzzzzzzy')).toBe('zzzzzzzzzzzzzzzz')
    expect(b32next('zzzzzzzzzzzzzzzz')).toBeNull()
  })
})
