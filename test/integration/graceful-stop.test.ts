// Deploys, from the operator's and the widget's side: real processes, signals, a retrying client.
// - SIGTERM to `npm start` (what a supervisor or `docker stop` sends): every open long poll is answered
//   at once with the current state, a bulk create in flight finishes, npm exits 0, and nothing is left
//   behind (not Portico, not its embedded PostgreSQL, which stops last). The stop's log says each step.
// - A rolling restart of two `api` processes and a worker, one at a time, under load with long polls
//   open: the client (taking a process out of rotation once its /readyz fails, and retrying a refused
//   connection on the next process, as a load balancer does) never sees a reset, and every answer is a 2xx.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { separateDatabaseUrl } from '../harness/db.ts'
import { PROV } from '../harness/portico.ts'
import { alive, childrenOf, logged, processesNaming, request, startProcess, type Outcome, type Proc } from '../harness/processes.ts'

const zone = `stop${Date.now().toString(36)}.test`
let pdns: Pdns

beforeAll(async () => {
  pdns = await startPdns()
  await pdns.createZone(zone)
})

const baseEnv = () => ({
  APP_ENV: 'test',
  PROVISION_SECRET: PROV,
  MANAGEMENT_KEY: 'mgmt_stop_test_0123456789',
  SECRETS_KEY: '22'.repeat(32),
  DNS_RESOLVERS: pdns.dnsAddress,
  LOG_LEVEL: 'info',
  // Short in tests; the default (1 s) gives a load balancer time to see /readyz fail.
  STOP_DRAIN_MS: '200',
  // Long in tests: requests in flight must finish however loaded the machine is (the default is 8 s).
  STOP_GRACE_MS: '30000',
})

async function provision(port: number): Promise<{ api_key: string }> {
  const r = await request(() => [port], 0, 'POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': PROV }, body: { tenant_name: 'Deploys', owner_email: 'ops@deploys.example' } })
  if (r.status !== 201) throw new Error(`provision: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body
}

/** A new connection, once its first verification has landed (its version then stays until the next, seconds later). */
async function connection(port: number, key: string, domain: string): Promise<{ id: string; version: string }> {
  const c = await request(() => [port], 0, 'POST', '/v1/connections', { token: key, body: { domain } })
  if (c.status !== 201) throw new Error(`create: ${c.status} ${JSON.stringify(c.body)}`)
  let last = ''
  for (let i = 0; i < 50; i++) {
    const s = await request(() => [port], 0, 'GET', `/v1/connections/${c.body.id}/status`, { token: key })
    if (s.body.version === last) return { id: c.body.id, version: last }
    last = s.body.version
    await Bun.sleep(300)
  }
  throw new Error('the connection kept changing')
}

/** Error lines logged from the stop on (the issue: every clean stop logged 4 to 7 of them). */
const stopErrors = (p: Proc) => p.lines.slice(Math.max(0, p.lines.findIndex((l) => l.msg === 'stopping'))).filter((l) => l.level === 'error')

describe('SIGTERM to npm start', () => {
  let dataDir = ''
  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  test('long polls are answered at once, a bulk create in flight finishes, npm exits 0 and leaves no process behind', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portico-stop-'))
    chmodSync(dataDir, 0o755)
    const p = await startProcess('npm-start', { ...baseEnv(), DATA_DIR: dataDir }, { npm: true })
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0])
    const portico = childrenOf(p.proc.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('src/main.ts'))
    expect(portico).toHaveLength(1) // npm runs Portico itself (exec), no shell between them
    const ports = () => [p.port]
    const { api_key } = await provision(p.port)
    const followed = await connection(p.port, api_key, `shop.${zone}`)

    // Five widgets following the connection, then a bulk create of 150 domains.
    const polls = Array.from({ length: 5 }, () =>
      request(ports, 0, 'GET', `/v1/connections/${followed.id}/status?after=${followed.version}&wait=8`, { token: api_key }).then((r) => ({ ...r, at: performance.now() })),
    )
    const bulk = request(ports, 0, 'POST', '/v1/connections:bulk', { token: api_key, body: { domains: Array.from({ length: 150 }, (_, i) => `b${i}.${zone}`) }, timeoutMs: 60_000 })
    await Bun.sleep(500)
    const signalled = performance.now()
    process.kill(p.proc.pid, 'SIGTERM') // to npm only, as a supervisor does
    const answers = await Promise.all(polls)
    const bulkAnswer = await bulk
    const code = await p.exited
    const exitedAfter = performance.now() - signalled

    console.log(`npm start stop: long polls answered ${answers.map((a) => Math.round(a.at - signalled)).join(', ')} ms after SIGTERM; npm exited after ${Math.round(exitedAfter)} ms; steps ${JSON.stringify(p.lines.filter((l) => String(l.msg).startsWith('stop')).map((l) => [l.msg, l.ms ?? 0]))}`)
    for (const a of answers) {
      expect(a.status).toBe(200)
      expect(a.body.version).toBe(followed.version) // the current state, unchanged: the widget polls again
      expect(a.at - signalled).toBeGreaterThan(0) // answered because of the stop,
      expect(a.at - signalled).toBeLessThan(1_000) // at once, not after the 8 s wait
    }
    expect(bulkAnswer.status).toBe(200)
    expect(bulkAnswer.body.results.filter((r: { status: string }) => r.status === 'connected')).toHaveLength(150)
    expect(code).toBe(0)
    expect(exitedAfter).toBeLessThan(35_000)
    // Nothing left: not Portico, not its PostgreSQL, nothing naming the data directory; the port is free.
    for (const pid of [...portico, postmaster]) expect(alive(pid)).toBe(false)
    expect(processesNaming(dataDir)).toEqual([])
    expect(await fetch(`http://127.0.0.1:${p.port}/healthz`).then(() => 'answered', (e) => (e.code === 'ECONNREFUSED' ? 'ConnectionRefused' : e.code))).toBe('ConnectionRefused')
    // The stop, step by step, without an error line.
    const steps = p.lines.filter((l) => String(l.msg).startsWith('stop')).map((l) => l.msg)
    expect(steps).toEqual(['stopping', 'stop: no longer accepting connections', 'stop: requests finished', 'stop: workers stopped and database connections closed', 'stop: embedded postgres stopped', 'stopped'])
    expect(logged(p, 'stopping')[0]).toMatchObject({ signal: 'SIGTERM', long_polls_answered: 5 })
    expect(stopErrors(p)).toEqual([])
    expect(p.text.filter((t) => /error/i.test(t))).toEqual([])
  }, 90_000)
})

