// The record of benchmark figures (bench/lib/record.ts): docs/benchmarks.md is what the record renders
// (no figure typed in by hand), and bench:check's judgement names a figure that fell more than 10 %
// below the best earlier run of the same bench, figure, machine and settings, and nothing else.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { DOC_PATH, judge, readRecord, type Entry } from '../../bench/lib/record.ts'
import { renderDoc } from '../../bench/lib/benchmarks-doc.ts'

const run = (over: Partial<Entry> & { figures: Record<string, number> }): Entry => ({
  at: '2026-12-01T10:00:00.000Z',
  commit: 'abc1234567',
  machine: 'AMD EPYC, 2 cores, 24 GiB',
  bench: 'auth-read',
  settings: 'tool=wrk -t1 seconds=8 rounds=2',
  detail: '',
  ...over,
})

describe('the benchmark record', () => {
  test('docs/benchmarks.md is the record rendered (regenerate with npm run bench:docs)', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(renderDoc(readRecord()))
  })

  test('every recorded run names its commit, machine and figures', () => {
    for (const e of readRecord()) {
      expect(e.commit).toMatch(/^[0-9a-f]{7,40}\+?$/)
      expect(e.machine.length).toBeGreaterThan(0)
      expect(Object.keys(e.figures).length).toBeGreaterThan(0)
      for (const v of Object.values(e.figures)) expect(Number.isFinite(v)).toBe(true)
    }
  })

  test('a figure more than 10 % below the best earlier run on the machine is named; within 10 % it is not', () => {
    const earlier = [run({ figures: { ratio: 0.8 }, commit: 'best000000' }), run({ figures: { ratio: 0.7 } })]
    const slow = judge(earlier, run({ figures: { ratio: 0.7 }, commit: 'slow000000' }))
    expect(slow).toEqual([expect.objectContaining({ bench: 'auth-read', figure: 'ratio', value: 0.7, regressed: true, best: expect.objectContaining({ value: 0.8, commit: 'best000000' }) })])
    expect(judge(earlier, run({ figures: { ratio: 0.73 } }))[0]!.regressed).toBe(false)
    expect(judge(earlier, run({ figures: { ratio: 0.9 } }))[0]!.regressed).toBe(false)
  })

  test('runs on another machine or with other settings are not compared; a first run has nothing to fall from', () => {
    const elsewhere = [run({ figures: { ratio: 0.9 }, machine: 'a quieter machine' }), run({ figures: { ratio: 0.9 }, settings: 'tool=wrk -t1 seconds=1 rounds=1' })]
    const [v] = judge(elsewhere, run({ figures: { ratio: 0.5 } }))
    expect(v).toMatchObject({ regressed: false, best: undefined })
  })

  test('a freak run does not set the bar: the best is the best commit median, and the fresh figure is the median of its runs', () => {
    // Webhooks once recorded 0.60, 1.10 (a quiet minute) and 0.70 on one commit: its median is 0.70, not 1.10.
    const earlier = [
      run({ figures: { ratio: 0.6 }, commit: 'freak00000' }),
      run({ figures: { ratio: 1.104 }, commit: 'freak00000' }),
      run({ figures: { ratio: 0.7 }, commit: 'freak00000' }),
      run({ figures: { ratio: 0.5 }, commit: 'other00000' }),
    ]
    const [v] = judge(earlier, [run({ figures: { ratio: 0.66 } }), run({ figures: { ratio: 0.3 } }), run({ figures: { ratio: 0.68 } })])
    expect(v).toMatchObject({ value: 0.66, runs: [0.66, 0.3, 0.68], regressed: false, best: expect.objectContaining({ value: 0.7, runs: 3, commit: 'freak00000' }) })
    // Against the freak itself, all three fresh runs would have been named.
    expect(judge([run({ figures: { ratio: 1.104 } })], run({ figures: { ratio: 0.68 } }))[0]!.regressed).toBe(true)
    // A fresh median below the bar is named, whatever one good run among them says.
    const [slow] = judge(earlier, [run({ figures: { ratio: 0.9 } }), run({ figures: { ratio: 0.55 } }), run({ figures: { ratio: 0.6 } })])
    expect(slow).toMatchObject({ value: 0.6, regressed: true, best: expect.objectContaining({ value: 0.7 }) })
  })

  test('a fetch-loop run is never compared with a wrk run', () => {
    const wrk = [run({ figures: { ratio: 0.9 }, settings: 'tool=wrk -t1 seconds=8 rounds=2' })]
    const [v] = judge(wrk, run({ figures: { ratio: 0.5 }, settings: 'tool=fetch loop seconds=8 rounds=2' }))
    expect(v).toMatchObject({ regressed: false, best: undefined })
  })

  test('a growth factor regresses upwards', () => {
    const earlier = [run({ bench: 'scale', figures: { 'worst p99 growth': 1.1 } })]
    expect(judge(earlier, run({ bench: 'scale', figures: { 'worst p99 growth': 1.3 } }))[0]!.regressed).toBe(true)
    expect(judge(earlier, run({ bench: 'scale', figures: { 'worst p99 growth': 1.0 } }))[0]!.regressed).toBe(false)
  })
})
