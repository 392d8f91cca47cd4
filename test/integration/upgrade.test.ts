// Every database a main ever made upgrades cleanly to this checkout.
// - Schema: for every combination of migration texts main ever had (the first commit of each, from git
//   history: six migrations were edited after they landed, test/unit/released-migrations.test.ts), a
//   database is made from that commit's migration files as the runner of the time did (names only, no
//   checksums), then migrated by this checkout: the result must equal, table by table, column by
//   column, index, constraint, trigger and function, a database made from the current files. Also one
//   database that followed main step by step through every migration change, which ran the earliest
//   text of every file.
// - As the operator does it: earlier releases (commits of main) run on a database of their own and
//   make data through their API (a workspace, an API key, a webhook with events queued, a pending
//   connection); they are stopped and this checkout starts on the same database. The key still works,
//   the queued events are delivered signed with the secret the old release showed, and the connection
//   goes live once its records are published. Releases run: see RELEASES below.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Webhook } from 'standardwebhooks'
import { connect, type Sql } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { separateDatabaseUrl } from '../harness/db.ts'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { PROV } from '../harness/portico.ts'
import { blobText, checkout, git, migrationHistory, type MigrationState } from '../harness/released.ts'
import { logged, request, ROOT, startProcess, type Proc } from '../harness/processes.ts'

/** The schema as the catalogue describes it: one line per column, constraint, index, trigger, function, table and type of `public`. */
async function schemaOf(db: Sql): Promise<string[]> {
  const rows = (await db`
    select 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || case when a.attnotnull then ' not null' else '' end
           || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
           || case when a.attidentity::text <> '' then ' identity ' || a.attidentity::text else '' end
           || case when a.attgenerated::text <> '' then ' generated ' || pg_get_expr(d.adbin, d.adrelid) else '' end as line
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm') and a.attnum > 0 and not a.attisdropped
    union all
    select 'table ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(array_to_string(c.reloptions, ','), '')
    from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'S')
    union all
    select 'constraint ' || conrelid::regclass::text || '.' || conname || ' ' || pg_get_constraintdef(oid)
    from pg_constraint where connamespace = 'public'::regnamespace
    union all
    select 'index ' || pg_get_indexdef(i.indexrelid)
    from pg_index i join pg_class c on c.oid = i.indexrelid where c.relnamespace = 'public'::regnamespace
    union all
    select 'trigger ' || pg_get_triggerdef(t.oid)
    from pg_trigger t join pg_class c on c.oid = t.tgrelid where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
    union all
    select 'function ' || pg_get_functiondef(p.oid)
    from pg_proc p where p.pronamespace = 'public'::regnamespace
    union all
    select 'view ' || c.relname || ' ' || pg_get_viewdef(c.oid)
    from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('v', 'm')
    union all
    select 'type ' || t.typname || ' ' || t.typtype::text || ' ' || coalesce((select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid), '')
    from pg_type t where t.typnamespace = 'public'::regnamespace and t.typtype in ('e', 'd')
    order by 1`) as { line: string }[]
  return rows.map((r) => r.line)
}

