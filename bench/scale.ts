// bench/scale: the cost curve. Seeds 10,000, then 100,000, then 1,000,000 connections across 1,000
// workspaces (bench/lib/scale-seed.ts: Zipf-sized workspaces, with audit rows, outbox events, delivery
// attempts, monitor rows and certificates in proportion), and at each size measures:
// - p50 / p99 and req/s of the authenticated get, list (first page, compressed and not, and a deep page), count and domain
//   check, each under load (50 connections) from the largest workspace (about a tenth of everything:
//   the worst case), next to bench/auth-read's baseline (a bare Bun.serve doing one SELECT 1 on the
//   same database) measured in the same round; the ratio is requests per second against it;
// - the verification sweep's and the monitor sweep's cost per item (the real sweeps, in this process,
//   with an in-memory DNS answering at once, so what is left is Portico and PostgreSQL);
// - the database's bytes per connection, the API process's resident memory after the load, and the
//   time the /metrics database gauges take to read.
// Prints the table and draws the curve into bench/scale.svg. Goal: p99 at the largest size within 1.5
// times the smallest's; sweep cost per item flat.
//
//   bun bench/scale.ts                          # 10,000, 100,000 and 1,000,000
//   bun bench/scale.ts --sizes=10k,100k         # a subset (any ascending list; also BENCH_SCALE_SIZES)
//   BENCH_SECONDS=5 BENCH_ROUNDS=2              # per-endpoint load time and rounds (defaults 5 and 2)
//   bun bench/scale.ts --sizes=100k --keep      # leaves the seeded database (its URL is printed) to EXPLAIN in
// The 1,000,000 seed takes several minutes and about 6 GB of disk; CI never runs benchmarks.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { benchDatabaseUrl, dropBenchDatabase, fmt, startChild } from './lib/util.ts'
import { EDGE, WORKSPACES, appId, seedConnections, seedWorkspaces, settle, tenantId } from './lib/scale-seed.ts'
import { startPdns } from '../test/harness/pdns.ts'
import { connect } from '../src/db/sql.ts'
import { migrate } from '../src/db/migrate.ts'
import { createKey } from '../src/domain/tenancy.ts'
import { cursorOf } from '../src/ops/cursors.ts'
import { sweepDue } from '../src/jobs/verify-sweep.ts'
import { sweepMonitor } from '../src/jobs/monitor-sweep.ts'
import { readDbFigures } from '../src/db/metrics.ts'
import type { Dns, Lookup, LookupType } from '../src/adapters/dns.ts'
import { record } from './lib/record.ts'

const parseSize = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s.trim())
  if (!m) throw new Error(`--sizes: ${s} is not a size (10000, 10k, 1m)`)
  return Math.round(Number(m[1]) * (m[2]?.toLowerCase() === 'k' ? 1e3 : m[2]?.toLowerCase() === 'm' ? 1e6 : 1))
}
const sizesArg = process.argv.find((a) => a.startsWith('--sizes='))?.slice(8) ?? process.env.BENCH_SCALE_SIZES ?? '10k,100k,1m'
const SIZES = sizesArg.split(',').map(parseSize)
if (SIZES.some((s, i) => i > 0 && s <= SIZES[i - 1]!)) throw new Error('--sizes must ascend')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const CONCURRENCY = 50
const SWEEP_ITEMS = 1000
const SVG_PATH = join(import.meta.dir, 'scale.svg')

// ---- load generator: a bounded-concurrency fetch loop that keeps every latency -------------------

interface Measured {
  rps: number
  p50: number
  p99: number
}

