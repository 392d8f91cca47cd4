// The session a delivery drain holds (src/db/webhook-delivery.ts `holdForDrain`): its claims commit
// synchronously even on a server whose default is asynchronous (the attempt log holds a send before it
// goes out), and the connection goes back to the pool with the server's defaults.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { testDatabaseUrl } from '../harness/db.ts'
import { connect, type Sql } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { holdForDrain } from '../../src/db/webhook-delivery.ts'

let pool: Sql

beforeAll(async () => {
  const url = await testDatabaseUrl()
  const admin = connect(url, 1)
  await migrate(admin)
  // A server set to commit asynchronously (as a fast test or bench server is): new sessions start so.
  const [{ db }] = (await admin`select current_database() as db`) as { db: string }[]
  await admin.unsafe(`alter database "${db}" set synchronous_commit = off`)
  await admin.close()
  pool = connect(url, 1)
})

afterAll(async () => {
  await pool?.close()
})

const setting = async (sql: Sql) => ((await sql`select current_setting('synchronous_commit') as v`) as { v: string }[])[0]!.v

test('a drain commits synchronously on a server whose default is off, and hands the connection back with the default', async () => {
  expect(await setting(pool)).toBe('off')
  const drain = await holdForDrain(pool)
  try {
    expect(await setting(drain.conn)).toBe('on')
  } finally {
    await drain.release()
  }
  // The pool has one connection: this is the one the drain held.
  expect(await setting(pool)).toBe('off')
})
