// A database that says no, as the integrator and the operator see it: every write refused is a 503
// `service_unavailable` with Retry-After and a reason that says why (never a 500), reads go on where the
// database still reads, nothing half-written is left, and /healthz and /readyz say which.
// - Read-only, as after a failover onto a replica (default_transaction_read_only on the database, its
//   sessions ended as a failover ends them).
// - Full: the database's files on a small tmpfs (a tablespace of its own) filled to the last byte.
// - Not answering: an embedded PostgreSQL frozen (SIGSTOP): every request is answered within the
//   stated bound (PATIENCE_MS + PROBE_TIMEOUT_MS, about 5 s) instead of hanging to its 30 s deadline.
import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { mkdtempSync, rmSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { testDatabaseUrl } from '../harness/db.ts'
import { PROV, provision, startPortico, type TestPortico } from '../harness/portico.ts'
import { startPdns } from '../harness/pdns.ts'
import { childrenOf } from '../harness/processes.ts'
import { startEmbedded } from '../../src/db/embedded.ts'
import { PATIENCE_MS, PROBE_TIMEOUT_MS } from '../../src/db/watch.ts'
import { migrate } from '../../src/db/migrate.ts'
import { connect } from '../../src/db/sql.ts'

const zone = `refuse${Date.now().toString(36)}.test`

/** A database of its own on the test server, and an admin handle on that server. */
async function ownDatabase(): Promise<{ name: string; url: string; admin: InstanceType<typeof SQL> }> {
  const base = await testDatabaseUrl()
  const admin = new SQL({ url: base, max: 1 })
  const name = `portico_refuse_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`
  await admin.unsafe(`create database ${name}`)
  const u = new URL(base)
  u.pathname = `/${name}`
  return { name, url: u.toString(), admin }
}

/** Every write path a workspace uses, once each; the answers. */
async function writes(p: TestPortico, key: string, tag: string) {
  return {
    create: await p.api('POST', '/v1/connections', { token: key, body: { domain: `${tag}.${zone}` } }),
    bulk: await p.api('POST', '/v1/connections:bulk', { token: key, body: { domains: Array.from({ length: 40 }, (_, i) => `${tag}-b${i}.${zone}`) } }),
    webhook: await p.api('POST', '/v1/webhooks', { token: key, body: { url: 'https://hooks.example.com/in', events: ['connection.live'] } }),
    provision: await p.api('POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': PROV }, body: { tenant_name: `Refused ${tag}` } }),
  }
}

function expectRefused(answers: Record<string, { status: number; body: any; headers: Headers }>, reason: string) {
  for (const [what, r] of Object.entries(answers)) {
    expect({ what, status: r.status, code: r.body?.code, reason: r.body?.details?.reason }).toEqual({ what, status: 503, code: 'service_unavailable', reason })
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
  }
}

