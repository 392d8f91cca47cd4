// bench/auth-read: requests per second of an authenticated GET /v1/applications/{id} (API key lookup
// + application read, request log on) against a bare Bun.serve handler doing one SELECT 1 on the same
// database, measured in the same run, alternating, and printed as a ratio (recorded: bench/lib/record.ts).
// Goal: at least 0.8. A second bare handler reads the same application row with the same statement:
// its rate against SELECT 1 is the most any server that reads the row can reach on this machine, and
// Portico's rate against it is what Portico itself costs (recorded as `ratio to the same read`).
// Each side's server CPU per request is printed too: on a busy machine it moves less than the rates.
import { benchDatabaseUrl, dropBenchDatabase, fmt, load, startChild } from './lib/util.ts'
import { processCpu } from './lib/cpu.ts'
import { record } from './lib/record.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const db = await benchDatabaseUrl()
const env = { DATABASE_URL: db, POOL_SIZE: '10' }

const baseline = await startChild([process.execPath, 'bench/lib/baseline-select1.ts'], env, '/')
// BENCH_SLOWDOWN (bench/lib/slowdown.ts) slows the Portico side on purpose: the test of bench:check.
const slowdown = process.env.BENCH_SLOWDOWN ? ['--preload', './bench/lib/slowdown.ts'] : []
const portico = await startChild([process.execPath, ...slowdown, 'src/main.ts'], {
  ...env,
  HOST: '127.0.0.1',
  APP_ENV: 'development',
  PROVISION_SECRET: 'bench-provision',
  SECRETS_KEY: '22'.repeat(32),
  DATA_DIR: '/tmp/portico-bench',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
}).catch((err: unknown) => {
  baseline.proc.kill()
  throw err
})
let rowBase: Awaited<ReturnType<typeof startChild>> | undefined
try {
  const base = `http://127.0.0.1:${portico.port}`
  const prov = await fetch(`${base}/v1/tenants:provision`, {
    method: 'POST',
    headers: { 'x-provision-secret': 'bench-provision', 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_name: 'Bench' }),
  }).then((r) => r.json() as Promise<{ application_id: string; api_key: string }>)
  const target = `${base}/v1/applications/${prov.application_id}`
  const auth = { authorization: `Bearer ${prov.api_key}` }
  const check = await fetch(target, { headers: auth })
  if (check.status !== 200) throw new Error(`authenticated read answered ${check.status}`)
  const tenantId = ((await check.json()) as { tenant_id: string }).tenant_id
  rowBase = await startChild([process.execPath, 'bench/lib/baseline-select1.ts'], { ...env, ROW_ID: prov.application_id, ROW_TENANT: tenantId }, '/')

  // A short warm-up of both (JIT, pooled connections, the key cache), not counted.
  await load(`http://127.0.0.1:${baseline.port}/`, {}, 1)
  await load(`http://127.0.0.1:${rowBase.port}/`, {}, 1)
  await load(target, auth, 1)
  let b = 0
  let r = 0
  let p = 0
  let tool = ''
  const cpu = { b: 0, p: 0, nb: 0, np: 0 }
  /** Load on one server, with the CPU its process spent meanwhile. */
  const measured = async (url: string, headers: Record<string, string>, pid: number) => {
    const c0 = processCpu(pid)
    const l = await load(url, headers, seconds)
    return { ...l, cpu: processCpu(pid) - c0, n: l.rps * seconds }
  }
  for (let i = 0; i < rounds; i++) {
    const lb = await measured(`http://127.0.0.1:${baseline.port}/`, {}, baseline.proc.pid)
    const lr = await measured(`http://127.0.0.1:${rowBase.port}/`, {}, rowBase.proc.pid)
    const lp = await measured(target, auth, portico.proc.pid)
    tool = lp.tool
    cpu.b += lb.cpu
    cpu.nb += lb.n
    cpu.p += lp.cpu
    cpu.np += lp.n
    console.log(
      `round ${i + 1}: baseline ${fmt(lb.rps)} req/s (p99 ${lb.p99ms ?? '-'} ms, ${((lb.cpu / lb.n) * 1e6).toFixed(0)} µs CPU/req), ` +
        `same read bare ${fmt(lr.rps)} req/s, ` +
        `portico ${fmt(lp.rps)} req/s (p99 ${lp.p99ms ?? '-'} ms, ${((lp.cpu / lp.n) * 1e6).toFixed(0)} µs CPU/req)`,
    )
    b += lb.rps
    r += lr.rps
    p += lp.rps
  }
  const usB = (cpu.b / cpu.nb) * 1e6
  const usP = (cpu.p / cpu.np) * 1e6
  console.log(`auth-read (${tool}, 50 connections, ${rounds}x${seconds}s each):`)
  console.log(`  baseline Bun.serve + SELECT 1: ${fmt(b / rounds)} req/s, ${usB.toFixed(0)} µs of server CPU a request`)
  console.log(`  portico GET /v1/applications/{id} with API key: ${fmt(p / rounds)} req/s, ${usP.toFixed(0)} µs of server CPU a request`)
  console.log(`  bare Bun.serve + the same application read: ${fmt(r / rounds)} req/s (${(r / b).toFixed(2)} of the baseline: the most a server reading the row reaches here)`)
  console.log(`  ratio: ${(p / b).toFixed(2)} (goal >= 0.80); to the same read bare: ${(p / r).toFixed(2)}`)
  await record(
    'auth-read',
    { ratio: p / b, 'ratio to the same read': p / r },
    `${(p / b).toFixed(2)}: portico ${fmt(p / rounds)} vs baseline ${fmt(b / rounds)} req/s (the same read bare ${fmt(r / rounds)}, ${(r / b).toFixed(2)}); server CPU ${usP.toFixed(0)} vs ${usB.toFixed(0)} µs a request`,
    { tool, seconds, rounds },
  )
} finally {
  baseline.proc.kill()
  rowBase?.proc.kill()
  portico.proc.kill('SIGTERM')
  await Promise.all([baseline.proc.exited, portico.proc.exited, rowBase?.proc.exited])
  await dropBenchDatabase()
}
