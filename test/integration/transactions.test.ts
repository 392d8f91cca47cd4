// Every mutation commits its writes with an audit row, in the same transaction (issue: a bulk create
// killed midway left connections without audit entries). The walk goes over the registry: each
// mutation is called through the executor with its documented example (ids replaced by real objects
// of one workspace), while a trigger on every table notes which transaction wrote what. A transaction
// that changed a table and wrote no audit row fails the test, naming the operation. The executor's
// write guard is checked too: a `steps` handler that writes on the pool is refused before it reaches
// the database.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Type, type TObject } from '@sinclair/typebox'
import { OPERATIONS } from '../../src/ops/index.ts'
import { defineOp, type AnyOp } from '../../src/ops/registry.ts'
import { runOp } from '../../src/ops/run.ts'
import { exampleOf, examplesFor } from '../../src/ops/examples.ts'
import { ApiError } from '../../src/errors.ts'
import type { Principal } from '../../src/domain/principal.ts'
import { isWriteStatement } from '../../src/db/write-guard.ts'
import { Deadline } from '../../src/ops/deadline.ts'
import { PROV, provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { startPdns } from '../harness/pdns.ts'

let p: TestPortico
let ws: Workspace
let zone: string
let pdns: Awaited<ReturnType<typeof startPdns>>
const ids: Record<string, string> = {}

/** The tables whose writes the walk watches: every table of the public schema but the log itself. */
async function installWriteLog(): Promise<void> {
  await p.db.unsafe(`
    create unlogged table if not exists tx_writes (xid bigint not null, tbl text not null);
    create or replace function note_write() returns trigger language plpgsql as $$
    begin insert into tx_writes values (txid_current(), tg_table_name); return null; end $$;`)
  const tables = (await p.db`select tablename from pg_tables where schemaname = 'public' and tablename not in ('tx_writes', 'schema_migrations')`) as { tablename: string }[]
  for (const { tablename: t } of tables) {
    // The rail lease (src/db/rail-writes.ts, leaseHandle) is the one write allowed outside: it records
    // no change of state and expires on its own. An update that changes only it is not noted.
    const when = t === 'connections' ? `when ((to_jsonb(old) - 'rail_lease_until') is distinct from (to_jsonb(new) - 'rail_lease_until'))` : ''
    await p.db.unsafe(`drop trigger if exists zz_note_write on "${t}"`)
    await p.db.unsafe(`create trigger zz_note_write after update on "${t}" for each row ${when} execute function note_write()`)
    await p.db.unsafe(`drop trigger if exists zz_note_write_id on "${t}"`)
    await p.db.unsafe(`create trigger zz_note_write_id after insert or delete on "${t}" for each row execute function note_write()`)
  }
}

/** Tables changed by transactions that wrote no audit row, while `run` ran. */
async function unaudited(run: () => Promise<unknown>): Promise<{ wrote: string[]; unaudited: string[] }> {
  await p.db`delete from tx_writes`
  await run()
  await Bun.sleep(20) // work an operation hands to afterCommit runs after it answers
  const rows = (await p.db`select xid::text as xid, tbl from tx_writes`) as { xid: string; tbl: string }[]
  const byTx = new Map<string, Set<string>>()
  for (const r of rows) byTx.set(r.xid, (byTx.get(r.xid) ?? new Set()).add(r.tbl))
  const wrote = new Set<string>()
  const bad = new Set<string>()
  for (const tables of byTx.values()) {
    for (const t of tables) if (t !== 'audit_log') wrote.add(t)
    if (!tables.has('audit_log')) for (const t of tables) bad.add(t)
  }
  return { wrote: [...wrote].sort(), unaudited: [...bad].sort() }
}

function principalFor(op: AnyOp): Principal {
  const auth = op.auth as string[]
  if (auth.includes('KEY')) return { kind: 'KEY', tenantId: ws.tenantId, keyId: ids.key!, role: 'owner', applicationId: ws.appId }
  if (auth.includes('WIDGET')) return { kind: 'WIDGET', tenantId: ws.tenantId, applicationId: ws.appId, scope: 'app', boundHost: null, tokenId: 'wtk_walk' }
  if (auth.includes('PROV')) return { kind: 'PROV' }
  if (auth.includes('MGMT')) return { kind: 'MGMT' }
  return { kind: 'NONE' }
}

/** A real object of this workspace for each id a path names. */
function paramsFor(op: AnyOp): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name of Object.keys(op.params?.properties ?? {})) {
    if (name === 'keyId') out[name] = ids.otherKey
    else if (name === 'token') out[name] = ids.share
    else {
      const kind = /^\/([\w-]+)\/\{/.exec(op.path)?.[1] ?? ''
      out[name] = ids[kind] ?? 'xxx_01jtd7q4c8v2n5b7x1z3k6m9p0'
    }
  }
  return out
}

