// Migrations apply once, under an advisory lock, even when several processes start together.
import { test, expect } from 'bun:test'
import { SQL } from 'bun'
import { randomBytes } from 'node:crypto'
import { migrate } from '../../src/db/migrate.ts'
import { connect } from '../../src/db/sql.ts'
import { testDatabaseUrl } from '../harness/db.ts'

test('four processes migrating one empty database at once apply each migration exactly once', async () => {
  const base = await testDatabaseUrl()
  const name = `portico_mig_${randomBytes(4).toString('hex')}`
  const admin = new SQL({ url: base, max: 1 })
  await admin.unsafe(`create database ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  const pools = Array.from({ length: 4 }, () => connect(url.toString(), 2))
  try {
    const applied = await Promise.all(pools.map((db) => migrate(db)))
    const all = applied.flat()
    expect(new Set(all).size).toBe(all.length)
    expect(all.length).toBeGreaterThan(0)
    expect(applied.filter((a) => a.length > 0)).toHaveLength(1)
    const [row] = await pools[0]!`select count(*)::int as n from schema_migrations`
    expect(row.n).toBe(all.length)
    expect(await migrate(pools[1]!)).toEqual([])
  } finally {
    await Promise.all(pools.map((p) => p.close()))
    await admin.unsafe(`drop database if exists ${name} with (force)`)
    await admin.close()
  }
})
