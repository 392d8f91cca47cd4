// Migrations apply once, under an advisory lock, even when several processes start together; each is
// recorded with its checksum, and a start names any applied migration whose file changed since, and
// any applied one this release has no file for (a newer release ran it).
import { test, expect } from 'bun:test'
import { SQL } from 'bun'
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { migrate, migrationChecksum, MIGRATIONS_DIR } from '../../src/db/migrate.ts'
import { connect } from '../../src/db/sql.ts'
import { testDatabaseUrl } from '../harness/db.ts'

async function emptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = await testDatabaseUrl()
  const name = `portico_mig_${randomBytes(4).toString('hex')}`
  const admin = new SQL({ url: base, max: 1 })
  await admin.unsafe(`create database ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.close()
    },
  }
}

test('four processes migrating one empty database at once apply each migration exactly once', async () => {
  const { url, drop } = await emptyDatabase()
  const pools = Array.from({ length: 4 }, () => connect(url, 2))
  try {
    const applied = (await Promise.all(pools.map((db) => migrate(db)))).map((r) => r.applied)
    const all = applied.flat()
    expect(new Set(all).size).toBe(all.length)
    expect(all.length).toBeGreaterThan(0)
    expect(applied.filter((a) => a.length > 0)).toHaveLength(1)
    const [row] = await pools[0]!`select count(*)::int as n, count(checksum)::int as summed from schema_migrations`
    expect(row).toEqual({ n: all.length, summed: all.length })
    expect((await migrate(pools[1]!)).applied).toEqual([])
  } finally {
    await Promise.all(pools.map((p) => p.close()))
    await drop()
  }
})

test('an applied migration whose file changed is named with both checksums; one without a file is named as unknown; neither runs again', async () => {
  const { url, drop } = await emptyDatabase()
  const dir = mkdtempSync(join(tmpdir(), 'portico-migrations-'))
  cpSync(MIGRATIONS_DIR, dir, { recursive: true })
  const db = connect(url, 2)
  try {
    expect((await migrate(db, dir)).changed).toEqual([])
    const file = join(dir, '0006_monitor.sql')
    const before = readFileSync(file, 'utf8')
    writeFileSync(file, `${before}\ncreate table edited_after_release (id int);\n`)
    rmSync(join(dir, '0008_share_links.sql'))
    const report = await migrate(db, dir)
    expect(report.applied).toEqual([])
    expect(report.changed).toEqual([{ name: '0006_monitor.sql', applied: migrationChecksum(before), file: migrationChecksum(readFileSync(file, 'utf8')) }])
    expect(report.unknown).toEqual(['0008_share_links.sql'])
    const [t] = await db`select to_regclass('edited_after_release') as t`
    expect(t.t).toBeNull()
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
    await drop()
  }
})

test('rows applied before checksums were recorded get the checksum of their file once', async () => {
  const { url, drop } = await emptyDatabase()
  const db = connect(url, 2)
  try {
    await migrate(db)
    await db`update schema_migrations set checksum = null`
    const report = await migrate(db)
    expect(report.recorded).toBeGreaterThan(20)
    expect(report.changed).toEqual([])
    expect((await migrate(db)).recorded).toBe(0)
  } finally {
    await db.close()
    await drop()
  }
})
