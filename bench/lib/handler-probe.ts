// Ad-hoc: CPU µs per authenticated read inside one process (no HTTP server), vs SELECT 1 + Response.json.
import { benchDatabaseUrl, dropBenchDatabase } from './util.ts'
import { loadConfig } from '../../src/config.ts'
import { createPortico } from '../../src/server.ts'
import { connect } from '../../src/db/sql.ts'

const db = await benchDatabaseUrl()
const config = loadConfig({ APP_ENV: 'development', PROVISION_SECRET: 'bench-provision', SECRETS_KEY: '22'.repeat(32), DATA_DIR: '/tmp/portico-bench', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', PORTICO_ROLE: 'api', DATABASE_URL: db })
const portico = await createPortico(config, { databaseUrl: db })
const prov = await portico.handle(new Request('http://x/v1/tenants:provision', { method: 'POST', headers: { 'x-provision-secret': 'bench-provision', 'content-type': 'application/json' }, body: JSON.stringify({ tenant_name: 'Bench' }) }), '127.0.0.1').then((r) => r.json() as Promise<{ application_id: string; api_key: string }>)
const url = process.env.TARGET ? 'http://127.0.0.1:8080' + process.env.TARGET.replace('{app}', prov.application_id) : `http://127.0.0.1:8080/v1/applications/${prov.application_id}`
const headers = { authorization: `Bearer ${prov.api_key}`, host: '127.0.0.1:8080', 'user-agent': 'wrk' }
const sql = connect(db, 10)
const N = Number(process.env.N ?? 20000)
async function run(fn: () => Promise<Response>): Promise<number> {
  let left = N
  const c0 = process.cpuUsage()
  await Promise.all(Array.from({ length: 50 }, async () => { while (left-- > 0) { const r = await fn(); await r.arrayBuffer(); if (r.status !== 200) throw new Error(String(r.status)) } }))
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / N
}
const bs: number[] = [], ps: number[] = []
for (let i = 0; i < Number(process.env.ROUNDS ?? 6); i++) {
  bs.push(await run(async () => Response.json((await sql`select 1 as one`)[0])))
  ps.push(await run(() => portico.handle(new Request(url, { headers }), '127.0.0.1')))
}
const min = (xs: number[]) => Math.min(...xs)
console.error(`min of ${bs.length}: baseline ${min(bs).toFixed(1)} µs/req   portico handle ${min(ps).toFixed(1)} µs/req   extra ${(min(ps) - min(bs)).toFixed(1)}   (all portico: ${ps.map((x) => x.toFixed(0)).join(' ')})`)
await portico.close(); await sql.close(); await dropBenchDatabase(); process.exit(0)