/** Bodies that reach the writes where the generated example would stop at validation or a missing secret. */
const BODIES: Record<string, () => unknown> = {
  'tokens.create': () => ({ application_id: ws.appId, client_secret: ws.clientSecret }),
  'connections.create': () => ({ domain: `walk.${zone}` }),
  'connections.bulk': () => ({ domains: [`bulk1.${zone}`, `bulk2.${zone}`, 'not a domain'] }),
  'connections.records.put': () => ({ records: [{ type: 'CNAME', host: 'shop', value: 'edge.portico.test', ttl: 300 }] }),
  'webhooks.create': () => ({ url: 'http://127.0.0.1:9/hook', events: [] }),
  'connections.apply': () => ({ credential: pdns.apiKey, api_url: pdns.apiUrl }),
  'provider_accounts.create': () => ({ provider: 'powerdns', credential: pdns.apiKey, api_url: pdns.apiUrl, access: 'continuous' }),
  'applications.connect_target.put': () => ({ cname_target: '' }),
  'billing.setup': () => ({ return_url: 'https://app.example.net/back' }),
  'billing.checkout': () => ({ plan_id: 'starter', success_url: 'https://app.example.net/ok', cancel_url: 'https://app.example.net/no' }),
  'registrar.quote': () => ({ domain: 'walk-quote.com' }),
  'registrar.checkout': () => ({ domain: 'walk-checkout.com', buyer: { email: 'b@example.net' }, return_url: 'https://app.example.net/back' }),
  'registrar.purchase': () => ({ domain: 'walk-purchase.com', buyer: { email: 'b@example.net' }, payment_method: 'pm_card_visa' }),
}

const localise = (v: unknown) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v).replaceAll('example.com', zone)))

async function call(op: AnyOp): Promise<number> {
  const raw = {
    params: paramsFor(op),
    query: op.query ? localise(exampleOf(op.query, '', false)) : {},
    headers: op.headers ? (exampleOf(op.headers as TObject, '', false) as Record<string, unknown>) : {},
    body: BODIES[op.id]?.() ?? localise(examplesFor(op).request),
  }
  const base = { principal: principalFor(op), db: p.db, clock: p.clock, config: p.config, services: p.services, requestId: `req_walk_${op.id}`, ip: '127.0.0.1' }
  try {
    return (await runOp(op, base, raw)).status
  } catch (err) {
    if (err instanceof ApiError) return err.status
    throw new Error(`${op.id}: ${(err as Error).message}`)
  }
}

