// Ad-hoc: what a page of 50 connections costs Portico's process by how it is read.
import { benchDatabaseUrl, dropBenchDatabase } from './util.ts'
import { connect } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { seedConnections, seedWorkspaces, settle, tenantId } from './scale-seed.ts'
import { connectionOut } from '../../src/domain/connections.ts'
import { commandCpu } from './cpu.ts'

const url = await benchDatabaseUrl()
const db = connect(url, 10)
await migrate(db)
const now = new Date()
await seedWorkspaces(db, now)
await seedConnections(db, 0, 10000, now, new Date(now.getTime() - 4 * 3600_000))
await settle(db)
const t = tenantId(1)
const N = 2000
async function run(fn: () => Promise<unknown>): Promise<[number, number]> {
  let left = N
  const c0 = process.cpuUsage(), p0 = commandCpu('postgres')
  await Promise.all(Array.from({ length: 20 }, async () => { while (left-- > 0) await fn() }))
  const c = process.cpuUsage(c0)
  return [(c.user + c.system) / N, ((commandCpu('postgres') - p0) * 1e6) / N]
}
const ts = (c: string) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
const variants: [string, () => Promise<unknown>][] = [
  ['select * + out + stringify', async () => JSON.stringify((await db`select * from connections where tenant_id = ${t} and disconnected_at is null and id > '' order by id limit 51`).map(connectionOut))],
  ['select * only', () => db`select * from connections where tenant_id = ${t} and disconnected_at is null and id > '' order by id limit 51`],
  ['select id only', () => db`select id from connections where tenant_id = ${t} and disconnected_at is null and id > '' order by id limit 51`],
  ['select 1 row *', () => db`select * from connections where tenant_id = ${t} and disconnected_at is null and id > '' order by id limit 1`],
  ['json_agg to_json text', () => db`select coalesce(json_agg(c)::text, '[]') as j from (select * from connections where tenant_id = ${t} and disconnected_at is null and id > '' order by id limit 51) c`],
  ['timestamps as text', () => db.unsafe(`select id, application_id, domain, apex_domain, status, end_user_ref, www_redirect, rail, managed, provider_id, desired_records::text, records_source, records_outdated_at, error_code, error_message, last_result::text, check_count, ${ts('last_checked_at')}, ${ts('next_check_at')}, ${ts('propagating_since')}, ${ts('live_at')}, ${ts('failed_at')}, ${ts('retried_at')}, ${ts('created_at')}, ${ts('updated_at')} from connections where tenant_id = $1 and disconnected_at is null and id > '' order by id limit 51`, [t])],
]
for (let r = 0; r < 3; r++) for (const [name, fn] of variants) { const [a, b] = await run(fn); console.error(`${name.padEnd(32)} portico ${a.toFixed(0).padStart(5)} µs  postgres ${b.toFixed(0).padStart(5)} µs`) }
await db.close(); await dropBenchDatabase(); process.exit(0)
