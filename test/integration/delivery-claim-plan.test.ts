// A delivery drain reads each queued delivery by key, whatever the queue's statistics say
// (src/db/webhook-delivery.ts `claimNext` and `releaseStranded`, and the release of held deliveries,
// migration 0260). The drain plans its round trip once (a generic plan); planned while the statistics
// said the queue was empty (a vacuum after a drain: pages left, no rows), the claim's lease walked the
// whole queue once for each delivery it leased, the completion walked it again for the retries, none
// as they were, releasing a connection's next delivery looked through every held one for each
// connection, and the drain's end looked through the endpoint's queue for each held delivery. Here the
// queue is left in that state and a burst is drained; PostgreSQL's own counters say how many queue
// rows were fetched for each delivery.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { connect, type Sql } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { separateDatabaseUrl } from '../harness/db.ts'
import { MovableClock } from '../../src/clock.ts'
import { createApplication, createTenant } from '../../src/domain/tenancy.ts'
import { loadConfig } from '../../src/config.ts'
import { deliverAll } from '../../src/domain/webhook-delivery.ts'
import { holdForDrain, releaseStranded } from '../../src/db/webhook-delivery.ts'
import { encrypt } from '../../src/crypto.ts'
import { newWebhookSecret } from '../../src/adapters/webhook-signing.ts'
import { newId } from '../../src/ids.ts'
import { Resolver } from '../../src/adapters/resolver.ts'

const BURST = 1_000
const config = loadConfig({ APP_ENV: 'test', SECRETS_KEY: '33'.repeat(32), WEBHOOK_ALLOW_LOOPBACK: '1', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/portico-test' })
const receiver = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(null, { status: 204 }) })
const dns = new Resolver({ servers: ['127.0.0.1:53'], timeoutMs: 500 })
const clock = new MovableClock()
// One connection: the drain holds it, and the counters are read and flushed on it.
let db: Sql
let workspace: { tenantId: string; appId: string }

