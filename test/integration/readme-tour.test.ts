// The README's first-hour tour, run as written: `npm run dev:dns` (PowerDNS on loopback with the demo
// zone, Portico in development resolving through it) and the tour's shell blocks, between the
// `tour:start` and `tour:end` markers, concatenated and run by bash. It ends at `live`.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { separateDatabaseUrl } from '../harness/db.ts'

const ROOT = join(import.meta.dir, '../..')
let dev: ReturnType<typeof Bun.spawn> | null = null
let dataDir: string
let base: string
let output = ''

function tourScript(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const tour = /<!-- tour:start -->([\s\S]*?)<!-- tour:end -->/.exec(readme)?.[1]
  if (!tour) throw new Error('README.md has no tour:start / tour:end markers')
  return [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
}

/** Keeps what the start prints, as it arrives. */
async function collect(stream: ReadableStream<Uint8Array>): Promise<void> {
  const decoder = new TextDecoder()
  for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
}

beforeAll(async () => {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  base = `http://127.0.0.1:${port}`
  dataDir = mkdtempSync(join(tmpdir(), 'portico-tour-'))
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    DATA_DIR: dataDir,
    // Its own database: the development start generates its own SECRETS_KEY.
    DATABASE_URL: await separateDatabaseUrl(),
    LOG_LEVEL: 'warn',
  }
  // The tour's start, as the README says it; setsid makes a process group to stop as a whole.
  for (const k of ['APP_ENV', 'PROVISION_SECRET', 'MANAGEMENT_KEY', 'DNS_RESOLVERS']) delete env[k]
  dev = Bun.spawn(['setsid', 'npm', 'run', '--silent', 'dev:dns'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  for (const stream of [dev.stdout, dev.stderr] as ReadableStream<Uint8Array>[]) void collect(stream)
  for (let i = 0; ; i++) {
    const up = await fetch(`${base}/healthz`).then((r) => r.ok, () => false)
    if (up && existsSync(join(dataDir, 'dev-dns.env'))) break
    if (dev.exitCode !== null || i > 600) throw new Error(`npm run dev:dns did not come up:\n${output}`)
    await Bun.sleep(100)
  }
}, 120_000)

afterAll(async () => {
  if (!dev) return
  try {
    process.kill(-dev.pid, 'SIGTERM')
  } catch {
    // already gone
  }
  await dev.exited
})

describe('README first-hour tour', () => {
  test('runs top to bottom against npm run dev:dns and reaches live', async () => {
    const health = await (await fetch(`${base}/healthz`)).json()
    expect(health).toMatchObject({ status: 'ok', env: 'development', db: 'ok', dns: 'ok' })
    const run = Bun.spawn(['bash', '-euo', 'pipefail', '-c', tourScript()], {
      cwd: ROOT,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', BASE: base, DATA_DIR: dataDir },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
    if (code !== 0) throw new Error(`tour failed (${code}):\n${out}\n${err}`)
    const lines = out.trim().split('\n')
    expect(lines[0]).toBe('manual')
    expect(lines.at(-1)).toBe('live')
    // The start said where the generated secret is and how to provision.
    expect(output).toContain(`PROVISION_SECRET in ${join(dataDir, 'provision-secret')}`)
    expect(output).not.toContain('Unsupported runtime')
  }, 120_000)
})