describe('a rolling restart under load', () => {
  const procs: Proc[] = []
  afterAll(async () => {
    for (const p of procs) if (p.proc.exitCode === null) p.proc.kill('SIGKILL')
  })

  test('two api processes and a worker restarted one at a time with long polls open: no client sees a reset', async () => {
    const env = { ...baseEnv(), DATABASE_URL: await separateDatabaseUrl() }
    const first = await startProcess('api-1', { ...env, PORTICO_ROLE: 'api' })
    const [second, worker] = await Promise.all([startProcess('api-2', { ...env, PORTICO_ROLE: 'api' }), startProcess('worker', { ...env, PORTICO_ROLE: 'worker' })])
    procs.push(first, second, worker)
    const api = [first, second]
    // As a load balancer does: a process whose /readyz fails (it is draining) gets no new requests;
    // those it has finish there. Without this, a connection made in the instant the listener closes
    // sits in the kernel's accept queue and is reset, which no server can answer.
    const drained = new Set<number>()
    const ports = () => api.map((p) => p.port).filter((port) => !drained.has(port))
    const { api_key } = await provision(first.port)
    const followed = await connection(first.port, api_key, `widget.${zone}`)

    const outcomes: (Outcome & { kind: string })[] = []
    let running = true
    let n = 0
    // Eight widgets long polling, each through the next process in turn, each after the version it saw last.
    const pollers = Array.from({ length: 8 }, async (_, w) => {
      let after = followed.version
      for (let i = 0; running; i++) {
        const r = await request(ports, w + i, 'GET', `/v1/connections/${followed.id}/status?after=${after}&wait=8`, { token: api_key })
        outcomes.push({ ...r, kind: 'long poll' })
        if (r.status === 200) after = r.body.version
        else await Bun.sleep(100)
      }
    })
    // Short reads and creates (with an Idempotency-Key, so a retried create is one create).
    const shorts = Array.from({ length: 2 }, async (_, w) => {
      while (running) {
        const i = n++
        const read = await request(ports, i, 'GET', `/v1/connections/${followed.id}`, { token: api_key })
        outcomes.push({ ...read, kind: 'read' })
        const made = await request(ports, i + 1, 'POST', '/v1/connections', { token: api_key, body: { domain: `r${w}-${i}.${zone}` }, headers: { 'idempotency-key': `roll-${w}-${i}` } })
        outcomes.push({ ...made, kind: 'create' })
        await Bun.sleep(50)
      }
    })
    await Bun.sleep(1_500)
    const exits: { name: string; code: number; ms: number }[] = []
    const restart = async (p: Proc, role: string): Promise<Proc> => {
      const t0 = performance.now()
      p.proc.kill('SIGTERM')
      if (role === 'api') {
        for (let i = 0; i < 100 && (await fetch(`http://127.0.0.1:${p.port}/readyz`).then((r) => r.status === 200, () => false)); i++) await Bun.sleep(10)
        drained.add(p.port)
      }
      const code = await p.exited
      exits.push({ name: p.name, code, ms: Math.round(performance.now() - t0) })
      expect(stopErrors(p)).toEqual([])
      const next = await startProcess(`${p.name}'`, { ...env, PORTICO_ROLE: role }, { port: p.port })
      procs.push(next)
      drained.delete(p.port)
      return next
    }
    // A bulk create in flight on the first process when it is told to stop.
    const bulk = request(() => [first.port], 0, 'POST', '/v1/connections:bulk', { token: api_key, body: { domains: Array.from({ length: 30 }, (_, i) => `bulk${i}.${zone}`) }, timeoutMs: 60_000 })
    await Bun.sleep(100)
    api[0] = await restart(first, 'api')
    await Bun.sleep(1_500)
    api[1] = await restart(second, 'api')
    await Bun.sleep(1_500)
    await restart(worker, 'worker')
    await Bun.sleep(1_000)
    running = false
    await Promise.all([...pollers, ...shorts])
    const bulkAnswer = await bulk

    const resets = outcomes.filter((o) => o.reset)
    const bad = outcomes.filter((o) => !o.reset && (o.status < 200 || o.status >= 300))
    const polls = outcomes.filter((o) => o.kind === 'long poll')
    console.log(`rolling restart: ${outcomes.length} answers (${polls.length} long polls), ${outcomes.reduce((a, o) => a + o.refused, 0)} refused connections retried, exits ${JSON.stringify(exits)}`)
    expect(resets.map((o) => `${o.kind}: ${o.reset}`)).toEqual([])
    expect(bad.map((o) => `${o.kind}: ${o.status} ${JSON.stringify(o.body).slice(0, 200)}`)).toEqual([])
    expect(exits.map((e) => e.code)).toEqual([0, 0, 0])
    expect(bulkAnswer.status).toBe(200)
    expect(bulkAnswer.body.results.filter((r: { status: string }) => r.status === 'connected')).toHaveLength(30)
    // The restarted processes serve the same data.
    const after = await request(ports, 0, 'GET', `/v1/connections/${followed.id}`, { token: api_key })
    expect(after.status).toBe(200)
  }, 180_000)
})

