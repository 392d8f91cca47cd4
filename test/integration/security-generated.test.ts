// The wrong-tenant and wrong-role halves of the shared security suite, generated from the registry:
// - every operation an API key may call whose path names an object by id, given another tenant's
//   id of that kind and an otherwise valid request (the operation's own examples, src/ops/examples.ts),
//   answers 404 and only 404 (never 403, never 400 from validation speaking first, never another
//   tenant's data), and writes nothing;
// - every operation that needs a role permission, called by a key whose role lacks it (per the
//   published /rbac matrix), answers 403.
// Every credential kind against every operation (widget-token kinds, agent scopes, operator secrets)
// is test/integration/authority-matrix.test.ts, held to docs/authority-matrix.md.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { OPERATIONS } from '../../src/ops/index.ts'
import type { AnyOp } from '../../src/ops/registry.ts'
import { exampleOf, examplesFor } from '../../src/ops/examples.ts'
import { ROLES, can, type MemberRole, type Permission } from '../../src/domain/rbac.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { startPdns } from '../harness/pdns.ts'

let p: TestPortico
let mine: Workspace
let theirs: Workspace
/** Another tenant's object of each kind a path can name by id. */
const foreign: Record<string, string> = {}

beforeAll(async () => {
  const pdns = await startPdns()
  const zone = `foreign${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  // Power and Secure configured (on addresses where nothing listens: no call may get that far), so their
  // operations reach the tenant check instead of answering 503 for every id alike.
  p = await startPortico({
    DNS_RESOLVERS: pdns.dnsAddress,
    EDGE_ADMIN_URL: 'http://127.0.0.1:9',
    EDGE_AUTH_SECRET: 'security-suite-edge-secret',
    ACME_DIRECTORY_URL: 'https://127.0.0.1:9/directory',
  })
  mine = await provision(p)
  theirs = await provision(p)
  const as = (body: unknown) => ({ token: theirs.apiKey, body })
  foreign.applications = theirs.appId
  foreign.connections = (await p.api('POST', '/v1/connections', as({ domain: `shop.${zone}` }))).body.id
  foreign.webhooks = (await p.api('POST', '/v1/webhooks', { ...as({ url: 'https://hooks.example.com/x', events: [] }), headers: {} })).body.id
  foreign.keys = (await p.api('POST', `/v1/applications/${theirs.appId}/keys`, as({ role: 'viewer' }))).body.id
  foreign.members = (await p.api('POST', '/v1/members', as({ email: `m${Date.now()}@example.com`, role: 'member' }))).body.id
  for (const [k, v] of Object.entries(foreign)) if (!v) throw new Error(`could not make another tenant's ${k}`)
})

afterAll(async () => {
  await p?.close()
})

/** The object kind a path names by its first id, when the suite can make one in another tenant. */
function kindOf(op: AnyOp): string | null {
  const m = /^\/(applications|connections|webhooks|members)\/\{id\}/.exec(op.path)
  return m ? m[1]! : null
}

/** The query string of an operation's required query fields, from its schema's examples. */
function exampleQuery(op: AnyOp): string {
  if (!op.query) return ''
  const q = new URLSearchParams(Object.entries(exampleOf(op.query, '', false) as Record<string, unknown>).map(([k, v]) => [k, String(v)]))
  return q.size ? `?${q}` : ''
}

/** Calls `op` with my key, another tenant's id in the path and a valid request otherwise; counts what it wrote for that tenant. */
async function callWithForeignId(op: AnyOp) {
  const id = foreign[kindOf(op)!]!
  const path = op.path.replace('{id}', id).replace('{keyId}', foreign.keys!)
  const body = op.body ? examplesFor(op).request : undefined
  const headers = op.headers ? Object.fromEntries(Object.entries(exampleOf(op.headers, '', false) as Record<string, unknown>).map(([k, v]) => [k, String(v)])) : {}
  const count = async () => (await p.db`select count(*)::int as n from audit_log where tenant_id = ${theirs.tenantId}`)[0].n as number
  const before = await count()
  const r = await p.api(op.method, `/v1${path}${exampleQuery(op)}`, { token: mine.apiKey, body, headers })
  return { status: r.status, body: r.body, wrote: (await count()) - before }
}

/** What is wrong with an answer to another tenant's id: anything but a 404 that names nothing of theirs and wrote nothing. */
function wrongTenantProblems(r: { status: number; body: any; wrote: number }): string[] {
  const out: string[] = []
  if (r.status !== 404 || r.body?.code !== 'not_found') out.push(`answered ${r.status} ${r.body?.code ?? ''}`.trim())
  if (JSON.stringify(r.body ?? null).includes(theirs.tenantId)) out.push('the answer names the other tenant')
  if (r.wrote !== 0) out.push(`wrote ${r.wrote} audit row(s) for the other tenant`)
  return out
}