beforeAll(async () => {
  pdns = await startPdns()
  zone = `walk${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, WEBHOOK_ALLOW_LOOPBACK: '1', SELL_PURCHASE_ENABLED: '1' })
  ws = await provision(p)
  const as = (body: unknown) => ({ token: ws.apiKey, body })
  ids.key = (await p.db`select id from api_keys where tenant_id = ${ws.tenantId} limit 1`)[0].id
  ids.tenants = ws.tenantId
  ids.applications = ws.appId
  ids.connections = (await p.api('POST', '/v1/connections', as({ domain: `shop.${zone}` }))).body.id
  ids.webhooks = (await p.api('POST', '/v1/webhooks', as({ url: 'http://127.0.0.1:9/x', events: [] }))).body.id
  ids.otherKey = (await p.api('POST', `/v1/applications/${ws.appId}/keys`, as({ role: 'viewer' }))).body.id
  ids.members = (await p.api('POST', '/v1/members', as({ email: `walk${Date.now()}@example.net`, role: 'member' }))).body.id
  ids.share = (await p.api('POST', `/v1/connections/${ids.connections}/share`, as({}))).body.token
  ids['push-subscriptions'] = (await p.api('POST', '/v1/push-subscriptions', { headers: { 'x-provision-secret': PROV }, body: { user_id: 'u1', subscription: { endpoint: 'https://push.example.net/1', keys: { p256dh: 'k', auth: 'a' } } } })).body.id
  await installWriteLog()
})

afterAll(async () => {
  await p?.close()
})

const mutations = OPERATIONS.filter((op) => op.kind !== 'read')
// Removals last, so the objects the others act on are still there.
const ordered = [...mutations.filter((op) => op.kind === 'write'), ...mutations.filter((op) => op.kind === 'destroy')]

describe('every mutation commits its writes with an audit row', () => {
  const changed: string[] = []

  test.each(ordered.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    let status = 0
    const seen = await unaudited(async () => {
      status = await call(op)
    })
    expect({ op: op.id, status, unaudited: seen.unaudited }).toEqual({ op: op.id, status, unaudited: [] })
    if (seen.wrote.length) changed.push(op.id)
  })

  test('the walk reached the writes of most mutations (it cannot pass by calling nothing)', () => {
    expect(mutations.length).toBeGreaterThan(40)
    expect(changed.length).toBeGreaterThanOrEqual(25)
    for (const id of ['connections.create', 'connections.bulk', 'connections.recheck', 'connections.apply', 'webhooks.create', 'registrar.purchase', 'billing.setup', 'share.recheck', 'keys.revoke']) {
      expect(changed).toContain(id)
    }
  })
})

describe('the checks can fail', () => {
  const sneaky = (transactions: 'steps' | undefined, write: (ctx: { db: typeof p.db; sql: typeof p.db }) => Promise<unknown>) =>
    defineOp({
      id: 'walk.sneaky',
      method: 'POST',
      path: '/walk',
      summary: 'writes around its transaction',
      tag: 'test',
      auth: ['PROV'],
      bodyOptional: true,
      body: Type.Object({}),
      response: Type.Object({}),
      errors: [],
      kind: 'write',
      transactions,
      async handler(ctx) {
        await write(ctx)
        return {}
      },
    })

  test('a steps handler that writes on the pool is refused before the database sees it', async () => {
    const op = sneaky('steps', (ctx) => ctx.db`update tenants set name = name where id = ${ws.tenantId}`)
    const seen = await unaudited(() => runOp(op, { principal: { kind: 'PROV' }, db: p.db, clock: p.clock, config: p.config, services: p.services, requestId: 'req_sneaky', ip: null }, {}).catch((e: Error) => e.name))
    expect(seen.wrote).toEqual([])
    const sql = sneaky(undefined, (ctx) => ctx.db`insert into tx_writes values (0, 'x')`)
    await expect(runOp(sql, { principal: { kind: 'PROV' }, db: p.db, clock: p.clock, config: p.config, services: p.services, requestId: 'req_sneaky', ip: null }, {})).rejects.toThrow(/write outside a transaction/)
  })

  test('a write that bypasses the executor (a raw pool in a handler) is caught by the walk', async () => {
    const raw = p.db
    const op = sneaky(undefined, () => raw`update tenants set name = name where id = ${ws.tenantId}`)
    const seen = await unaudited(() => runOp(op, { principal: { kind: 'PROV' }, db: p.db, clock: p.clock, config: p.config, services: p.services, requestId: 'req_sneaky', ip: null }, {}))
    expect(seen.unaudited).toEqual(['tenants'])
  })

  test('a transaction whose body outlives the request deadline is rolled back, not committed late', async () => {
    const d = new Deadline(100)
    const name = `late ${Date.now()}`
    await expect(
      d.transaction(p.db, async (tx) => {
        await tx`update tenants set name = ${name} where id = ${ws.tenantId}`
        await Bun.sleep(200)
      }),
    ).rejects.toMatchObject({ code: 'service_unavailable', details: { reason: 'deadline_exceeded' } })
    expect((await p.db`select name from tenants where id = ${ws.tenantId}`)[0].name).not.toBe(name)
  })

  test('statements the guard takes for writes', () => {
    for (const q of ['insert into x values (1)', ' UPDATE x set a = 1', 'delete from x', 'with y as (select 1) update x set a = 1', 'with d as (delete from x returning *) select * from d']) expect(isWriteStatement(q)).toBe(true)
    for (const q of ['select * from x for update', 'select updated_at from x', 'with y as (select 1) select * from y', 'select pg_notify(1)']) expect(isWriteStatement(q)).toBe(false)
  })
})
