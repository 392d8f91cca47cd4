// Tools of the fault suite (test/integration/faults*.test.ts): Portico as a real child process (so it
// can be killed with SIGKILL and started again), a PostgreSQL cluster of the test's own (stopped,
// frozen, killed, started again on its port), process trees to freeze, and a timer.
import { spawn, type Subprocess } from 'bun'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmbedded, type EmbeddedDb } from '../../src/db/embedded.ts'
import { PROV } from './portico.ts'

export function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

export interface Child {
  url: string
  proc: Subprocess
  /** Every log line the process wrote (stdout and stderr), parsed when JSON. */
  logs: Record<string, unknown>[]
  /** Starts the process again with the same settings (after a kill). */
  restart(): Promise<void>
  kill(signal?: NodeJS.Signals): Promise<void>
  stop(): Promise<void>
}

async function collect(stream: ReadableStream<Uint8Array> | null, logs: Record<string, unknown>[]): Promise<void> {
  if (!stream) return
  const dec = new TextDecoder()
  let rest = ''
  for await (const chunk of stream) {
    rest += dec.decode(chunk, { stream: true })
    let i
    while ((i = rest.indexOf('\n')) >= 0) {
      const line = rest.slice(0, i)
      rest = rest.slice(i + 1)
      try {
        logs.push(JSON.parse(line))
      } catch {
        logs.push({ msg: line })
      }
    }
  }
}

/** A Portico process (`bun src/main.ts`) on a free port; resolves once /healthz answers. */
export async function startChild(env: Record<string, string>, waitMs = 60_000): Promise<Child> {
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  const logs: Record<string, unknown>[] = []
  const full = {
    ...process.env,
    APP_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    PROVISION_SECRET: PROV,
    MANAGEMENT_KEY: 'mgmt_fault_key_0123456789',
    SECRETS_KEY: '11'.repeat(32),
    LOG_LEVEL: 'info',
    API_KEY_CACHE: '0',
    ...env,
  }
  const child: Child = {
    url,
    proc: undefined as unknown as Subprocess,
    logs,
    async restart() {
      child.proc = spawn([process.execPath, 'src/main.ts'], { env: full, stdout: 'pipe', stderr: 'pipe' })
      void collect(child.proc.stdout as ReadableStream<Uint8Array>, logs)
      void collect(child.proc.stderr as ReadableStream<Uint8Array>, logs)
      const until = Date.now() + waitMs
      for (;;) {
        const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status === 200, () => false)
        if (ok) return
        if (child.proc.exitCode !== null) throw new Error(`portico exited at start: ${JSON.stringify(logs.slice(-5))}`)
        if (Date.now() > until) throw new Error(`portico did not start within ${waitMs} ms: ${JSON.stringify(logs.slice(-5))}`)
        await Bun.sleep(100)
      }
    },
    async kill(signal = 'SIGKILL') {
      child.proc.kill(signal)
      await child.proc.exited
    },
    async stop() {
      if (child.proc.exitCode === null) {
        child.proc.kill('SIGTERM')
        await Promise.race([child.proc.exited, Bun.sleep(10_000)])
        if (child.proc.exitCode === null) child.proc.kill('SIGKILL')
      }
    },
  }
  await child.restart()
  return child
}

export interface Answer {
  status: number
  body: any
  headers: Headers
  ms: number
}

/** One HTTP call, timed; a call that gets no answer at all within `timeoutMs` is status 0. */
export async function call(base: string, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Answer> {
  const started = performance.now()
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  try {
    const r = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) })
    const text = await r.text()
    let body: unknown = text
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      // not JSON
    }
    return { status: r.status, body, headers: r.headers, ms: performance.now() - started }
  } catch {
    return { status: 0, body: null, headers: new Headers(), ms: performance.now() - started }
  }
}

export async function provisionOn(base: string): Promise<{ tenantId: string; appId: string; apiKey: string }> {
  const r = await call(base, 'POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': PROV }, body: { tenant_name: `Fault ${Date.now()}`, owner_email: `f${Date.now()}@example.com` } })
  if (r.status !== 201) throw new Error(`provision: ${r.status} ${JSON.stringify(r.body)}`)
  return { tenantId: r.body.tenant_id, appId: r.body.application_id, apiKey: r.body.api_key }
}

/** A PostgreSQL cluster of the test's own, on a fixed port, that the test stops, freezes and starts. */
export interface Cluster {
  url: string
  dir: string
  port: number
  /** Fast shutdown (SIGINT); the port closes. */
  stop(): Promise<void>
  start(): Promise<void>
  /** The postmaster and every backend, stopped (SIGSTOP) or let go on (SIGCONT): a frozen machine. */
  freeze(): void
  thaw(): void
  postmasterPid(): number
}

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-fault-pg-'))
  let db: EmbeddedDb = await startEmbedded(dir, { fast: true, supervise: false })
  const port = Number(new URL(db.url).port)
  const pidOf = () => Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0])
  const signalTree = (sig: NodeJS.Signals) => {
    for (const pid of processTree(pidOf())) {
      try {
        process.kill(pid, sig)
      } catch {
        // gone meanwhile
      }
    }
  }
  return {
    url: db.url,
    dir,
    port,
    stop: () => db.stop(),
    async start() {
      db = await startEmbedded(dir, { fast: true, supervise: false, port })
    },
    freeze: () => signalTree('SIGSTOP'),
    thaw: () => signalTree('SIGCONT'),
    postmasterPid: pidOf,
  }
}

/** `pid` and all its descendants, from /proc. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>()
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(d)])
    } catch {
      // exited while listed
    }
  }
  const out: number[] = []
  const walk = (p: number) => {
    out.push(p)
    for (const c of parents.get(p) ?? []) walk(c)
  }
  walk(pid)
  return out
}

/** Polls `check` until it is truthy or `withinMs` passes; answers how long it took (Infinity: never). */
export async function within(withinMs: number, check: () => Promise<unknown>, everyMs = 100): Promise<number> {
  const started = performance.now()
  for (;;) {
    if (await check().catch(() => false)) return performance.now() - started
    if (performance.now() - started > withinMs) return Infinity
    await Bun.sleep(everyMs)
  }
}
