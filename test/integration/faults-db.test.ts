// Fault suite, the database: Portico runs as a real process against a PostgreSQL cluster the test owns,
// which is stopped, frozen and killed under it. Bounds asserted (REQUEST_TIMEOUT_MS=3000,
// STATEMENT_TIMEOUT_MS=2000 here):
// - database stopped: every answer is 503 service_unavailable with Retry-After, none a 500, each
//   within 4.5 s; /healthz says db: error (503) within 3 s; the first success comes within 5 s of the
//   database being back;
// - database frozen: creates answer 503 within 4.5 s and none of them is committed after the database
//   resumes; a create succeeds within 5 s of the resume;
// - the embedded PostgreSQL killed with SIGKILL: restarted by Portico (logged), no 500 meanwhile, the
//   first success within 10 s, and the data still there;
// - Portico killed with SIGKILL in the middle of a bulk create: the retried bulk ends with exactly one
//   connection per domain, every one of them with its audit row.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { testDatabaseUrl } from '../harness/db.ts'
import { call, provisionOn, startChild, startCluster, within, type Answer, type Child, type Cluster } from '../harness/faults.ts'

let pdns: Pdns
const zone = `faultdb${Date.now().toString(36)}.test`
const DEADLINES = { REQUEST_TIMEOUT_MS: '3000', STATEMENT_TIMEOUT_MS: '2000' }

beforeAll(async () => {
  pdns = await startPdns()
  await pdns.createZone(zone)
})

/** Every answer of a database outage: a 503 the client can act on, never a 500. */
function expectUnavailable(answers: Answer[], boundMs: number) {
  expect(answers.length).toBeGreaterThan(0)
  for (const a of answers) {
    expect({ status: a.status, code: a.body?.code }).toEqual({ status: 503, code: 'service_unavailable' })
    expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(a.ms).toBeLessThan(boundMs)
  }
}

describe('an external database that goes away', () => {
  let cluster: Cluster
  let portico: Child
  let ws: { apiKey: string }

  beforeAll(async () => {
    cluster = await startCluster()
    portico = await startChild({ DATABASE_URL: cluster.url, DNS_RESOLVERS: pdns.dnsAddress, PORTICO_ROLE: 'all', ...DEADLINES })
    ws = await provisionOn(portico.url)
  }, 60_000)

  afterAll(async () => {
    await portico?.stop()
    cluster?.thaw()
    await cluster?.stop().catch(() => {})
  })

  test('stopped: 503 with Retry-After at once, never 500; back within 5 s of the database', async () => {
    expect((await call(portico.url, 'GET', '/v1/connections', { token: ws.apiKey })).status).toBe(200)
    await cluster.stop()
    const answers: Answer[] = []
    const until = performance.now() + 4000
    let i = 0
    while (performance.now() < until) {
      answers.push(
        ...(await Promise.all([
          call(portico.url, 'GET', '/v1/connections', { token: ws.apiKey }),
          call(portico.url, 'POST', '/v1/connections', { token: ws.apiKey, body: { domain: `stopped${i++}.${zone}` } }),
        ])),
      )
      await Bun.sleep(100)
    }
    expectUnavailable(answers, 4500)
    const health = await call(portico.url, 'GET', '/healthz')
    expect({ status: health.status, db: health.body.db }).toEqual({ status: 503, db: 'error' })
    expect(health.ms).toBeLessThan(3000)

    await cluster.start()
    const back = await within(5000, async () => (await call(portico.url, 'GET', '/v1/connections', { token: ws.apiKey })).status === 200)
    expect(back).toBeLessThan(5000)
    expect((await call(portico.url, 'POST', '/v1/connections', { token: ws.apiKey, body: { domain: `after.${zone}` } })).status).toBe(201)
    // None of the creates answered 503 was committed.
    const db = new SQL({ url: cluster.url, max: 1 })
    const [{ n }] = await db`select count(*)::int as n from connections where domain like ${'stopped%.' + zone}`
    await db.close()
    expect(n).toBe(0)
  }, 60_000)

  test('frozen: creates answer 503 by the deadline and none is committed when the database resumes', async () => {
    // A statement timeout longer than the freeze: only the request's deadline stands between the
    // creates and a commit after the client was told 503.
    const slow = await startChild({ DATABASE_URL: cluster.url, DNS_RESOLVERS: pdns.dnsAddress, PORTICO_ROLE: 'api', REQUEST_TIMEOUT_MS: '3000', STATEMENT_TIMEOUT_MS: '60000' })
    try {
      await frozen(slow)
    } finally {
      await slow.stop()
    }
  }, 60_000)

  async function frozen(portico: Child) {
    // Warm the pool so the creates run on open connections when the database stops answering.
    await Promise.all(Array.from({ length: 10 }, () => call(portico.url, 'GET', '/v1/connections', { token: ws.apiKey })))
    cluster.freeze()
    let answers: Answer[]
    try {
      answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(portico.url, 'POST', '/v1/connections', { token: ws.apiKey, body: { domain: `frozen${i}.${zone}` } })))
      const health = await call(portico.url, 'GET', '/healthz')
      expect(health.status).toBe(503)
      expect(health.ms).toBeLessThan(3000)
    } finally {
      cluster.thaw()
    }
    expectUnavailable(answers, 4500)
    const back = await within(5000, async () => (await call(portico.url, 'POST', '/v1/connections', { token: ws.apiKey, body: { domain: `thawed.${zone}` } })).status === 201)
    expect(back).toBeLessThan(5000)
    // The requests that answered 503 had their transactions refused at the commit: nothing appears later.
    await Bun.sleep(3000)
    const db = new SQL({ url: cluster.url, max: 1 })
    const rows = await db`select domain from connections where domain like ${'frozen%.' + zone}`
    await db.close()
    expect(rows).toEqual([])
  }
})