async function until(what: string, ms: number, ok: () => Promise<boolean>): Promise<void> {
  const t0 = performance.now()
  while (!(await ok())) {
    if (performance.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`)
    await Bun.sleep(100)
  }
}

describe('a database that refuses writes', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {})
  })

  test('read-only (a failover onto a replica): writes are 503 database_read_only, reads go on, health and readiness say so, nothing half-written', async () => {
    const pdns = await startPdns()
    await pdns.createZone(zone)
    const { name, url, admin } = await ownDatabase()
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress }, { databaseUrl: url, poolSize: 4 })
    cleanups.push(async () => {
      await p.close()
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.close()
    })
    const ws = await provision(p)
    const made = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `before.${zone}` } })
    expect(made.status).toBe(201)
    const count = async () => (await p.api('GET', '/v1/connections:count', { token: ws.apiKey })).body.total

    const flip = async (on: boolean) => {
      await admin.unsafe(`alter database ${name} set default_transaction_read_only = ${on ? 'on' : 'off'}`)
      await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`)
      await until('sessions back', 10_000, async () => (await p.api('GET', '/readyz')).status === 200)
    }
    await flip(true)
    const before = await count()
    expectRefused(await writes(p, ws.apiKey, 'ro'), 'database_read_only')
    expect((await p.api('GET', `/v1/connections/${made.body.id}`, { token: ws.apiKey })).status).toBe(200)
    expect(await count()).toBe(before)
    const health = await p.api('GET', '/healthz')
    expect({ status: health.status, body: { status: health.body.status, db: health.body.db } }).toEqual({ status: 200, body: { status: 'degraded', db: 'read_only' } })
    expect((await p.api('GET', '/readyz')).body).toEqual({ ready: true, db: 'read_only' })

    await flip(false)
    // A session the failover ended is found on its next use; reads and transactions begin again on a fresh one: writes work again within seconds.
    let n = 0
    await until('writes again', 10_000, async () => (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `after${n++}.${zone}` } })).status === 201)
    expect((await p.api('GET', '/healthz')).body.db).toBe('ok')
  }, 60_000)

  test('out of disk space: writes are 503 database_full, never 500; reads go on; /healthz says full', async () => {
    const pdns = await startPdns()
    const { name, url, admin } = await ownDatabase()
    // The database's files on a 48 MB tmpfs owned by the server's user (a tablespace of its own).
    const dir = mkdtempSync(join(tmpdir(), 'portico-full-'))
    chmodSync(dir, 0o755)
    const serverUid = Bun.spawnSync(['id', '-u', 'postgres']).stdout.toString().trim()
    const serverGid = Bun.spawnSync(['id', '-g', 'postgres']).stdout.toString().trim()
    const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=48m,uid=${serverUid},gid=${serverGid},mode=700`, 'none', dir])
    if (mount.exitCode !== 0) throw new Error(`precondition: mounting a tmpfs needs root: ${mount.stderr}`)
    const space = `portico_full_${name.slice(-10)}`
    cleanups.push(async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.unsafe(`drop tablespace if exists ${space}`)
      await admin.close()
      Bun.spawnSync(['umount', '-l', dir])
      rmSync(dir, { recursive: true, force: true })
    })
    await admin.unsafe(`create tablespace ${space} location '${dir}'`)
    await admin.unsafe(`alter database ${name} set tablespace ${space}`)
    const pool = connect(url, 1)
    await migrate(pool)
    await pool.close()
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress }, { databaseUrl: url, poolSize: 4 })
    cleanups.push(() => p.close())
    const ws = await provision(p)
    const made = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `kept.${zone}` } })
    expect(made.status).toBe(201)

    // Fill the disk to the last byte.
    const filler = join(dir, 'filler')
    Bun.spawnSync(['dd', 'if=/dev/zero', `of=${filler}`, 'bs=64k'], { stderr: 'ignore' })
    const answers: { status: number; reason?: string; retry: string | null }[] = []
    for (let i = 0; i < 6; i++) {
      for (const r of Object.values(await writes(p, ws.apiKey, `full${i}`))) answers.push({ status: r.status, reason: r.body?.details?.reason, retry: r.headers.get('retry-after') })
      if (answers.some((a) => a.reason === 'database_full')) break
    }
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([])
    expect(answers.filter((a) => a.status === 503 && !(Number(a.retry) > 0))).toEqual([])
    expect(answers.some((a) => a.reason === 'database_full')).toBe(true)
    expect((await p.api('GET', `/v1/connections/${made.body.id}`, { token: ws.apiKey })).status).toBe(200)
    const health = await p.api('GET', '/healthz')
    expect({ status: health.status, db: health.body.db }).toEqual({ status: 200, db: 'full' })

    // Space again: writes work again.
    rmSync(filler)
    await until('writes again', 15_000, async () => (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `again.${zone}` } })).status === 201)
  }, 90_000)
})

describe('a database that does not answer', () => {
  test(`frozen (SIGSTOP): every request is answered 503 database_not_answering within ${(PATIENCE_MS + PROBE_TIMEOUT_MS) / 1000} s and a little, then served again`, async () => {
    const pdns = await startPdns()
    const dataDir = mkdtempSync(join(tmpdir(), 'portico-frozen-'))
    chmodSync(dataDir, 0o755)
    const pg = await startEmbedded(dataDir, { fast: true })
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress }, { databaseUrl: pg.url, poolSize: 4 })
    try {
      const ws = await provision(p)
      const made = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `frozen.${zone}` } })
      expect(made.status).toBe(201)
      const frozen = [pg.pid()!, ...childrenOf(pg.pid()!)]
      for (const pid of frozen) process.kill(pid, 'SIGSTOP')
      let answers: { what: string; status: number; reason?: string; ms: number }[] = []
      try {
        const timed = async (what: string, f: () => Promise<{ status: number; body: any }>) => {
          const t0 = performance.now()
          const r = await f()
          return { what, status: r.status, reason: r.body?.details?.reason, ms: performance.now() - t0 }
        }
        // Twenty requests at once (reads and writes), then twenty more once it is known silent.
        const burst = () =>
          Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              i % 2
                ? timed('read', () => p.api('GET', `/v1/connections/${made.body.id}`, { token: ws.apiKey }))
                : timed('create', () => p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `f${i}-${performance.now().toFixed(0)}.${zone}` } })),
            ),
          )
        answers = [...(await burst()), ...(await burst())]
      } finally {
        for (const pid of frozen) process.kill(pid, 'SIGCONT')
      }
      const bound = PATIENCE_MS + PROBE_TIMEOUT_MS + 1_500
      expect(answers.filter((a) => a.status !== 503 || a.reason !== 'database_not_answering')).toEqual([])
      expect(answers.filter((a) => a.ms > bound).map((a) => `${a.what} ${Math.round(a.ms)} ms`)).toEqual([])
      // Once silent, known at once.
      expect(Math.max(...answers.slice(20).map((a) => a.ms))).toBeLessThan(500)
      await until('served again', 15_000, async () => (await p.api('GET', `/v1/connections/${made.body.id}`, { token: ws.apiKey })).status === 200)
    } finally {
      await p.close()
      await pg.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 90_000)
})
