// Baseline servers for bench/auth-read: a bare Bun.serve handler doing one query per request on the
// same database, with the same driver and pool size Portico uses. Without ROW_ID it is `SELECT 1`;
// with ROW_ID and ROW_TENANT it reads the application row Portico's answer reads, with the same
// statement (src/db/applications.ts applicationInTenant): what the read costs with no server around it.
import { connect } from '../../src/db/sql.ts'
import { applicationInTenant } from '../../src/db/applications.ts'

const sql = connect(process.env.DATABASE_URL!, Number(process.env.POOL_SIZE ?? 10))
const id = process.env.ROW_ID
const tenant = process.env.ROW_TENANT ?? ''
Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  async fetch() {
    if (id) return Response.json(await applicationInTenant(sql, tenant, id))
    const [row] = await sql`select 1 as one`
    return Response.json(row)
  },
})