const quantile = (sorted: Float64Array, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

async function measure(next: (n: number) => [string, RequestInit], seconds: number): Promise<Measured> {
  let lat = new Float64Array(1 << 16)
  let n = 0
  const end = performance.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const [url, init] = next(n)
        const t = performance.now()
        const r = await fetch(url, init)
        await r.arrayBuffer()
        const ms = performance.now() - t
        if (r.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url}: ${r.status}`)
        if (n === lat.length) {
          const bigger = new Float64Array(lat.length * 2)
          bigger.set(lat)
          lat = bigger
        }
        lat[n++] = ms
      }
    }),
  )
  const sorted = lat.slice(0, n).sort()
  return { rps: n / seconds, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

// ---- DNS that answers at once: the sweeps' own cost, without a DNS server's -----------------------

/** Verification: nothing published yet (the common check of a pending connection: rescheduled). */
const silentDns: Dns = { lookup: async (): Promise<Lookup> => ({ status: 'nodata' }) }
/** Monitor: every record in place (the common hourly check: nothing changes, nothing is written). */
const inSyncDns: Dns = { lookup: async (_n: string, type: LookupType): Promise<Lookup> => (type === 'CNAME' ? { status: 'ok', values: [EDGE] } : { status: 'nodata' }) }

// ---- the run ------------------------------------------------------------------------------------

const HOUR = 3_600_000
const now = new Date()
// Monitor windows: three five-minute sweeps in one hour, after every row's last written check.
const monitorHour = Math.floor(now.getTime() / HOUR) * HOUR - 3 * HOUR
const monitorCheckedAt = new Date(monitorHour - HOUR)

const url = await benchDatabaseUrl()
const db = connect(url, 10)
await migrate(db)
const pdns = await startPdns()
const zone = `scale${Date.now().toString(36)}.test`
await pdns.createZone(zone)
await seedWorkspaces(db, now)
const key = (await createKey(db, { tenantId: tenantId(1), applicationId: appId(1), environment: 'live', role: 'owner', name: 'bench', isDefault: true, createdBy: null, now }))!.key

interface Row {
  size: number
  seedS: number
  settleS: number
  largest: number
  baseline: Measured
  ops: Record<string, Measured & { ratio: number }>
  verifyUs: number
  monitorUs: number
  monitorItems: number
  bytesPerConnection: number
  rssMb: number
  gaugesMs: number
}
const rows: Row[] = []
const OPS = ['get', 'list first', 'list first, identity', 'list deep', 'count', 'domain check'] as const
let metricsSample = ''

let seeded = 0
for (const size of SIZES) {
  console.log(`\n== ${fmt(size)} connections`)
  let t = performance.now()
  await seedConnections(db, seeded, size, now, monitorCheckedAt)
  const seedS = (performance.now() - t) / 1000
  t = performance.now()
  await settle(db)
  const settleS = (performance.now() - t) / 1000
  console.log(`seeded ${fmt(size - seeded)} connections in ${seedS.toFixed(1)} s, vacuum + analyze ${settleS.toFixed(1)} s`)
  seeded = size

  const [{ bytes }] = await db`select pg_database_size(current_database())::float8 as bytes`
  const mine = (await db`select id from connections where tenant_id = ${tenantId(1)} and disconnected_at is null order by id`) as { id: string }[]
  const sample = Array.from({ length: 1000 }, (_, i) => mine[Math.floor(((i * 7919) % 1000) / 1000 * mine.length)]!.id)
  const deepCursors = Array.from({ length: 100 }, (_, i) => cursorOf(mine[Math.floor(mine.length * (0.5 + i * 0.0049))]!.id))

  const env = { DATABASE_URL: url, POOL_SIZE: '10' }
  const baseline = await startChild([process.execPath, 'bench/lib/baseline-select1.ts'], env, '/')
  const portico = await startChild([process.execPath, 'src/main.ts'], {
    ...env,
    HOST: '127.0.0.1',
    APP_ENV: 'development',
    PORTICO_ROLE: 'api',
    PROVISION_SECRET: 'bench-provision',
    SECRETS_KEY: '22'.repeat(32),
    DATA_DIR: '/tmp/portico-bench',
    DNS_RESOLVERS: pdns.dnsAddress,
    EDGE_CNAME_TARGET: EDGE,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  })
  const api = `http://127.0.0.1:${portico.port}/v1`
  const auth = { authorization: `Bearer ${key}` }
  const targets: Record<(typeof OPS)[number], (n: number) => [string, RequestInit]> = {
    get: (n) => [`${api}/connections/${sample[n % sample.length]}`, { headers: auth }],
    'list first': () => [`${api}/connections?limit=50`, { headers: auth }],
    // The same page to a client that takes no content coding (curl without --compressed, wrk, many SDKs).
    'list first, identity': () => [`${api}/connections?limit=50`, { headers: { ...auth, 'accept-encoding': 'identity' } }],
    'list deep': (n) => [`${api}/connections?limit=50&cursor=${deepCursors[n % deepCursors.length]}`, { headers: auth }],
    count: () => [`${api}/connections:count`, { headers: auth }],
    'domain check': () => [`${api}/domains:check`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ domain: `shop.${zone}` }) }],
  }
  const base = `http://127.0.0.1:${baseline.port}/`
  try {
    // Warm both servers (JIT, pooled connections, plan caches), as long-lived processes are.
    await measure(() => [base, {}], 2)
    for (const op of OPS) await measure(targets[op], 1)
    const got: Record<string, Measured[]> = Object.fromEntries([...OPS, 'baseline'].map((k) => [k, []]))
    const ratios: Record<string, number[]> = Object.fromEntries(OPS.map((k) => [k, []]))
    for (let r = 0; r < ROUNDS; r++) {
      const b = await measure(() => [base, {}], SECONDS)
      got.baseline!.push(b)
      const line = [`round ${r + 1}: baseline ${fmt(b.rps)} req/s p99 ${b.p99.toFixed(1)} ms`]
      for (const op of OPS) {
        const m = await measure(targets[op], SECONDS)
        got[op]!.push(m)
        ratios[op]!.push(m.rps / b.rps)
        line.push(`${op} ${fmt(m.rps)} req/s p99 ${m.p99.toFixed(1)} ms`)
      }
      console.log(line.join(', '))
    }
    const pick = (ms: Measured[]): Measured => ({ rps: median(ms.map((m) => m.rps)), p50: median(ms.map((m) => m.p50)), p99: median(ms.map((m) => m.p99)) })
    const status = await Bun.file(`/proc/${portico.proc.pid}/status`).text()
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
    const scrape = await fetch(`http://127.0.0.1:${portico.port}/metrics`)
    metricsSample = await scrape.text()

    // The database gauges of /metrics, read as a scrape reads them.
    const gauges: number[] = []
    for (let i = 0; i < 5; i++) {
      const g = performance.now()
      await readDbFigures(db, new Date())
      gauges.push(performance.now() - g)
    }

    // Verification: SWEEP_ITEMS pending connections come due, spread over the table; the sweep checks
    // each (nothing found) and reschedules it. Three rounds, the median counted.
    const due = ((await db`
      select id from connections where status in ('pending', 'propagating') and disconnected_at is null
      order by md5(id) limit ${SWEEP_ITEMS}`) as { id: string }[]).map((r) => r.id)
    const verifyRuns: number[] = []
    for (let r = 0; r < 3; r++) {
      await db`update connections set next_check_at = ${new Date(Date.now() - 1000)} where id = any(${due}::text[])`
      const s = performance.now()
      const n = await sweepDue({ db, dns: silentDns, clock: { now: () => new Date() } })
      const ms = performance.now() - s
      if (n !== due.length) throw new Error(`verification sweep handled ${n}, expected ${due.length}`)
      verifyRuns.push((ms * 1000) / n)
    }
    // Checked again within minutes otherwise (propagating ones), and due at the next size.
    await db`update connections set next_check_at = ${new Date(Date.now() + 86_400_000)} where id = any(${due}::text[])`
    // Monitor: three five-minute windows of one hour; each sweep checks the live domains whose slot
    // came round (a twelfth of them), finds them in place and writes nothing.
    const monitorRuns: number[] = []
    let monitorItems = 0
    for (let r = 0; r < 3; r++) {
      const from = new Date(monitorHour + (10 + 5 * r) * 60_000)
      const to = new Date(from.getTime() + 5 * 60_000)
      await db`insert into monitor_sweep (id, swept_to) values (true, ${from}) on conflict (id) do update set swept_to = excluded.swept_to`
      const s = performance.now()
      const n = await sweepMonitor({ db, dns: inSyncDns, clock: { now: () => to }, alerts: true })
      const ms = performance.now() - s
      if (n === 0) throw new Error('monitor sweep checked nothing')
      monitorItems = n
      monitorRuns.push((ms * 1000) / n)
    }
    const ops = Object.fromEntries(OPS.map((op) => [op, { ...pick(got[op]!), ratio: median(ratios[op]!) }])) as Row['ops']
    const row: Row = {
      size,
      seedS,
      settleS,
      largest: mine.length,
      baseline: pick(got.baseline!),
      ops,
      verifyUs: median(verifyRuns),
      monitorUs: median(monitorRuns),
      monitorItems,
      bytesPerConnection: bytes / size,
      rssMb,
      gaugesMs: median(gauges),
    }
    rows.push(row)
    console.log(
      `largest workspace ${fmt(row.largest)} open connections; verification ${row.verifyUs.toFixed(0)} µs/item, monitor ${row.monitorUs.toFixed(0)} µs/item (${fmt(monitorItems)} a sweep); ` +
        `${fmt(row.bytesPerConnection)} database bytes/connection; API process RSS ${row.rssMb.toFixed(0)} MB; /metrics gauges ${row.gaugesMs.toFixed(1)} ms`,
    )
  } finally {
    baseline.proc.kill()
    portico.proc.kill('SIGTERM')
    await Promise.all([baseline.proc.exited, portico.proc.exited])
  }
}

