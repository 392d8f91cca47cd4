// Forward-only plain SQL migrations from migrations/NNNN_name.sql. Applied at start, each once,
// inside one transaction holding an advisory lock, so processes starting together apply them once.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sql } from './sql.ts'

const LOCK_KEY = 0x706f7274 // "port"
export const MIGRATIONS_DIR = join(import.meta.dir, '..', '..', 'migrations')

export async function migrate(sql: Sql, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
  return sql.begin(async (tx) => {
    // A migration may rewrite a large table: no STATEMENT_TIMEOUT_MS here.
    await tx`set local statement_timeout = 0`
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`
    const done = new Set((await tx`select name from schema_migrations`).map((r: { name: string }) => r.name))
    const applied: string[] = []
    for (const file of files) {
      if (done.has(file)) continue
      await tx.unsafe(readFileSync(join(dir, file), 'utf8'))
      await tx`insert into schema_migrations (name) values (${file})`
      applied.push(file)
    }
    return applied
  })
}
