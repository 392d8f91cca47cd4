// `npm run bench:check` (bench/check.ts) against a deliberate slowdown: the authenticated-read bench is
// run for real twice into a record of its own, the second time with the Portico process kept busy on
// purpose (bench/lib/slowdown.ts), and the check names that figure as a regression against the first,
// with the commit of the best, and exits 1. The judgement's arithmetic is test/unit/bench-record.test.ts.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const dir = mkdtempSync(join(tmpdir(), 'portico-bench-check-'))
const recordPath = join(dir, 'record.jsonl')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function check(extra: Record<string, string>): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn([process.execPath, 'bench/check.ts', 'auth-read'], {
    cwd: join(import.meta.dir, '..', '..'),
    env: { ...process.env, BENCH_RECORD_PATH: recordPath, BENCH_SECONDS: '2', BENCH_ROUNDS: '1', BENCH_CHECK_RUNS: '1', ...extra },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, out: out + err }
}

test('bench:check names the authenticated read slowed on purpose, against the run before it', async () => {
  const first = await check({})
  expect(first.out).toContain('first run with these settings on this machine')
  expect(first.code).toBe(0)
  const slowed = await check({ BENCH_SLOWDOWN: '400' })
  const entries = readFileSync(recordPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { figures: Record<string, number>; commit: string })
  expect(entries).toHaveLength(2)
  const [before, after] = entries as [(typeof entries)[0], (typeof entries)[0]]
  // Both figures measure Portico's rate (against SELECT 1, and against the same read bare): both fall.
  for (const figure of ['ratio', 'ratio to the same read']) {
    expect(after.figures[figure]!).toBeLessThan(before.figures[figure]! * 0.9)
    expect(slowed.out).toContain(`REGRESSION auth-read ${figure}: ${after.figures[figure]}; best ${before.figures[figure]} (${before.commit}`)
  }
  expect(slowed.out).toContain('bench:check: 2 regressions')
  expect(slowed.code).toBe(1)
}, 240_000)
