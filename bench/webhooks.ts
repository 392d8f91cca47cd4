// bench/webhooks: delivers 10,000 events to a loopback receiver through the real path (fan-out
// trigger, locked batches, SSRF check with a DNS lookup avoided by an address literal, signing,
// pinned keep-alive POSTs, one attempt row per try) and prints deliveries per second next to the
// rate of plain signed POSTs sent by a script to the same receiver with the same concurrency.
// Both sides are warmed up with 1,000 events first. Goal: at least 0.5 of the script's rate.
import { benchWorkspace, dropBenchDatabase, fmt, startChild } from './lib/util.ts'
import { loadConfig } from '../src/config.ts'
import { deliverAll } from '../src/domain/webhook-delivery.ts'
import { encrypt } from '../src/crypto.ts'
import { newWebhookSecret, webhookHeaders } from '../src/adapters/webhook-signing.ts'
import { newId } from '../src/ids.ts'
import { Resolver } from '../src/adapters/resolver.ts'
import { createApplication } from '../src/domain/tenancy.ts'
import { record } from './lib/record.ts'
import { cpuBetween, databaseCpu, processCpu } from './lib/cpu.ts'

const N = Number(process.env.BENCH_EVENTS ?? 10_000)
const UNORDERED = process.env.BENCH_UNORDERED === '1'
const CONCURRENCY = 128 // the delivery sweep's sends in flight (DELIVERY_CONCURRENCY)
const config = loadConfig({ APP_ENV: 'test', SECRETS_KEY: '33'.repeat(32), WEBHOOK_ALLOW_LOOPBACK: '1', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/portico-bench' })
const rx = await startChild([process.execPath, 'bench/lib/receiver.ts'], {}, '/count')
const url = `http://127.0.0.1:${rx.port}/hooks`
const { db, clock, now, tenant, app } = await benchWorkspace()
const secret = newWebhookSecret()
await db`insert into webhooks (id, tenant_id, application_id, url, events, secret_sealed, created_at)
         values (${newId('whk')}, ${tenant.id}, ${app.id}, ${url}, '{}', ${encrypt(config.secretsKey, secret, 'webhook-secret')}, ${now})`

// BENCH_IDLE_ENDPOINTS: that many more endpoints (of another application) with nothing queued, as a
// database serving many integrators holds; a claim should not pay for them.
const IDLE = Number(process.env.BENCH_IDLE_ENDPOINTS ?? 0)
if (IDLE) {
  const other = (await createApplication(db, tenant.id, 'Idle', 'live', now)).app
  await db`insert into webhooks (id, tenant_id, application_id, url, events, secret_sealed, created_at)
           select 'whk_idle' || g, ${tenant.id}, ${other.id}, ${url}, '{}', ${encrypt(config.secretsKey, secret, 'webhook-secret')}, ${now}
           from generate_series(1, ${IDLE}) g`
}

const payload = (i: number) => ({
  id: newId('evt', now.getTime()),
  type: 'connection.live',
  connection_id: newId('con'),
  application_id: app.id,
  domain: `shop${i}.example.com`,
  subdomain: `shop${i}`,
  setup_type: 'manual',
  propagation_status: 'success',
  data: { records_propagated: [{ type: 'CNAME', host: `shop${i}`, value: 'edge.portico.test' }], records_non_propagated: [] },
  created_at: now.toISOString(),
})

async function seed(count = N) {
  await db`delete from webhook_attempts`
  await db`delete from webhook_deliveries`
  await db`delete from events`
  const events = Array.from({ length: count }, (_, i) => payload(i))
  for (let i = 0; i < N; i += 2000) {
    // Each event is its connection's first (sequence 1), as a sweep of connections going live writes
    // them: every delivery takes the path of in-order delivery per connection (migration 0120).
    // BENCH_UNORDERED=1 leaves them without a connection, as events before that migration were.
    const rows = events.slice(i, i + 2000).map((e) => ({ id: e.id, type: e.type, payload: e, connection_id: UNORDERED ? null : e.connection_id }))
    await db`insert into events (id, tenant_id, application_id, connection_id, sequence, type, payload, created_at)
             select id, ${tenant.id}, ${app.id}, connection_id, case when connection_id is null then null else 1 end, type, payload, ${now}
             from jsonb_to_recordset(${rows}::jsonb) as r(id text, type text, payload jsonb, connection_id text)`
  }
  return events
}

async function scriptRate(events: ReturnType<typeof payload>[]): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < events.length) {
        const e = events[next++]!
        const body = JSON.stringify(e)
        const r = await fetch(url, { method: 'POST', headers: webhookHeaders(secret, e.id, Math.floor(Date.now() / 1000), body), body })
        await r.arrayBuffer()
        if (r.status !== 204) throw new Error(`receiver answered ${r.status}`)
      }
    }),
  )
  return events.length / ((performance.now() - started) / 1000)
}