describe('a worker stopped while it delivers', () => {
  const procs: Proc[] = []
  // The integrator's receiver: each delivery takes 1.5 s to answer.
  const arrivals = new Map<string, number>()
  const arrivedAt: number[] = []
  let open = 0
  let answered = 0
  const receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const id = req.headers.get('webhook-id') ?? ''
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1)
      arrivedAt.push(performance.now())
      open++
      await req.arrayBuffer()
      await Bun.sleep(1_500)
      open--
      answered++
      return new Response(null, { status: 204 })
    },
  })
  afterAll(() => {
    for (const p of procs) if (p.proc.exitCode === null) p.proc.kill('SIGKILL')
    receiver.stop(true)
  })

  test('finishes and records the sends on the wire (64 to one endpoint at most), takes no more, and the next worker sends each event once', async () => {
    const env = { ...baseEnv(), DATABASE_URL: await separateDatabaseUrl(), WEBHOOK_ALLOW_LOOPBACK: '1' }
    const api = await startProcess('api', { ...env, PORTICO_ROLE: 'api' })
    procs.push(api)
    const { api_key } = await provision(api.port)
    const hook = await request(() => [api.port], 0, 'POST', '/v1/webhooks', { token: api_key, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['connection.created'] } })
    expect(hook.status).toBe(201)
    const made = await request(() => [api.port], 0, 'POST', '/v1/connections:bulk', { token: api_key, body: { domains: Array.from({ length: 100 }, (_, i) => `hook${i}.${zone}`) }, timeoutMs: 60_000 })
    expect(made.status).toBe(200)
    const worker = await startProcess('worker', { ...env, PORTICO_ROLE: 'worker' })
    procs.push(worker)
    const t0 = performance.now()
    while (open === 0 && performance.now() - t0 < 20_000) await Bun.sleep(20)
    expect(open).toBeGreaterThan(0)
    await Bun.sleep(200)
    const onWire = open
    const signalled = performance.now()
    worker.proc.kill('SIGTERM')
    expect(await worker.exited).toBe(0)
    const exited = performance.now()
    // Everything it had on the wire was answered before it exited, and nothing new started after the signal.
    expect(open).toBe(0)
    expect(arrivedAt.filter((t) => t > signalled + 100 && t < exited)).toEqual([])
    const sentByFirst = arrivals.size
    expect(stopErrors(worker)).toEqual([])
    // The next worker delivers the rest at once (no lease left to lapse), and nothing twice.
    const next = await startProcess('worker-2', { ...env, PORTICO_ROLE: 'worker' })
    procs.push(next)
    const t1 = performance.now()
    while (arrivals.size < 100 && performance.now() - t1 < 30_000) await Bun.sleep(50)
    console.log(`worker stop: ${onWire} sends on the wire at SIGTERM; the first worker sent ${sentByFirst} of 100 before it stopped; the second sent the rest in ${Math.round(performance.now() - t1)} ms`)
    expect(arrivals.size).toBe(100)
    expect([...arrivals.values()].filter((n) => n > 1)).toEqual([])
  }, 120_000)
})
