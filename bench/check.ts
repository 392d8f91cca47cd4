// npm run bench:check: reruns the ratio benches, each BENCH_CHECK_RUNS times (3 unless given) in its own
// process (which appends its figures to bench/record.jsonl), and judges the median of those runs against
// the best per-commit median recorded earlier on the same machine with the same settings (the load tool
// is one of them): more than 10 % worse is named as a regression, and the check exits 1. Medians on
// both sides, so one freak run (a quiet minute, a stalled one) neither sets the bar nor trips it.
// `npm run bench:check -- auth-read webhooks` picks benches; BENCH_SCALE_SIZES sets the sizes scale
// runs (10k unless given).
import { join } from 'node:path'
import { judge, readRecord, type Verdict } from './lib/record.ts'

const ALL = ['auth-read', 'webhooks', 'verify', 'monitor', 'scale']
const picked = process.argv.slice(2)
const unknown = picked.filter((b) => !ALL.includes(b))
if (unknown.length) {
  console.error(`bench:check: no ratio bench named ${unknown.join(', ')} (known: ${ALL.join(', ')})`)
  process.exit(2)
}
const benches = picked.length ? picked : ALL
const verdicts: Verdict[] = []
const failed: string[] = []
const RUNS = Math.max(1, Number(process.env.BENCH_CHECK_RUNS ?? 3))
for (const bench of benches) {
  const before = readRecord().length
  const env = { ...process.env, BENCH_RECORD: '1', ...(bench === 'scale' ? { BENCH_SCALE_SIZES: process.env.BENCH_SCALE_SIZES ?? '10k' } : {}) }
  const codes: number[] = []
  for (let i = 1; i <= RUNS; i++) {
    console.log(`\n== bench:check: bun bench/${bench}.ts (run ${i} of ${RUNS})`)
    codes.push(await Bun.spawn([process.execPath, join(import.meta.dir, `${bench}.ts`)], { stdout: 'inherit', stderr: 'inherit', env }).exited)
  }
  const all = readRecord()
  const fresh = all.slice(before).filter((e) => e.bench === bench)
  const code = codes.find((c) => c !== 0) ?? 0
  if (code !== 0 || fresh.length === 0) {
    failed.push(`${bench} (exit ${code}${fresh.length ? '' : ', nothing recorded'})`)
    continue
  }
  // Runs of one check share their settings; should a run differ (a tool gone meanwhile), each kind is judged apart.
  for (const settings of new Set(fresh.map((e) => e.settings))) verdicts.push(...judge(all.slice(0, before), fresh.filter((e) => e.settings === settings)))
}

console.log('\nbench:check: the median of the fresh runs against the best per-commit median on this machine with the same settings and load tool (10 % allowed)')
for (const v of verdicts) {
  const best = v.best ? `best ${v.best.value} (${v.best.commit}, ${v.best.at.slice(0, 10)}, median of ${v.best.runs} run${v.best.runs === 1 ? '' : 's'})` : 'first run with these settings on this machine'
  console.log(`  ${v.regressed ? 'REGRESSION' : 'ok        '} ${v.bench} ${v.figure}: ${v.value}; ${best}; runs ${v.runs.join(', ')}`)
}
const regressed = verdicts.filter((v) => v.regressed)
if (failed.length) console.log(`bench:check: did not run: ${failed.join(', ')}`)
if (regressed.length) console.log(`bench:check: ${regressed.length} regression${regressed.length === 1 ? '' : 's'}: ${regressed.map((v) => `${v.bench} ${v.figure} ${v.value} (best ${v.best!.value} at ${v.best!.commit})`).join('; ')}`)
else if (!failed.length) console.log(`bench:check: no regression (${verdicts.length} figures)`)
process.exit(regressed.length || failed.length ? 1 : 0)
