// Portico as an operator runs it: real `bun src/main.ts` (or `npm start`) processes on loopback ports,
// their JSON log lines kept, and a client that behaves like a retrying load balancer: a connection
// refused (nobody listens on that port now) is tried on the next process; anything else that is not an
// answer (a connection reset, a socket closed mid-answer) is counted as a reset the client saw.
import { spawn, type Subprocess } from 'bun'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '..', '..')
const setpriv = Bun.which('setpriv')

export interface Proc {
  name: string
  port: number
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  /** Every JSON line it logged so far (stdout and stderr). */
  lines: Record<string, unknown>[]
  /** Lines that were not JSON (a crash's stack, npm's own words). */
  text: string[]
  exited: Promise<number>
}

export function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

async function collect(stream: ReadableStream<Uint8Array>, p: Pick<Proc, 'lines' | 'text'>): Promise<void> {
  const decoder = new TextDecoder()
  let rest = ''
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true })
    const parts = rest.split('\n')
    rest = parts.pop()!
    for (const line of parts) {
      if (!line.trim()) continue
      try {
        p.lines.push(JSON.parse(line))
      } catch {
        p.text.push(line)
      }
    }
  }
}

/**
 * Starts `bun src/main.ts` (or `npm start`, as a supervisor would) with `env`, and waits until /readyz
 * (`readyPath`: an earlier release had only /healthz) answers 200. `cwd`: another checkout (a release). `pdeathsig`: the child dies with this test process (not for npm: npm must be the
 * process a supervisor signals).
 */
export async function startProcess(name: string, env: Record<string, string>, opts: { port?: number; npm?: boolean; cwd?: string; readyPath?: string } = {}): Promise<Proc> {
  // The test server's connection limit is shared with every other test process on the machine: a start
  // refused by it ("too many clients", 53300) is a precondition, tried again a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(name, env, opts)
    } catch (err) {
      if (attempt >= 4 || !String((err as Error).message).includes('53300')) throw err
      await Bun.sleep(2_000 * attempt)
    }
  }
}

async function startOnce(name: string, env: Record<string, string>, opts: { port?: number; npm?: boolean; cwd?: string; readyPath?: string }): Promise<Proc> {
  const port = opts.port ?? freePort()
  const cmd = opts.npm ? ['npm', 'start', '--silent'] : [process.execPath, 'src/main.ts']
  const proc = spawn(!opts.npm && setpriv ? [setpriv, '--pdeathsig', 'KILL', ...cmd] : cmd, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, DATABASE_URL: '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const p: Proc = { name, port, proc, lines: [], text: [], exited: proc.exited }
  void collect(proc.stdout, p)
  void collect(proc.stderr, p)
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}: ${p.text.slice(-10).join('\n')} ${JSON.stringify(p.lines.slice(-5))}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}${opts.readyPath ?? '/readyz'}`, { keepalive: false })).status === 200) return p
    } catch {
      // not listening yet
    }
    await Bun.sleep(100)
  }
  proc.kill('SIGKILL')
  throw new Error(`${name} did not become ready`)
}

/** The log lines of `p` with this message. */
export const logged = (p: Proc, msg: string) => p.lines.filter((l) => l.msg === msg)

/** Every process on the machine whose command line, working directory or open files name `needle`. */
export function processesNaming(needle: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').trim()
      let cwd = ''
      try {
        cwd = readlinkSync(`/proc/${d}/cwd`)
      } catch {
        // another user's process
      }
      if (cmd.includes(needle) || cwd.startsWith(needle)) out.push({ pid: Number(d), cmd })
    } catch {
      // gone
    }
  }
  return out
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return st.slice(st.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** The children of `pid` (from /proc). */
export function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8')
      if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d))
    } catch {
      // gone
    }
  }
  return out
}

export interface Outcome {
  status: number
  body: any
  /** Connections refused before this answer (tried on the next process). */
  refused: number
  /** Set when the client saw something other than an answer or a refusal: a reset, a socket closed mid-answer. */
  reset?: string
  ms: number
}

/**
 * One request through a retrying client over `ports` (a new connection each time, as a browser after
 * `Connection: close`): refused connections move on to the next port, up to `tries` times.
 */
export async function request(ports: () => number[], start: number, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; tries?: number; timeoutMs?: number } = {}): Promise<Outcome> {
  const began = performance.now()
  let refused = 0
  for (let i = 0; i < (opts.tries ?? 40); i++) {
    const list = ports()
    const port = list[(start + i) % list.length]!
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        keepalive: false,
        headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000),
      })
      const text = await res.text()
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // not JSON
      }
      return { status: res.status, body, refused, ms: performance.now() - began }
    } catch (err) {
      const code = (err as { code?: string }).code ?? ''
      if (code === 'ConnectionRefused' || code === 'ECONNREFUSED') {
        refused++
        await Bun.sleep(20)
        continue
      }
      return { status: -1, body: null, refused, reset: `${code} ${(err as Error).message}`, ms: performance.now() - began }
    }
  }
  return { status: -1, body: null, refused, reset: 'every process refused the connection', ms: performance.now() - began }
}
