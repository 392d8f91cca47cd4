// A fresh, empty database for one test process. With DATABASE_URL (CI, this machine's server) a new
// database is created on that server and dropped at exit; without it an embedded PostgreSQL is started
// under .test-data/ (fsync off: test data only), so `npm test` works on a bare machine.
import { SQL } from 'bun'
import { join } from 'node:path'
import { startEmbedded } from '../../src/db/embedded.ts'
import { randomBytes } from 'node:crypto'

let pending: Promise<string> | null = null
const cleanups: (() => Promise<void>)[] = []

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

async function create(): Promise<string> {
  let base = process.env.DATABASE_URL
  if (!base) {
    const embedded = await startEmbedded(join(import.meta.dir, '..', '..', '.test-data'), { fast: true })
    cleanups.push(() => embedded.stop())
    base = embedded.url
  }
  return createOn(base)
}

async function createOn(base: string): Promise<string> {
  const name = `portico_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`
  const admin = new SQL({ url: base, max: 1 })
  await admin.unsafe(`create database ${name}`)
  await admin.close()
  cleanups.unshift(async () => {
    const a = new SQL({ url: base, max: 1 })
    await a.unsafe(`drop database if exists ${name} with (force)`).catch(() => {})
    await a.close()
  })
  return withDatabase(base, name)
}

/** The URL of this test process's own database (created on first call). */
export function testDatabaseUrl(): Promise<string> {
  pending ??= create()
  return pending
}

/**
 * One more empty database on the same server, dropped with the run's: for a process started with
 * secrets of its own (a development start), whose tables must not meet this process's.
 */
export async function separateDatabaseUrl(): Promise<string> {
  return createOn(await testDatabaseUrl())
}

export async function dropTestDatabase(): Promise<void> {
  for (const c of cleanups.splice(0)) await c()
}
