// Baseline server for bench/auth-read: a bare Bun.serve handler doing one `SELECT 1` per request on
// the same database, with the same driver and pool size Portico uses.
import { connect } from '../../src/db/sql.ts'

const sql = connect(process.env.DATABASE_URL!, Number(process.env.POOL_SIZE ?? 10))
Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  async fetch() {
    const [row] = await sql`select 1 as one`
    return Response.json(row)
  },
})
