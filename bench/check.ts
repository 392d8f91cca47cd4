// npm run bench:check: reruns the ratio benches, each in its own process (which appends its figures to
// bench/record.jsonl), and judges every fresh figure against the best recorded earlier on the same
// machine with the same settings: more than 10 % worse is named as a regression, and the check exits
// 1. `npm run bench:check -- auth-read webhooks` picks benches; BENCH_SCALE_SIZES sets the sizes scale
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
for (const bench of benches) {
  const before = readRecord().length
  console.log(`\n== bench:check: bun bench/${bench}.ts`)
  const env = { ...process.env, BENCH_RECORD: '1', ...(bench === 'scale' ? { BENCH_SCALE_SIZES: process.env.BENCH_SCALE_SIZES ?? '10k' } : {}) }
  const code = await Bun.spawn([process.execPath, join(import.meta.dir, `${bench}.ts`)], { stdout: 'inherit', stderr: 'inherit', env }).exited
  const all = readRecord()
  const fresh = all.slice(before).filter((e) => e.bench === bench)
  if (code !== 0 || fresh.length === 0) {
    failed.push(`${bench} (exit ${code}${fresh.length ? '' : ', nothing recorded'})`)
    continue
  }
  for (const f of fresh) verdicts.push(...judge(all.slice(0, all.indexOf(f)), f))
}

console.log('\nbench:check: each figure against the best recorded on this machine with the same settings (10 % allowed)')
for (const v of verdicts) {
  const best = v.best ? `best ${v.best.value} (${v.best.commit}, ${v.best.at.slice(0, 10)})` : 'first run with these settings on this machine'
  console.log(`  ${v.regressed ? 'REGRESSION' : 'ok        '} ${v.bench} ${v.figure}: ${v.value}; ${best}`)
}
const regressed = verdicts.filter((v) => v.regressed)
if (failed.length) console.log(`bench:check: did not run: ${failed.join(', ')}`)
if (regressed.length) console.log(`bench:check: ${regressed.length} regression${regressed.length === 1 ? '' : 's'}: ${regressed.map((v) => `${v.bench} ${v.figure} ${v.value} (best ${v.best!.value} at ${v.best!.commit})`).join('; ')}`)
else if (!failed.length) console.log(`bench:check: no regression (${verdicts.length} figures)`)
process.exit(regressed.length || failed.length ? 1 : 0)
