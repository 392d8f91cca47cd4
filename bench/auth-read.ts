// bench/auth-read: requests per second of an authenticated GET /v1/applications/{id} (API key lookup
// + application read, request log on) against a bare Bun.serve handler doing one SELECT 1 on the same
// database, measured in the same run, alternating, and printed as a ratio. Goal: at least 0.5.
import { benchDatabaseUrl, dropBenchDatabase, fmt, load, startChild } from './lib/util.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const db = await benchDatabaseUrl()
const env = { DATABASE_URL: db, POOL_SIZE: '10' }

const baseline = await startChild([process.execPath, 'bench/lib/baseline-select1.ts'], env, '/')
const portico = await startChild([process.execPath, 'src/main.ts'], {
  ...env,
  HOST: '127.0.0.1',
  APP_ENV: 'development',
  PROVISION_SECRET: 'bench-provision',
  SECRETS_KEY: '22'.repeat(32),
  DATA_DIR: '/tmp/portico-bench',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
})
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

  let b = 0
  let p = 0
  let tool = ''
  for (let i = 0; i < rounds; i++) {
    const lb = await load(`http://127.0.0.1:${baseline.port}/`, {}, seconds)
    const lp = await load(target, auth, seconds)
    tool = lp.tool
    console.log(`round ${i + 1}: baseline ${fmt(lb.rps)} req/s (p99 ${lb.p99ms ?? '-'} ms), portico ${fmt(lp.rps)} req/s (p99 ${lp.p99ms ?? '-'} ms)`)
    b += lb.rps
    p += lp.rps
  }
  console.log(`auth-read (${tool}, 50 connections, ${rounds}x${seconds}s each):`)
  console.log(`  baseline Bun.serve + SELECT 1: ${fmt(b / rounds)} req/s`)
  console.log(`  portico GET /v1/applications/{id} with API key: ${fmt(p / rounds)} req/s`)
  console.log(`  ratio: ${(p / b).toFixed(2)} (goal >= 0.50)`)
} finally {
  baseline.proc.kill()
  portico.proc.kill('SIGTERM')
  await Promise.all([baseline.proc.exited, portico.proc.exited])
  await dropBenchDatabase()
}
