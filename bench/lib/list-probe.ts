// Ad-hoc: CPU µs per get and per list page inside one process, with the pieces of a list page apart.
import { benchDatabaseUrl, dropBenchDatabase } from './util.ts'
import { loadConfig } from '../../src/config.ts'
import { createPortico } from '../../src/server.ts'
import { connect } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { appId, seedConnections, seedWorkspaces, settle, tenantId } from './scale-seed.ts'
import { createKey } from '../../src/domain/tenancy.ts'
import { cpuBetween, databaseCpu } from './cpu.ts'

const url = await benchDatabaseUrl()
const db = connect(url, 10)
await migrate(db)
const now = new Date()
await seedWorkspaces(db, now)
await seedConnections(db, 0, Number(process.env.SIZE ?? 10000), now, new Date(now.getTime() - 4 * 3600_000))
await settle(db)
const key = (await createKey(db, { tenantId: tenantId(1), applicationId: appId(1), environment: 'live', role: 'owner', name: 'bench', isDefault: true, createdBy: null, now }))!.key
const config = loadConfig({ APP_ENV: 'development', SECRETS_KEY: '22'.repeat(32), DATA_DIR: '/tmp/portico-bench', LOG_LEVEL: 'info', PORTICO_ROLE: 'api', DATABASE_URL: url })
const portico = await createPortico(config, { databaseUrl: url })
const mine = (await db`select id from connections where tenant_id = ${tenantId(1)} and disconnected_at is null order by id limit 1000`) as { id: string }[]
const headers = { authorization: `Bearer ${key}`, host: '127.0.0.1:8080' }
const N = Number(process.env.N ?? 3000)
const pg: Record<string, number[]> = {}
async function run(fn: (i: number) => Promise<unknown>, name = ''): Promise<number> {
  let left = N
  const c0 = process.cpuUsage()
  const p0 = await databaseCpu(db)
  await Promise.all(Array.from({ length: 50 }, async () => { while (left-- > 0) await fn(left) }))
  const c = process.cpuUsage(c0)
  ;(pg[name] ??= []).push((cpuBetween(p0, await databaseCpu(db)) * 1e6) / N)
  return (c.user + c.system) / N
}
const req = async (u: string) => { const r = await portico.handle(new Request(u, { headers }), '127.0.0.1'); const b = await r.arrayBuffer(); if (r.status !== 200) throw new Error(String(r.status)); return b }
const res: Record<string, number[]> = {}
for (let i = 0; i < Number(process.env.ROUNDS ?? 4); i++) {
  for (const [name, fn] of ([
    ['get', (n: number) => req(`http://127.0.0.1:8080/v1/connections/${mine[n % mine.length]!.id}`)],
    ['list', () => req(`http://127.0.0.1:8080/v1/connections?limit=50`)],
    ['list deep', (n: number) => req(`http://127.0.0.1:8080/v1/connections?limit=50&cursor=${Buffer.from(mine[(n * 7) % 900]!.id).toString('base64url')}`)],
  ] as const).filter(([n]) => !process.env.ONLY || n === process.env.ONLY)) (res[name] ??= []).push(await run(fn as (i: number) => Promise<unknown>, name))
}
for (const [k, v] of Object.entries(res)) console.error(`${k.padEnd(20)} portico min ${Math.min(...v).toFixed(1)} µs   (${v.map((x) => x.toFixed(0)).join(' ')})   postgres min ${Math.min(...pg[k]!).toFixed(1)} µs (${pg[k]!.map((x) => x.toFixed(0)).join(' ')})`)
await portico.close(); await db.close(); await dropBenchDatabase(); process.exit(0)
