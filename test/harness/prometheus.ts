// A real Prometheus (Debian `prometheus`) on loopback, scraping the given targets every second, with
// its own HTTP query API for tests to ask what it scraped. Started under `setpriv --pdeathsig KILL`
// as the other daemons are, so a test process that dies takes it along.
import { spawn, type Subprocess } from 'bun'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freeLoopbackPort } from './edge.ts'

export interface Prometheus {
  url: string
  /** An instant query's vector: each series' labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>
  stop(): Promise<void>
}

export async function startPrometheus(target: { address: string; token?: string }): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-prom-'))
  const port = freeLoopbackPort()
  const auth = target.token ? `    authorization:\n      credentials: ${JSON.stringify(target.token)}\n` : ''
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n  evaluation_interval: 1s\n` +
      `scrape_configs:\n  - job_name: portico\n    metrics_path: /metrics\n${auth}    static_configs:\n      - targets: [${JSON.stringify(target.address)}]\n`,
  )
  const cmd = ['prometheus', `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn']
  const setpriv = Bun.which('setpriv')
  const proc: Subprocess = spawn(setpriv ? [setpriv, '--pdeathsig', 'KILL', ...cmd] : cmd, { stdout: 'ignore', stderr: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break
    } catch {
      // not listening yet
    }
    if (i > 200 || proc.exitCode !== null) {
      proc.kill('SIGKILL')
      throw new Error('prometheus did not start')
    }
    await Bun.sleep(50)
  }
  return {
    url,
    async query(promql) {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)
      const body = (await r.json()) as { status: string; error?: string; data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] } }
      if (body.status !== 'success') throw new Error(`prometheus query ${promql}: ${body.error}`)
      return body.data.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]) }))
    },
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
