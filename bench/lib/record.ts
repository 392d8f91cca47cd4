// The record of benchmark figures. Every run of a ratio bench appends one line to bench/record.jsonl:
// its figures, the commit it ran on (with `+` when the tree had changes), the machine, the settings
// that shape the figures (seconds, rounds, sizes) and the line it printed. docs/benchmarks.md is
// rewritten from the record after each append (bench/lib/benchmarks-doc.ts), so the doc says only
// what some run measured; `npm run bench:check` (bench/check.ts) reruns benches and names every figure
// whose median over the fresh runs fell more than 10 % below the best per-commit median recorded on the
// same machine with the same settings (load tool included).
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'bun'

export const ROOT = join(import.meta.dir, '..', '..')
/** BENCH_RECORD_PATH records elsewhere (the test of bench:check); docs/benchmarks.md is then left alone. */
export const RECORD_PATH = process.env.BENCH_RECORD_PATH || join(ROOT, 'bench', 'record.jsonl')
export const DOC_PATH = join(ROOT, 'docs', 'benchmarks.md')

/** What a figure means, its goal, and which way is better. */
export interface FigureSpec {
  what: string
  goal: number
  /** Lower is better (a growth factor); otherwise higher is (a ratio to a baseline). */
  lower?: boolean
}

/**
 * The figures each bench records. A scale figure's name ends with the size it was measured at; its
 * spec is found by the name before the size.
 */
export const FIGURES: Record<string, Record<string, FigureSpec>> = {
  'auth-read': {
    ratio: { what: 'authenticated GET /v1/applications/{id} (API key, request log on) against bare Bun.serve doing one SELECT 1, req/s', goal: 0.8 },
  },
  webhooks: {
    ratio: { what: '10,000 events delivered (fair claims, each send in the log before it leaves) against plain signed POSTs from a script, per second', goal: 0.5 },
  },
  verify: {
    ratio: { what: 'verification sweep over 10,000 propagating connections against the same DNS questions sent raw, median of rounds', goal: 0.5 },
  },
  monitor: {
    ratio: { what: 'hourly watch of 20,000 live domains against the same DNS questions sent raw', goal: 0.5 },
  },
  scale: {
    'list first / get': { what: 'first list page of 50 against a get, req/s under the same load, largest workspace', goal: 0.5 },
    'list first, identity / get': { what: 'the same first page to a client that takes no content coding, against a get', goal: 0.5 },
    'list deep / get': { what: 'a deep list page of 50 against a get, req/s under the same load, largest workspace', goal: 0.5 },
    'get / baseline': { what: 'a get against the SELECT 1 baseline, req/s', goal: 0.5 },
    'worst p99 growth': { what: 'the largest size p99 over the smallest size p99, worst operation', goal: 1.5, lower: true },
  },
}

export function specOf(bench: string, figure: string): FigureSpec | undefined {
  const own = FIGURES[bench]
  if (!own) return undefined
  return own[figure] ?? own[figure.replace(/ @ [\d,]+$/, '')]
}

export interface Entry {
  at: string
  commit: string
  machine: string
  bench: string
  /** What shapes the figures besides the code: a shortened run is compared only with its like. */
  settings: string
  figures: Record<string, number>
  /** The bench's own summary line (baseline beside the figure). */
  detail: string
}

/** The machine, as far as figures compare: CPU model, cores and memory (BENCH_MACHINE overrides). */
export function machine(): string {
  if (process.env.BENCH_MACHINE) return process.env.BENCH_MACHINE
  return `${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`
}

/**
 * The commit the run measured, `+` when the work tree had changes (a run of uncommitted code). What the
 * benches themselves write (the record, this page, scale's curve) is not a change of the code.
 */
export function currentCommit(): string {
  const head = spawnSync(['git', 'rev-parse', '--short=10', 'HEAD'], { cwd: ROOT }).stdout.toString().trim() || 'unknown'
  const dirty = spawnSync(['git', 'status', '--porcelain', '--untracked-files=no', '--', ':!bench/record.jsonl', ':!docs/benchmarks.md', ':!bench/scale.svg'], { cwd: ROOT }).stdout.toString().trim()
  return dirty ? `${head}+` : head
}

export function readRecord(path = RECORD_PATH): Entry[] {
  if (!existsSync(path)) return []
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Entry)
}

/**
 * Appends one run's figures to the record and rewrites docs/benchmarks.md from it. BENCH_RECORD=0
 * keeps a run out of the record (a try while debugging).
 */
export async function record(bench: string, figures: Record<string, number>, detail: string, settings: Record<string, string | number>): Promise<Entry> {
  const entry: Entry = {
    at: new Date().toISOString(),
    commit: currentCommit(),
    machine: machine(),
    bench,
    settings: Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    figures: Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v * 1000) / 1000])),
    detail,
  }
  if (process.env.BENCH_RECORD === '0') return entry
  appendFileSync(RECORD_PATH, JSON.stringify(entry) + '\n')
  if (process.env.BENCH_RECORD_PATH) {
    console.log(`recorded in ${RECORD_PATH} (${entry.commit}, ${entry.machine})`)
    return entry
  }
  const { renderDoc } = await import('./benchmarks-doc.ts')
  writeFileSync(DOC_PATH, renderDoc(readRecord()))
  console.log(`recorded in bench/record.jsonl (${entry.commit}, ${entry.machine}); docs/benchmarks.md rewritten`)
  return entry
}

export interface Verdict {
  bench: string
  figure: string
  /** The fresh figure: the median of this check's runs. */
  value: number
  /** This check's runs of the figure, in the order they ran. */
  runs: number[]
  /** The best earlier commit's median on this machine with these settings; absent for a first run. */
  best?: Entry & { value: number; runs: number }
  regressed: boolean
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b)
  const mid = v.length >> 1
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2
}

/**
 * Each figure of the `fresh` runs (one check's runs of one bench) against the earlier record: the
 * median of the fresh runs against the best per-commit median of earlier runs of the same bench,
 * figure, machine and settings (the settings name the load tool, so a fetch-loop run is never compared
 * with a wrk run). Regressed when more than `tolerance` worse (below for a ratio, above for a growth
 * factor). A freak run moves its commit's median, not the bar, once that commit ran more than twice.
 */
export function judge(earlier: Entry[], fresh: Entry | Entry[], tolerance = 0.1): Verdict[] {
  const runs = Array.isArray(fresh) ? fresh : [fresh]
  const first = runs[0]!
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.figures)))]
  return names.map((figure) => {
    const lower = specOf(first.bench, figure)?.lower ?? false
    const mine = runs.map((r) => r.figures[figure]).filter((v): v is number => v !== undefined)
    const value = round3(median(mine))
    const byCommit = new Map<string, Entry[]>()
    for (const e of earlier) {
      if (e.bench !== first.bench || e.machine !== first.machine || e.settings !== first.settings || e.figures[figure] === undefined) continue
      const list = byCommit.get(e.commit) ?? byCommit.set(e.commit, []).get(e.commit)!
      list.push(e)
    }
    let best: Verdict['best']
    for (const list of byCommit.values()) {
      const v = round3(median(list.map((e) => e.figures[figure]!)))
      if (!best || (lower ? v < best.value : v > best.value)) best = { ...list.at(-1)!, value: v, runs: list.length }
    }
    const regressed = best !== undefined && (lower ? value > best.value * (1 + tolerance) : value < best.value * (1 - tolerance))
    return { bench: first.bench, figure, value, runs: mine, best, regressed }
  })
}

const round3 = (v: number) => Math.round(v * 1000) / 1000