// ---- the table ----------------------------------------------------------------------------------

const first = rows[0]!
const pad = (s: string, n: number) => s.padStart(n)
console.log(`\nscale (${WORKSPACES} workspaces; requests from the largest; ${CONCURRENCY} connections, median of ${ROUNDS} x ${SECONDS} s; ratio = req/s against the SELECT 1 baseline of the same round)`)
const header = ['connections', ...rows.map((r) => fmt(r.size))]
const lines: string[][] = [
  ['largest workspace', ...rows.map((r) => fmt(r.largest))],
  ['seed (s)', ...rows.map((r) => `${r.seedS.toFixed(0)} + ${r.settleS.toFixed(0)} vacuum`)],
  ['baseline p50/p99 ms', ...rows.map((r) => `${r.baseline.p50.toFixed(1)} / ${r.baseline.p99.toFixed(1)}`)],
  ...OPS.map((op) => [`${op} p50/p99 ms (ratio)`, ...rows.map((r) => `${r.ops[op]!.p50.toFixed(1)} / ${r.ops[op]!.p99.toFixed(1)} (${r.ops[op]!.ratio.toFixed(2)})`)]),
  ...OPS.map((op) => [`${op} p99 vs first size`, ...rows.map((r) => `${(r.ops[op]!.p99 / first.ops[op]!.p99).toFixed(2)}x`)]),
  ['verification µs/item', ...rows.map((r) => r.verifyUs.toFixed(0))],
  ['monitor µs/item', ...rows.map((r) => `${r.monitorUs.toFixed(0)} (${fmt(r.monitorItems)}/sweep)`)],
  ['database bytes/connection', ...rows.map((r) => fmt(r.bytesPerConnection))],
  ['API process RSS MB', ...rows.map((r) => r.rssMb.toFixed(0))],
  ['/metrics db gauges ms', ...rows.map((r) => r.gaugesMs.toFixed(1))],
]
const w0 = Math.max(...lines.map((l) => l[0]!.length), header[0]!.length)
const ws = header.slice(1).map((h, i) => Math.max(h.length, ...lines.map((l) => l[i + 1]!.length)))
const out = (l: string[]) => `| ${l[0]!.padEnd(w0)} | ${l.slice(1).map((c, i) => pad(c, ws[i]!)).join(' | ')} |`
console.log(out(header))
console.log(`| ${'-'.repeat(w0)} | ${ws.map((w) => '-'.repeat(w)).join(' | ')} |`)
for (const l of lines) console.log(out(l))
const last = rows.at(-1)!
const worst = Math.max(...OPS.map((op) => last.ops[op]!.p99 / first.ops[op]!.p99))
console.log(`worst p99 growth ${fmt(first.size)} -> ${fmt(last.size)}: ${worst.toFixed(2)}x (goal <= 1.5); sweep cost per item ${(last.verifyUs / first.verifyUs).toFixed(2)}x (verification), ${(last.monitorUs / first.monitorUs).toFixed(2)}x (monitor)`)