const dns = new Resolver({ servers: ['127.0.0.1:53'], timeoutMs: 500 })
const script: number[] = []
const portico: number[] = []
// A warm-up of 1,000 events on both sides, not counted: the first pass of either path pays for JIT
// compilation and connection set-up.
await scriptRate(await seed(1000))
await deliverAll({ db, clock, config, dns })
// CPU microseconds per item, summed over the rounds: this process (the script's POSTs, or the
// delivery sweep), PostgreSQL's backends for this database, and the receiver. On a busy machine these
// move less than the rates do.
const cpu = { script: 0, scriptRx: 0, portico: 0, pg: 0, rx: 0 }
const self = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}
for (let round = 0; round < 2; round++) {
  const events = await seed()
  let c0 = self()
  let r0 = processCpu(rx.proc.pid)
  script.push(await scriptRate(events))
  cpu.script += self() - c0
  cpu.scriptRx += processCpu(rx.proc.pid) - r0
  const pg0 = await databaseCpu(db)
  c0 = self()
  r0 = processCpu(rx.proc.pid)
  const started = performance.now()
  const sent = await deliverAll({ db, clock, config, dns })
  const secs = (performance.now() - started) / 1000
  cpu.portico += self() - c0
  cpu.rx += processCpu(rx.proc.pid) - r0
  cpu.pg += cpuBetween(pg0, await databaseCpu(db))
  const [{ n }] = await db`select (select count(*) from webhook_attempts where delivered)::int - (select count(*) from webhook_deliveries)::int as n`
  if (sent !== N || n !== N) throw new Error(`attempted ${sent}, delivered ${n}, expected ${N}`)
  portico.push(N / secs)
  console.log(`round ${round + 1}: script ${fmt(script[round]!)} POST/s, portico ${fmt(portico[round]!)} deliveries/s`)
}
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
console.log(`webhooks (${N} events, ${CONCURRENCY} in flight, loopback receiver${IDLE ? `, ${IDLE} idle endpoints` : ''}):`)
console.log(`  plain signed POSTs from a script: ${fmt(avg(script))} /s`)
console.log(`  portico delivery sweep:           ${fmt(avg(portico))} deliveries/s (each recorded as an attempt)`)
const us = (s: number) => ((s / (2 * N)) * 1e6).toFixed(0)
const cpuLine = `CPU a delivery: portico ${us(cpu.portico)} + postgres ${us(cpu.pg)} + receiver ${us(cpu.rx)} µs; a script POST ${us(cpu.script)} + receiver ${us(cpu.scriptRx)} µs`
console.log(`  ${cpuLine}`)
console.log(`  ratio: ${(avg(portico) / avg(script)).toFixed(2)} (goal >= 0.50)`)
await record('webhooks', { ratio: avg(portico) / avg(script) }, `${(avg(portico) / avg(script)).toFixed(2)}: ${fmt(avg(portico))} deliveries/s vs ${fmt(avg(script))} POSTs/s (rounds ${portico.map((x, i) => (x / script[i]!).toFixed(2)).join(', ')}); ${cpuLine}`, { events: N, idle_endpoints: IDLE, path: UNORDERED ? 'unordered' : 'in-order' })
await dns.close()
await db.close()
await dropBenchDatabase()
rx.proc.kill()
