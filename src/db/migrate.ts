// Forward-only plain SQL migrations from migrations/NNNN_name.sql. Applied at start, each once,
// inside one transaction holding an advisory lock, so processes starting together apply them once.
//
// A migration that has landed on main never changes (test/unit/released-migrations.test.ts): each
// applied one is recorded with the SHA-256 of its text, and a start names every applied migration
// whose file now differs (the database ran other text than the file says; fix forward with a new
// migration) and every applied one this release has no file for (a newer release ran it: a rollback).
// Rows applied before checksums were recorded (migration 0150's release) take the file's checksum:
// 0150 brought every variant of the edited ones to what their files make.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sql } from './sql.ts'

const LOCK_KEY = 0x706f7274 // "port"
export const MIGRATIONS_DIR = join(import.meta.dir, '..', '..', 'migrations')

export const migrationChecksum = (text: string) => createHash('sha256').update(text).digest('hex')

export interface MigrationReport {
  /** Applied by this call, in order. */
  applied: string[]
  /** Applied earlier from other text than the file has now. */
  changed: { name: string; applied: string; file: string }[]
  /** Applied in this database with no file here (a newer release's). */
  unknown: string[]
  /** Applied earlier, before checksums were recorded: their checksums were recorded now. */
  recorded: number
}

export function migrationFiles(dir: string = MIGRATIONS_DIR): { name: string; text: string; checksum: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8')
      return { name, text, checksum: migrationChecksum(text) }
    })
}

export async function migrate(sql: Sql, dir: string = MIGRATIONS_DIR): Promise<MigrationReport> {
  const files = migrationFiles(dir)
  return sql.begin(async (tx) => {
    // A migration may rewrite a large table: no STATEMENT_TIMEOUT_MS here.
    await tx`set local statement_timeout = 0`
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`
    // Nullable: an older release that applies a migration of its own writes no checksum.
    await tx`alter table schema_migrations add column if not exists checksum text`
    const rows = (await tx`select name, checksum from schema_migrations`) as { name: string; checksum: string | null }[]
    const done = new Map(rows.map((r) => [r.name, r.checksum]))
    const report: MigrationReport = { applied: [], changed: [], unknown: [], recorded: 0 }
    const onDisk = new Set(files.map((f) => f.name))
    report.unknown = rows.map((r) => r.name).filter((n) => !onDisk.has(n)).sort()
    for (const file of files) {
      if (!done.has(file.name)) continue
      const was = done.get(file.name)
      if (was === null) {
        await tx`update schema_migrations set checksum = ${file.checksum} where name = ${file.name}`
        report.recorded++
      } else if (was !== file.checksum) report.changed.push({ name: file.name, applied: was!, file: file.checksum })
    }
    for (const file of files) {
      if (done.has(file.name)) continue
      await tx.unsafe(file.text)
      await tx`insert into schema_migrations (name, checksum) values (${file.name}, ${file.checksum})`
      report.applied.push(file.name)
    }
    return report
  })
}