// The record: each size's list pages against its get (req/s under the same load) and the get against
// the baseline, and the p99 growth across the sizes measured.
const recorded: Record<string, number> = {}
for (const r of rows) {
  const at = ` @ ${fmt(r.size)}`
  recorded[`list first / get${at}`] = r.ops['list first']!.rps / r.ops.get!.rps
  recorded[`list deep / get${at}`] = r.ops['list deep']!.rps / r.ops.get!.rps
  recorded[`list first, identity / get${at}`] = r.ops['list first, identity']!.rps / r.ops.get!.rps
  recorded[`get / baseline${at}`] = r.ops.get!.ratio
}
if (rows.length > 1) recorded['worst p99 growth'] = worst
await record(
  'scale',
  recorded,
  rows.map((r) => `${fmt(r.size)}: p50 get ${r.ops.get!.p50.toFixed(1)}, list first ${r.ops['list first']!.p50.toFixed(1)}, deep ${r.ops['list deep']!.p50.toFixed(1)} ms; p99 ${r.ops.get!.p99.toFixed(1)} / ${r.ops['list first']!.p99.toFixed(1)} / ${r.ops['list deep']!.p99.toFixed(1)} ms`).join('; ') +
    (rows.length > 1 ? `; worst p99 growth ${worst.toFixed(2)}x` : ''),
  { sizes: SIZES.map(fmt).join('/'), seconds: SECONDS, rounds: ROUNDS },
)