const byKey = (op: AnyOp) => (op.auth as string[]).includes('KEY')
const idOps = OPERATIONS.filter((op) => byKey(op) && kindOf(op) !== null)

describe('another tenant’s id is 404 on every operation that takes one', () => {
  test('the suite covers the operations it should', () => {
    expect(idOps.length).toBeGreaterThan(30)
    for (const kind of ['applications', 'connections', 'webhooks', 'members']) expect(idOps.some((op) => kindOf(op) === kind)).toBe(true)
  })

  test.each(idOps.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    expect(wrongTenantProblems(await callWithForeignId(op))).toEqual([])
  })

  test('with a valid body too, the foreign id is 404 (the id check is not hidden behind validation)', async () => {
    const r = await p.api('PUT', `/v1/applications/${foreign.applications}/connect-target`, { token: mine.apiKey, body: { cname_target: '' } })
    expect(r.status).toBe(404)
  })
})

// The test of the test: the same call and the same verdict must fail where the guard is broken.
describe('the wrong-tenant check catches what it is for', () => {
  const opById = (id: string) => idOps.find((op) => op.id === id)! as AnyOp & { handler: AnyOp['handler'] }

  /** Runs `fn` with an operation's handler swapped for one that forgets the tenant. */
  async function withHandler<T>(id: string, handler: AnyOp['handler'], fn: () => Promise<T>): Promise<T> {
    const op = opById(id)
    const real = op.handler
    op.handler = handler
    try {
      return await fn()
    } finally {
      op.handler = real
    }
  }

  test('a read that fetches the connection without its tenant is caught', async () => {
    const r = await withHandler('connections.get', async (ctx, input) => {
      const [c] = await ctx.sql`select id, domain from connections where id = ${(input as { id: string }).id}`
      return { ...(examplesFor(opById('connections.get')).response as object), id: c.id, domain: c.domain }
    }, () => callWithForeignId(opById('connections.get')))
    expect(wrongTenantProblems(r)).toEqual(['answered 200'])
  })

  test('a write that lands in the other tenant is caught', async () => {
    const r = await withHandler('connections.records.put', async (ctx, input) => {
      const [c] = await ctx.sql`select tenant_id from connections where id = ${(input as { id: string }).id}`
      ctx.audit.tenantId = c.tenant_id
      return examplesFor(opById('connections.records.put')).response
    }, () => callWithForeignId(opById('connections.records.put')))
    expect(wrongTenantProblems(r)).toContain('wrote 1 audit row(s) for the other tenant')
  })

  test('validation speaking first (the empty bodies this suite used to send) is not accepted', async () => {
    const withBody = idOps.filter((op) => op.body && !op.bodyOptional)
    const refused: string[] = []
    for (const op of withBody) {
      const path = op.path.replace('{id}', foreign[kindOf(op)!]!).replace('{keyId}', foreign.keys!)
      const r = await p.api(op.method, `/v1${path}`, { token: mine.apiKey, body: {} })
      if (r.status === 400) {
        expect(wrongTenantProblems({ ...r, wrote: 0 })).toEqual(['answered 400 invalid_request'])
        refused.push(op.id)
      }
    }
    // These never reached the tenant check with an empty body; with their examples they do (above).
    expect(refused.length).toBeGreaterThanOrEqual(4)
  })
})

describe('a role without the permission gets 403 on every operation that needs it', () => {
  const keys = new Map<MemberRole, string>()
  beforeAll(async () => {
    for (const role of ROLES) {
      if (role === 'owner') continue
      const k = await p.api('POST', `/v1/applications/${mine.appId}/keys`, { token: mine.apiKey, body: { role } })
      if (k.status !== 201) throw new Error(`key for ${role}: ${k.status}`)
      keys.set(role, k.body.key ?? k.body.api_key ?? k.body.secret)
    }
  })

  const gated = OPERATIONS.filter((op) => byKey(op) && (op as { permission?: Permission }).permission)
  test.each(gated.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    const permission = (op as { permission: Permission }).permission
    const lacking = ROLES.filter((r) => r !== 'owner' && !can(r, permission))
    for (const role of lacking) {
      const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => (n === 'id' ? mine.appId : `${n}_x`))
      const r = await p.api(op.method, `/v1${path}`, { token: keys.get(role)!, body: op.body ? {} : undefined })
      expect(`${role} ${r.status} ${r.body?.code}`).toBe(`${role} 403 forbidden`)
    }
  })
})
