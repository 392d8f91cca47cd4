// Ad-hoc: CPU microseconds per request of portico vs the SELECT 1 baseline, and of PostgreSQL.
import { benchDatabaseUrl, dropBenchDatabase, fmt, load, startChild } from './util.ts'
import { commandCpu, processCpu } from './cpu.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const db = await benchDatabaseUrl()
const env = { DATABASE_URL: db, POOL_SIZE: '10' }
const baseline = await startChild([process.execPath, 'bench/lib/baseline-select1.ts'], env, '/')
const extra = process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/i47/prof'] : []
const portico = await startChild([process.execPath, ...extra, process.env.SERVE ? 'bench/lib/serve-probe.ts' : 'src/main.ts'], {
  ...env, HOST: '127.0.0.1', APP_ENV: 'development', PROVISION_SECRET: 'bench-provision', SECRETS_KEY: '22'.repeat(32), DATA_DIR: '/tmp/portico-bench', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', PORTICO_ROLE: process.env.ROLE ?? 'all', SERVE: process.env.SERVE ?? '',
})
try {
  const base = `http://127.0.0.1:${portico.port}`
  const prov = await fetch(`${base}/v1/tenants:provision`, { method: 'POST', headers: { 'x-provision-secret': 'bench-provision', 'content-type': 'application/json' }, body: JSON.stringify({ tenant_name: 'Bench' }) }).then((r) => r.json() as Promise<{ application_id: string; api_key: string }>)
  const target = process.env.TARGET ? base + process.env.TARGET.replace('{app}', prov.application_id) : `${base}/v1/applications/${prov.application_id}`
  const auth = { authorization: `Bearer ${prov.api_key}` }
  await load(target, auth, 2)
  await load(`http://127.0.0.1:${baseline.port}/`, {}, 2)
  for (let i = 0; i < Number(process.env.ROUNDS ?? 2); i++) {
    for (const [name, url, h, pid] of [['baseline', `http://127.0.0.1:${baseline.port}/`, {}, baseline.proc.pid], ['portico', target, auth, portico.proc.pid]] as const) {
      const c0 = processCpu(pid), pg0 = commandCpu('postgres'), t0 = performance.now()
      const l = await load(url, h, seconds)
      const c1 = processCpu(pid), pg1 = commandCpu('postgres'), t1 = performance.now()
      const n = l.rps * seconds
      console.log(`${name.padEnd(8)} ${fmt(l.rps).padStart(7)} req/s  server ${((c1 - c0) / n * 1e6).toFixed(1).padStart(6)} µs/req  postgres ${((pg1 - pg0) / n * 1e6).toFixed(1).padStart(6)} µs/req  server cpu ${((c1 - c0) / ((t1 - t0) / 1000) * 100).toFixed(0)}%`)
    }
  }
} finally {
  baseline.proc.kill()
  portico.proc.kill('SIGTERM')
  await Promise.all([baseline.proc.exited, portico.proc.exited])
  await dropBenchDatabase()
}