writeFileSync(SVG_PATH, curve(rows))
console.log(`curve: ${SVG_PATH}`)
console.log('\n/metrics sample (portico_ series, last size):')
console.log(metricsSample.split('\n').filter((l) => /^portico_(connections|certificates|queue_depth|verification_lag|metrics_db|http_request_duration_seconds_count\{operation="connections)/.test(l)).slice(0, 30).join('\n'))

await db.close()
// --keep leaves the seeded database for EXPLAIN ANALYZE (drop it by hand afterwards).
if (process.argv.includes('--keep')) console.log(`\nkept: ${url}`)
else await dropBenchDatabase()
await pdns.stop()

// ---- the curve ----------------------------------------------------------------------------------

/** Three panels over log-scaled connection counts: p50 and p99 per operation (ms), and sweep cost per item (µs). */
function curve(rs: Row[]): string {
  const W = 1440
  const H = 420
  const latency = (q: 'p50' | 'p99') => [...OPS.map((op) => ({ name: op, ys: rs.map((r) => r.ops[op]![q]) })), { name: 'baseline SELECT 1', ys: rs.map((r) => r.baseline[q]) }]
  const panels = [
    { title: 'p50 latency under load (ms), largest workspace', series: latency('p50') },
    { title: 'p99 latency under load (ms), largest workspace', series: latency('p99') },
    { title: 'sweep cost per item (µs)', series: [{ name: 'verification', ys: rs.map((r) => r.verifyUs) }, { name: 'monitor', ys: rs.map((r) => r.monitorUs) }] },
  ]
  const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#7f7f7f']
  const xs = rs.map((r) => Math.log10(r.size))
  const [x0, x1] = [Math.min(...xs) - 0.15, Math.max(...xs) + 0.15]
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">Portico cost curve: ${rs.map((r) => fmt(r.size)).join(', ')} connections across ${WORKSPACES} workspaces</text>`,
  ]
  panels.forEach((p, pi) => {
    const left = 60 + pi * (W / 3)
    const top = 50
    const pw = W / 3 - 90
    const ph = H - 150
    const ymax = Math.max(...p.series.flatMap((s) => s.ys)) * 1.15 || 1
    const X = (x: number) => left + ((x - x0) / (x1 - x0)) * pw
    const Y = (y: number) => top + ph - (y / ymax) * ph
    parts.push(`<text x="${left + pw / 2}" y="${top - 10}" text-anchor="middle">${p.title}</text>`)
    parts.push(`<line x1="${left}" y1="${top + ph}" x2="${left + pw}" y2="${top + ph}" stroke="black"/><line x1="${left}" y1="${top}" x2="${left}" y2="${top + ph}" stroke="black"/>`)
    for (let k = 0; k <= 4; k++) {
      const v = (ymax * k) / 4
      parts.push(`<line x1="${left}" y1="${Y(v)}" x2="${left + pw}" y2="${Y(v)}" stroke="#ddd"/><text x="${left - 6}" y="${Y(v) + 4}" text-anchor="end">${v < 10 ? v.toFixed(1) : v.toFixed(0)}</text>`)
    }
    rs.forEach((r, i) => parts.push(`<text x="${X(xs[i]!)}" y="${top + ph + 18}" text-anchor="middle">${fmt(r.size)}</text>`))
    p.series.forEach((s, si) => {
      const c = colors[si % colors.length]
      parts.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${s.ys.map((y, i) => `${X(xs[i]!).toFixed(1)},${Y(y).toFixed(1)}`).join(' ')}"/>`)
      s.ys.forEach((y, i) => parts.push(`<circle cx="${X(xs[i]!).toFixed(1)}" cy="${Y(y).toFixed(1)}" r="3" fill="${c}"/>`))
      parts.push(`<rect x="${left + (si % 3) * 140}" y="${top + ph + 34 + Math.floor(si / 3) * 18}" width="10" height="10" fill="${c}"/><text x="${left + (si % 3) * 140 + 14}" y="${top + ph + 43 + Math.floor(si / 3) * 18}">${s.name}</text>`)
    })
  })
  parts.push('</svg>')
  return parts.join('\n')
}
