// Shared pieces for benchmarks: a database of their own, child servers on loopback, and a load
// generator (wrk when installed, else a bounded-concurrency fetch loop) whose runs are bounded in time.
import { spawn, type Subprocess } from 'bun'
import { testDatabaseUrl, dropTestDatabase } from '../../test/harness/db.ts'
import { connect } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { MovableClock } from '../../src/clock.ts'
import { createApplication, createTenant } from '../../src/domain/tenancy.ts'

export { testDatabaseUrl as benchDatabaseUrl, dropTestDatabase as dropBenchDatabase }

export async function freePort(): Promise<number> {
  const srv = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = srv.port
  srv.stop(true)
  return port
}

/**
 * Starts a server process on a free loopback port and waits until `readyPath` answers 200. Its
 * output goes to /dev/null (a pipe the benchmark had to drain would cost the machine's CPU too).
 */
export async function startChild(cmd: string[], env: Record<string, string>, readyPath = '/healthz'): Promise<{ port: number; proc: Subprocess }> {
  const port = await freePort()
  // Per-credential limits are counted as in production, but set above what a bench sends through one key.
  const limits = { RATE_LIMITS: 'api_key=100000000,application=100000000,end_user=100000000,agent_grant=100000000' }
  const proc = spawn(cmd, { env: { ...limits, ...process.env, ...env, PORT: String(port) }, stdout: 'ignore', stderr: 'inherit' })
  // A busy machine (other benches, test suites) can take long to start a Portico with its migrations.
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) break
    try {
      const r = await fetch(`http://127.0.0.1:${port}${readyPath}`)
      if (r.status === 200) return { port, proc }
    } catch {
      // not listening yet
    }
    await Bun.sleep(100)
  }
  proc.kill()
  throw new Error(`child did not start: ${cmd.join(' ')}`)
}

export interface Load {
  rps: number
  p99ms: number | null
  tool: string
}

export async function load(url: string, headers: Record<string, string>, seconds = 10, connections = 50): Promise<Load> {
  if (Bun.which('wrk')) {
    const args = ['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url]
    const out = await new Response(spawn(args, { stdout: 'pipe' }).stdout).text()
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
    const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out)
    const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)
    if (non2xx) throw new Error(`load on ${url}: ${non2xx[1]} non-2xx answers`)
    const p99ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : null
    return { rps, p99ms, tool: 'wrk -t1' }
  }
  let done = 0
  const end = performance.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const r = await fetch(url, { headers })
        await r.arrayBuffer()
        if (r.status !== 200) throw new Error(`load on ${url}: ${r.status}`)
        done++
      }
    }),
  )
  return { rps: done / seconds, p99ms: null, tool: 'fetch loop' }
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

/** A migrated bench database with one tenant and one live application, on a clock tests can move. */
export async function benchWorkspace() {
  const db = connect(await testDatabaseUrl(), 10)
  await migrate(db)
  const clock = new MovableClock()
  const now = clock.now()
  const tenant = await createTenant(db, 'Bench', now)
  const { app } = await createApplication(db, tenant.id, 'Bench', 'live', now)
  return { db, clock, now, tenant, app }
}

/** Publishes `name CNAME target` in PowerDNS for each name, a thousand per API call. */
export async function publishCnames(pdns: { apiUrl: string; apiKey: string }, zone: string, names: string[], target: string): Promise<void> {
  for (let i = 0; i < names.length; i += 1000) {
    const rrsets = names.slice(i, i + 1000).map((h) => ({ name: `${h}.`, type: 'CNAME', ttl: 300, changetype: 'REPLACE', records: [{ content: `${target}.`, disabled: false }] }))
    const r = await fetch(`${pdns.apiUrl}/zones/${zone}.`, { method: 'PATCH', headers: { 'X-API-Key': pdns.apiKey }, body: JSON.stringify({ rrsets }) })
    if (!r.ok) throw new Error(`PowerDNS: ${r.status} ${await r.text()}`)
  }
}
