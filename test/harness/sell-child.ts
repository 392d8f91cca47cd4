// A Portico in a process of its own, for a test that kills it with SIGKILL in the middle of a
// purchase. Settings come as JSON in PORTICO_CHILD_ENV, the database in PORTICO_CHILD_DB; it makes
// the one-call purchase described by PORTICO_CHILD_PURCHASE (`{token, key, body}`) and prints the
// status it got, unless it is killed first.
import { createPortico } from '../../src/server.ts'
import { testConfig } from './portico.ts'

const env = JSON.parse(process.env.PORTICO_CHILD_ENV!) as Record<string, string>
const purchase = JSON.parse(process.env.PORTICO_CHILD_PURCHASE!) as { token: string; key: string; body: unknown }
// A small pool: the test process holds its own connections to the same server.
const portico = await createPortico(testConfig(env), { databaseUrl: process.env.PORTICO_CHILD_DB!, poolSize: 2 })
const res = await portico.handle(
  new Request('http://portico.test/v1/registrar/purchase', {
    method: 'POST',
    headers: { authorization: `Bearer ${purchase.token}`, 'idempotency-key': purchase.key, 'content-type': 'application/json' },
    body: JSON.stringify(purchase.body),
  }),
)
console.log(`status ${res.status}`)
await portico.close()