describe('the embedded PostgreSQL killed under Portico', () => {
  let portico: Child

  afterAll(async () => {
    await portico?.stop()
  })

  test('is restarted, logged; no 500 meanwhile; service back within 10 s with its data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portico-fault-embedded-'))
    portico = await startChild({ DATA_DIR: dataDir, DNS_RESOLVERS: pdns.dnsAddress, PORTICO_ROLE: 'all', ...DEADLINES, DATABASE_URL: '' })
    const ws = await provisionOn(portico.url)
    const pid = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0])
    process.kill(pid, 'SIGKILL')
    const killedAt = performance.now()
    const answers: Answer[] = []
    let firstOk = Infinity
    while (performance.now() - killedAt < 10_000) {
      const a = await call(portico.url, 'GET', '/v1/connections', { token: ws.apiKey })
      answers.push(a)
      if (a.status === 200) {
        firstOk = performance.now() - killedAt
        break
      }
      await Bun.sleep(100)
    }
    expect(firstOk).toBeLessThan(10_000)
    const failures = answers.filter((a) => a.status !== 200)
    for (const a of failures) expect({ status: a.status, code: a.body?.code }).toEqual({ status: 503, code: 'service_unavailable' })
    expect(portico.logs.some((l) => l.msg === 'embedded postgres restarted')).toBe(true)
    expect(portico.logs.some((l) => l.msg === 'embedded postgres exited; restarting')).toBe(true)
    // The tenant made before the kill is still there (its key still works, so does a create).
    expect((await call(portico.url, 'POST', '/v1/connections', { token: ws.apiKey, body: { domain: `embedded.${zone}` } })).status).toBe(201)
    // No logged error reads [object Object].
    expect(JSON.stringify(portico.logs)).not.toContain('[object Object]')
  }, 60_000)
})

describe('Portico killed in the middle of a bulk create', () => {
  let portico: Child

  afterAll(async () => {
    await portico?.stop()
  })

  test('the retried bulk makes exactly one connection per domain, each with its audit row', async () => {
    const url = await testDatabaseUrl()
    portico = await startChild({ DATABASE_URL: url, DNS_RESOLVERS: pdns.dnsAddress, PORTICO_ROLE: 'api' })
    const ws = await provisionOn(portico.url)
    const domains = Array.from({ length: 200 }, (_, i) => `bulk${i}.${zone}`)
    const db = new SQL({ url, max: 2 })
    try {
      const count = async () => (await db`select count(*)::int as n from connections where application_id = ${ws.appId}`)[0].n as number
      const first = call(portico.url, 'POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains } })
      const midway = await within(30_000, async () => (await count()) >= 30, 10)
      expect(midway).toBeLessThan(30_000)
      await portico.kill('SIGKILL')
      expect((await first).status).toBe(0) // the client never got its answer
      const atKill = await count()
      expect(atKill).toBeLessThan(200)
      // Every connection committed before the kill already has its audit row.
      const unaudited = async () =>
        (await db`
          select c.id from connections c where c.application_id = ${ws.appId}
          and not exists (select 1 from audit_log a where a.target_id = c.id and a.action = 'connections.bulk')`) as { id: string }[]
      expect(await unaudited()).toEqual([])

      await portico.restart()
      const again = await call(portico.url, 'POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains } })
      expect(again.status).toBe(200)
      expect(again.body.results.filter((r: { status: string }) => r.status === 'failed')).toEqual([])
      const rows = (await db`select domain, count(*)::int as n from connections where application_id = ${ws.appId} group by domain`) as { domain: string; n: number }[]
      expect(rows.length).toBe(200)
      expect(rows.every((r) => r.n === 1)).toBe(true)
      expect(await unaudited()).toEqual([])
    } finally {
      await db.close()
    }
  }, 90_000)
})