/** Applies migration files as the runners before checksums did: by name, each once, in one transaction. */
async function applyAsReleased(db: Sql, files: [string, string][]): Promise<void> {
  await db.begin(async (tx) => {
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`
    const done = new Set(((await tx`select name from schema_migrations`) as { name: string }[]).map((r) => r.name))
    for (const [name, blob] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
      if (done.has(name)) continue
      await tx.unsafe(blobText(blob))
      await tx`insert into schema_migrations (name) values (${name})`
    }
  })
}

/** The first commit of main with each combination of texts of the migrations that were edited. */
function variantStates(history: MigrationState[]): MigrationState[] {
  const texts = new Map<string, Set<string>>()
  for (const s of history) for (const [n, b] of s.files) texts.set(n, (texts.get(n) ?? new Set()).add(b))
  const edited = [...texts].filter(([, b]) => b.size > 1).map(([n]) => n)
  const seen = new Set<string>()
  return history.filter((s) => {
    const key = edited.map((n) => s.files.get(n) ?? '-').join(' ')
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

describe('every combination of migration texts main had upgrades to the current schema', () => {
  let current: string[] = []
  const pools: Sql[] = []
  const open = async () => {
    const db = connect(await separateDatabaseUrl(), 2)
    pools.push(db)
    return db
  }
  const history = migrationHistory()
  beforeAll(async () => {
    const fresh = await open()
    const report = await migrate(fresh)
    expect(report.changed).toEqual([])
    current = await schemaOf(fresh)
  })
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()))
  })

  test('the states are the ones main had', () => {
    const states = variantStates(history)
    // One for each text of each edited migration (2 + 2 + 2 + 4 + 2 + 2, shared where edits overlapped), at least.
    expect(states.length).toBeGreaterThanOrEqual(10)
    expect(current.some((l) => l.startsWith('function CREATE OR REPLACE FUNCTION public.monitor_rank_log'))).toBe(true)
  })

  for (const state of variantStates(history)) {
    test(`a database made at ${state.commit.slice(0, 7)} (${state.date.slice(0, 16)}) upgrades to the current schema`, async () => {
      const db = await open()
      await applyAsReleased(db, [...state.files])
      const report = await migrate(db)
      expect(report.applied).toContain('0150_repair_edited_migrations.sql')
      expect(report.changed).toEqual([])
      // Rows of the time recorded with the checksum of the files that now describe them.
      const rows = (await db`select name, checksum from schema_migrations where checksum is null`) as unknown[]
      expect(rows).toEqual([])
      expect(await schemaOf(db)).toEqual(current)
    })
  }

  test('a database that followed main through every migration change (the earliest text of each) upgrades to the current schema', async () => {
    const db = await open()
    for (const state of history) await applyAsReleased(db, [...state.files])
    const report = await migrate(db)
    expect(report.changed).toEqual([])
    expect(await schemaOf(db)).toEqual(current)
    // Once it ran, the repair is recorded like any migration, and a second start applies nothing.
    expect((await migrate(db)).applied).toEqual([])
  })
})

/**
 * The releases run on their data, chosen to cover what broke and what operators run:
 * - ae372b8 (first day, 2026-11-22 18:53): its 0003 fanned events out per row; every event insert
 *   failed after upgrading past 0012.
 * - 1037bd8 (2026-11-23 12:04): its 0013 and 0014 texts (outbox payload jsonb, no monitor_rank_log):
 *   verifications and monitor runs failed after any upgrade, nothing went live.
 * - d8aa63f (2026-12-06, the last landed main before the 0101-0199 migrations): the ordinary upgrade
 *   an operator running the previous release makes. A fixed commit, not "main's previous commit": in a
 *   session or a CI clone main holds unreleased merges, whose data is not what an operator has.
 * The schema tests above cover every other combination without running old code.
 */
function releases(): { commit: string; why: string }[] {
  return [
    { commit: git(['rev-parse', 'ae372b8']), why: 'first day: per-row event fan-out' },
    { commit: git(['rev-parse', '1037bd8']), why: '2026-11-23: no monitor_rank_log, jsonb outbox' },
    { commit: git(['rev-parse', 'd8aa63f']), why: 'the last landed main' },
  ]
}


describe('earlier releases on their own data, then this checkout', () => {
  let pdns: Pdns
  const zone = `upgrade${Date.now().toString(36)}.test`
  const dirs: string[] = []
  const procs: Proc[] = []
  // The integrator's webhook receiver: refuses until `open`, then takes and verifies.
  let accepting = false
  const received: { id: string; type: string; domain?: string; body: string; headers: Record<string, string> }[] = []
  const receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const body = await req.text()
      if (!accepting) return new Response('not yet', { status: 503 })
      const j = JSON.parse(body)
      received.push({ id: req.headers.get('webhook-id') ?? '', type: j.type, domain: j.domain, body, headers: Object.fromEntries(req.headers) })
      return new Response(null, { status: 204 })
    },
  })
  beforeAll(async () => {
    pdns = await startPdns()
    await pdns.createZone(zone)
  })
  afterAll(async () => {
    for (const p of procs) if (p.proc.exitCode === null) p.proc.kill('SIGKILL')
    receiver.stop(true)
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  const env = (url: string) => ({
    APP_ENV: 'test',
    DATABASE_URL: url,
    PROVISION_SECRET: PROV,
    MANAGEMENT_KEY: 'mgmt_upgrade_test_0123456789',
    SECRETS_KEY: '33'.repeat(32),
    DNS_RESOLVERS: pdns.dnsAddress,
    DNS_VERIFY: 'recursive',
    EDGE_CNAME_TARGET: `edge.${zone}`,
    WEBHOOK_ALLOW_LOOPBACK: '1',
    LOG_LEVEL: 'info',
    STOP_DRAIN_MS: '0',
  })

  for (const release of releases()) {
    test(`${release.commit.slice(0, 7)} (${release.why}): its data works after the upgrade`, async () => {
      const url = await separateDatabaseUrl()
      const dir = mkdtempSync(join(tmpdir(), `portico-release-${release.commit.slice(0, 7)}-`))
      dirs.push(dir)
      checkout(release.commit, dir)
      // The old release, API only (its workers would deliver the events now): as it was, with its own start.
      const old = await startProcess(`old-${release.commit.slice(0, 7)}`, { ...env(url), PORTICO_ROLE: 'api' }, { cwd: dir, readyPath: '/healthz' })
      procs.push(old)
      const at = () => [old.port]
      const ws = await request(at, 0, 'POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': PROV }, body: { tenant_name: `Up ${release.commit.slice(0, 7)}`, owner_email: 'ops@upgrade.example' } })
      expect(ws.status).toBe(201)
      const key = ws.body.api_key as string
      const hook = await request(at, 0, 'POST', '/v1/webhooks', { token: key, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['connection.created', 'connection.live'] } })
      expect(hook.status).toBe(201)
      const domain = `shop-${release.commit.slice(0, 7)}.${zone}`
      const made = await request(at, 0, 'POST', '/v1/connections', { token: key, body: { domain } })
      expect(made.status).toBe(201)
      const records = (made.body.records ?? (await request(at, 0, 'GET', `/v1/connections/${made.body.id}/records`, { token: key })).body.records) as { type: string; value: string }[]
      const target = records.find((r) => r.type === 'CNAME')!.value
      old.proc.kill('SIGTERM')
      await Promise.race([old.exited, Bun.sleep(15_000).then(() => old.proc.kill('SIGKILL'))])

      // The customer publishes the record meanwhile; then this checkout starts on the same database.
      await pdns.setRecords(domain, 'CNAME', [`${target.replace(/\.$/, '')}.`])
      accepting = true
      const now = await startProcess(`new-on-${release.commit.slice(0, 7)}`, env(url))
      procs.push(now)
      const here = () => [now.port]
      const migrations = logged(now, 'migrations')[0] as { applied: string[] }
      // Exactly the migrations the release did not have are applied, in name order (0150's repair among them).
      const had = new Set(git(['ls-tree', '--name-only', release.commit, 'migrations/']).split('\n').map((f) => f.replace(/^migrations\//, '')))
      const missing = readdirSync(join(ROOT, 'migrations')).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f) && !had.has(f)).sort()
      expect(migrations.applied).toEqual(missing)
      expect(migrations.applied).toContain('0150_repair_edited_migrations.sql')
      expect(logged(now, 'migration changed after it was applied')).toEqual([])
      // The old key works; the connection goes live; the events the old release queued arrive, signed with its secret.
      expect((await request(here, 0, 'GET', '/v1/applications', { token: key })).status).toBe(200)
      const checked = await request(here, 0, 'POST', `/v1/connections/${made.body.id}:recheck`, { token: key, body: {} })
      expect(checked.status).toBe(200)
      expect(checked.body.status).toBe('live')
      const verifier = new Webhook(hook.body.secret)
      const deadline = performance.now() + 30_000
      while (performance.now() < deadline && !['connection.created', 'connection.live'].every((t) => received.some((r) => r.domain === domain && r.type === t))) await Bun.sleep(200)
      const mine = received.filter((r) => r.domain === domain)
      expect(mine.map((r) => r.type)).toEqual(expect.arrayContaining(['connection.created', 'connection.live']))
      for (const r of mine) expect(() => verifier.verify(r.body, r.headers)).not.toThrow()
      expect(now.lines.filter((l) => l.level === 'error')).toEqual([])
      now.proc.kill('SIGTERM')
      expect(await now.exited).toBe(0)
    }, 120_000)
  }

})