beforeAll(async () => {
  // A database of its own: its statistics and counters are this file's alone, and no autovacuum
  // gathers the queue's statistics behind the tests' backs.
  db = connect(await separateDatabaseUrl(), 1)
  await migrate(db)
  await db`alter table webhook_deliveries set (autovacuum_enabled = false)`
  const now = clock.now()
  const tenant = await createTenant(db, 'Plan', now)
  const { app } = await createApplication(db, tenant.id, 'Plan', 'live', now)
  workspace = { tenantId: tenant.id, appId: app.id }
  await db`insert into webhooks (id, tenant_id, application_id, url, events, secret_sealed, created_at)
           values (${newId('whk')}, ${tenant.id}, ${app.id}, ${`http://127.0.0.1:${receiver.port}/hook`}, '{}',
                   ${encrypt(config.secretsKey, newWebhookSecret(), 'webhook-secret')}, ${now})`
}, 60_000)

afterAll(async () => {
  await dns.close()
  await db?.close()
  receiver.stop(true)
})

/**
 * `n` events, `perConnection` to a connection (numbered 1, 2, ...): each queues one delivery to the
 * endpoint, those after a connection's first held until the one before leaves the queue.
 */
async function writeEvents(n: number, perConnection = 1): Promise<void> {
  const connections = Array.from({ length: Math.ceil(n / perConnection) }, () => newId('con'))
  const rows = Array.from({ length: n }, (_, i) => {
    const id = newId('evt', clock.now().getTime())
    const connection = connections[Math.floor(i / perConnection)]!
    return { id, connection, sequence: (i % perConnection) + 1, payload: { id, type: 'connection.live', connection_id: connection, domain: 'shop.example.com' } }
  })
  await db`insert into events (id, tenant_id, application_id, connection_id, sequence, type, payload, created_at)
           select id, ${workspace.tenantId}, ${workspace.appId}, connection, sequence, 'connection.live', payload, ${clock.now()}
           from jsonb_to_recordset(${rows}::jsonb) as r(id text, connection text, sequence int, payload jsonb)`
}

/** The queue as autovacuum leaves it after a drain: its pages kept, its statistics saying no rows. */
async function emptyQueueStatistics(): Promise<void> {
  await writeEvents(300)
  await db`delete from webhook_deliveries`
  await db`vacuum (truncate false, analyze) webhook_deliveries`
  const [stats] = (await db`select reltuples::int as rows, relpages::int as pages from pg_class where relname = 'webhook_deliveries'`) as { rows: number; pages: number }[]
  expect(stats!.rows).toBe(0)
  expect(stats!.pages).toBeGreaterThan(0)
}

/** Drains `n` events written `perConnection` to a connection: queue rows fetched a delivery. */
async function drainCost(n: number, perConnection: number): Promise<number> {
  await writeEvents(n, perConnection)
  const before = await queueRowsFetched()
  // (A drain reading a few rows a delivery takes well under a second; 20 s ends one walking the queue.)
  expect(await deliverAll({ db, clock, config, dns }, 20_000)).toBe(n)
  const perDelivery = ((await queueRowsFetched()) - before) / n
  const [left] = (await db`select count(*)::int as n from webhook_deliveries`) as { n: number }[]
  expect(left!.n).toBe(0)
  return perDelivery
}

/** Queue rows fetched through any of the queue's indexes, as PostgreSQL counts them. */
async function queueRowsFetched(on: Sql = db): Promise<number> {
  await on`select pg_stat_force_next_flush()`
  const [r] = (await on`select idx_tup_fetch::int as n from pg_stat_user_tables where relname = 'webhook_deliveries'`) as { n: number }[]
  return r!.n
}

test('after a vacuum saw the queue empty, a burst is drained reading a few queue rows a delivery', async () => {
  await emptyQueueStatistics()
  // Measured: about 5 (the claim's scan, the lease, the delete and its trigger's probe); a walk of the
  // queue per leased delivery was about 40 here (76 with 2,000 queued).
  expect(await drainCost(BURST, 1)).toBeLessThan(12)
}, 60_000)

test('so is a burst of five events a connection, each released when the one before leaves', async () => {
  await emptyQueueStatistics()
  // Measured: about 6; looking through the held deliveries for each connection was about 1,700 (4 ms of
  // PostgreSQL CPU a delivery).
  expect(await drainCost(BURST, 5)).toBeLessThan(12)
}, 60_000)

test("a drain's end finds the connection whose deliveries are all held, reading a few queue rows a queued delivery", async () => {
  await emptyQueueStatistics()
  await writeEvents(BURST, 5)
  // One connection's earliest delivery held too, as the race of a release and a new event leaves it.
  const [stranded] = (await db`
    update webhook_deliveries set next_attempt_at = 'infinity'
    where id = (select id from webhook_deliveries where next_attempt_at < 'infinity' order by id limit 1)
    returning connection_id`) as { connection_id: string }[]
  const drain = await holdForDrain(db)
  let released: number
  let fetched: number
  try {
    // (The counters read on the drain's connection: the pool's one.)
    const before = await queueRowsFetched(drain.conn)
    released = await releaseStranded(drain.conn)
    fetched = (await queueRowsFetched(drain.conn)) - before
  } finally {
    await drain.release()
  }
  expect(released).toBe(1)
  const due = (await db`select sequence::int from webhook_deliveries where connection_id = ${stranded!.connection_id} and next_attempt_at < 'infinity'`) as { sequence: number }[]
  expect(due).toEqual([{ sequence: 1 }])
  // Measured: about 1 (the held ones once, each connection's earliest once); looking for a due one of
  // the connection along the endpoint's due index was about 80 (2.5 s a call with 4,000 held).
  expect(fetched / BURST).toBeLessThan(3)
  expect(await deliverAll({ db, clock, config, dns }, 20_000)).toBe(BURST)
}, 60_000)
