// The authority matrix, generated from the registry and held to three things:
// - docs/authority-matrix.md is the reviewed table; it must be the registry's matrix exactly, with a
//   row for every operation (a new or widened operation changes the file, visibly, in review;
//   UPDATE_AUTHORITY_MATRIX=1 rewrites it);
// - the contract's floor (the API contract, sections 4 and 5), written here independently of the registry:
//   who may ever hold the operator secrets' routes, which operations an end user's widget token may
//   reach at all, what a domain-bound token may touch;
// - the server itself: every operation is called with every credential kind and must answer as the
//   reviewed table says (refused, let through, or for a domain-bound token: its own hostname only).
// The last part tests the test: an operation given a wider credential list by mistake makes it fail.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { OPERATIONS } from '../../src/ops/index.ts'
import type { AnyOp } from '../../src/ops/registry.ts'
import { COLUMNS, END_USER, authority, authorityMarkdown, parseAuthorityMarkdown, type Cell } from '../../src/ops/authority.ts'
import { AGENT_SCOPE_IDS } from '../../src/domain/rbac.ts'
import { createHandler } from '../../src/http/app.ts'
import { withOpenApi } from '../../src/http/openapi.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { livePortico, agentToken, type LivePortico } from '../harness/agents.ts'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { probe, sender, targetsOneDomain, type OwnConnection, type ProbeWorld } from '../harness/authority-probe.ts'

const DOC = join(import.meta.dir, '../../docs/authority-matrix.md')

// ---------------------------------------------------------------------------------------------
// The contract's floor, independent of the registry's declarations.

/** The only operations the provision secret may call: the console-server routes (the API contract, section 5). */
const PROV_ROUTES = new Set(['tenants.provision', 'tenants.default_key', 'members.email_changed', 'notifications.test', 'push.subscriptions.create', 'push.subscriptions.delete'])
/** The management key: operator provisioning and cross-tenant reads. */
const MGMT_ROUTES = new Set(['tenants.create', 'tenants.get', 'applications.create', 'applications.list', 'applications.get', 'audit.list'])
const EDGE_ROUTES = new Set(['internal.ask'])
/** Unauthenticated routes (section 5 rule 5, with /readyz beside /healthz for load balancers, and the capability-bearing links: share, invitation, consent, callbacks, token minting). */
const PUBLIC_ROUTES = new Set([
  'health.get', 'readiness.get', 'config.get', 'rbac.get', 'plans.list', 'providers.list', 'providers.get', 'templates.list', 'tokens.create', 'members.accept',
  'agents.consent_request.get', 'share.get', 'share.recheck', 'connect.oauth_callback', 'connect.domainconnect_callback',
])
/**
 * Where an end user's widget token (connect-scoped, or bound to a domain) may go at all: section 5
 * rule 1's list and the per-connection routes section 4 gives WIDGET (with the connection's status, the
 * same connection read as `GET /connections/{id}`, followed). Application-level resources
 * (webhooks, the delivery log, the certificate list, billing standing, application settings) are not here.
 */
const END_USER_ROUTES = new Set([
  'domains.check', 'connections.create', 'connections.bulk', 'connections.get', 'connections.records.get', 'connections.status', 'connections.recheck',
  'connections.delete', 'connections.disconnect', 'connections.apply', 'connections.oauth_start', 'connections.domainconnect_start',
  'monitor.check', 'registrar.search', 'registrar.quote', 'registrar.checkout', 'registrar.fulfill', 'registrar.purchase',
  'templates.apply_url', 'ssl.get', 'power.get', 'share.create',
])
/** Section 5 rule 1: a widget token cannot create applications, manage keys or manage members. */
const NEVER_WIDGET = /^(applications\.create|keys\.|members\.|tenants\.|audit\.|agents\.grants\.)/

function floorViolations(ops: readonly AnyOp[]): string[] {
  const out: string[] = []
  for (const op of ops) {
    const cell = (id: string) => authority(op, COLUMNS.find((c) => c.id === id)!)
    const isPublic = op.auth.length === 1 && op.auth[0] === 'NONE'
    if (isPublic !== PUBLIC_ROUTES.has(op.id)) out.push(`${op.id}: ${isPublic ? 'open to anyone' : 'not open'}, the contract says otherwise`)
    if (isPublic) continue
    if (cell('PROV') !== 'no' && !PROV_ROUTES.has(op.id)) out.push(`${op.id}: the provision secret reaches it`)
    if (cell('MGMT') !== 'no' && !MGMT_ROUTES.has(op.id)) out.push(`${op.id}: the management key reaches it`)
    if (cell('EDGE') !== 'no' && !EDGE_ROUTES.has(op.id)) out.push(`${op.id}: the edge secret reaches it`)
    if (cell('NONE') !== 'no') out.push(`${op.id}: reachable without a credential`)
    const widget = ['WIDGET app', 'WIDGET connect', 'WIDGET domain'].filter((c) => cell(c) !== 'no')
    if (widget.length && NEVER_WIDGET.test(op.id)) out.push(`${op.id}: a widget token reaches it`)
    if ((cell('WIDGET connect') !== 'no' || cell('WIDGET domain') !== 'no') && !END_USER_ROUTES.has(op.id)) out.push(`${op.id}: an end user's widget token reaches an application-level resource`)
    if (cell('WIDGET domain') === 'yes') out.push(`${op.id}: a domain-bound token is not held to its hostname`)
    if (cell('WIDGET domain') === 'own' && !targetsOneDomain(op)) out.push(`${op.id}: a domain-bound token reaches an operation that names no domain`)
    for (const s of AGENT_SCOPE_IDS) if (cell(`AGENT ${s}`) !== 'no' && op.scope !== s) out.push(`${op.id}: agent scope ${s} reaches it`)
  }
  return out
}

/** Rows of the reviewed table that differ from (or are missing in) the registry's declarations. */
function rowProblems(ops: readonly AnyOp[], reviewed: Map<string, Record<string, Cell>>): string[] {
  const out: string[] = []
  for (const op of ops) {
    const row = reviewed.get(op.id)
    if (!row) {
      out.push(`${op.id}: no row in docs/authority-matrix.md`)
      continue
    }
    for (const c of COLUMNS) if (row[c.id] !== authority(op, c)) out.push(`${op.id} / ${c.id}: reviewed ${row[c.id]}, declared ${authority(op, c)}`)
  }
  for (const id of reviewed.keys()) if (!ops.some((op) => op.id === id)) out.push(`${id}: a row for no operation`)
  return out
}

const reviewed = () => parseAuthorityMarkdown(readFileSync(DOC, 'utf8'))

describe('the authority matrix is declared, published and current', () => {
  test('docs/authority-matrix.md is the registry\'s matrix (UPDATE_AUTHORITY_MATRIX=1 rewrites it)', () => {
    const text = authorityMarkdown(OPERATIONS)
    if (process.env.UPDATE_AUTHORITY_MATRIX === '1') writeFileSync(DOC, text)
    expect(existsSync(DOC)).toBe(true)
    expect(rowProblems(OPERATIONS, reviewed())).toEqual([])
    expect(readFileSync(DOC, 'utf8')).toBe(text)
  })

  test('every operation declares its widget tokens when it takes any, and the contract\'s floor holds', () => {
    for (const op of OPERATIONS) expect({ id: op.id, declared: op.auth.includes('WIDGET') === Boolean(op.widget?.length) }).toEqual({ id: op.id, declared: true })
    expect(floorViolations(OPERATIONS)).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// The server against the reviewed table.

let pdns: Pdns
let p: LivePortico
let ws: Workspace
let world: ProbeWorld
let zone: string
let seq = 0

async function connection(): Promise<OwnConnection> {
  const domain = `c${++seq}.${zone}`
  const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
  if (c.status !== 201) throw new Error(`connection ${domain}: ${c.status} ${JSON.stringify(c.body)}`)
  const t = await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, domain } })
  return { id: c.body.id, domain, boundToken: t.body.token }
}

beforeAll(async () => {
  pdns = await startPdns()
  zone = `authz${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  p = await livePortico({ DNS_RESOLVERS: pdns.dnsAddress, SELL_PURCHASE_ENABLED: '1', AUTH_FAILURE_BUDGET: '100000/100000' })
  ws = await provision(p)
  const tokens: Record<string, string> = { 'KEY owner': ws.apiKey }
  for (const role of ['admin', 'member', 'viewer']) {
    const k = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role } })
    tokens[`KEY ${role}`] = k.body.key
  }
  for (const scope of ['app', 'connect']) {
    tokens[`WIDGET ${scope}`] = (await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, scope } })).body.token
  }
  for (const scope of AGENT_SCOPE_IDS) tokens[`AGENT ${scope}`] = (await agentToken(p.url, ws.apiKey, scope, `Probe ${scope}`)).tokens.access_token
  const webhook = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: 'https://hooks.example.com/probe', events: [] } })
  const member = await p.api('POST', '/v1/members', { token: ws.apiKey, body: { email: 'probe@example.com', role: 'viewer' } })
  const perOp = new Map<string, Promise<OwnConnection>>()
  world = {
    send: async (...args) => {
      const r = await sender((req) => p.handle(req))(...args)
      // applications.rotate_secret, probed with each key, replaces the client secret the bound tokens are minted with.
      const rotated = (r.body as { client_secret?: unknown } | undefined)?.client_secret
      if (r.status === 200 && typeof rotated === 'string' && args[1].endsWith(':rotate-secret')) ws.clientSecret = rotated
      return r
    },
    appId: ws.appId,
    tenantId: ws.tenantId,
    tokens,
    other: await connection(),
    shared: await connection(),
    own: connection,
    perOp: (id) => {
      if (!perOp.has(id)) perOp.set(id, connection())
      return perOp.get(id)!
    },
    webhookId: webhook.body.id,
    memberId: member.body.id,
  }
})

afterAll(async () => {
  await p?.stop()
})

describe('every operation, called with every credential kind, answers as docs/authority-matrix.md says', () => {
  test.each(OPERATIONS.map((op) => [op.id, op] as const))('%s', async (id, op) => {
    const row = reviewed().get(id)
    expect({ id, row: row !== undefined }).toEqual({ id, row: true })
    const wrong: string[] = []
    for (const col of COLUMNS) {
      const miss = await probe(world, op, col, row![col.id]!)
      if (miss) wrong.push(`${col.id}: ${miss}`)
    }
    expect(wrong).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// The test of the test.

/** The registry with one operation changed. */
function withChanged(id: string, change: Partial<AnyOp>): AnyOp[] {
  return OPERATIONS.map((op) => (op.id === id ? ({ ...op, ...change } as AnyOp) : op))
}

describe('the test of the test: an operation given a wider credential list by mistake fails it', () => {
  test('the webhook list opened to every widget token: the table, the floor and the server all say so', async () => {
    const widened = withChanged('webhooks.list', { widget: END_USER })
    expect(rowProblems(widened, reviewed())).toContain('webhooks.list / WIDGET connect: reviewed no, declared yes')
    expect(authorityMarkdown(widened)).not.toBe(readFileSync(DOC, 'utf8'))
    expect(floorViolations(widened)).toContain('webhooks.list: an end user\'s widget token reaches an application-level resource')
    // A server built on the mistaken registry lets the end user's token in, and the probe catches it.
    const handler = createHandler({ config: p.config, db: p.db, clock: p.clock, services: p.services, ops: withOpenApi(widened) })
    const mistaken = { ...world, send: sender((req) => handler(req, '127.0.0.1')) }
    const op = widened.find((o) => o.id === 'webhooks.list')!
    const row = reviewed().get('webhooks.list')!
    for (const col of COLUMNS.filter((c) => c.id === 'WIDGET connect' || c.id === 'WIDGET domain')) {
      expect(await probe(mistaken, op, col, row[col.id]!)).toBeString()
      // The real server still refuses.
      expect(await probe(world, op, col, row[col.id]!)).toBeNull()
    }
  })

  test('webhook creation given the provision secret and agent tokens; key creation given to members', async () => {
    const widened = withChanged('webhooks.create', { auth: ['KEY', 'WIDGET', 'PROV', 'AGENT'], scope: 'domains:write' })
    expect(floorViolations(widened)).toContain('webhooks.create: the provision secret reaches it')
    expect(rowProblems(widened, reviewed())).toContain('webhooks.create / AGENT domains:write: reviewed no, declared yes')
    const handler = createHandler({ config: p.config, db: p.db, clock: p.clock, services: p.services, ops: withOpenApi(widened) })
    const mistaken = { ...world, send: sender((req) => handler(req, '127.0.0.1')) }
    const op = widened.find((o) => o.id === 'webhooks.create')!
    const agent = COLUMNS.find((c) => c.id === 'AGENT domains:write')!
    expect(await probe(mistaken, op, agent, 'no')).toBeString()

    const keys = withChanged('keys.create', { permission: 'connections:write' })
    expect(rowProblems(keys, reviewed())).toContain('keys.create / KEY member: reviewed no, declared yes')
    const keyHandler = createHandler({ config: p.config, db: p.db, clock: p.clock, services: p.services, ops: withOpenApi(keys) })
    const member = COLUMNS.find((c) => c.id === 'KEY member')!
    expect(await probe({ ...world, send: sender((req) => keyHandler(req, '127.0.0.1')) }, keys.find((o) => o.id === 'keys.create')!, member, 'no')).toBeString()
  })

  test('a new operation without a row fails; a domain-bound token on an operation naming no domain breaks the floor', () => {
    const extra = { ...OPERATIONS.find((o) => o.id === 'ssl.list')!, id: 'ssl.list_again', path: '/ssl-again' } as AnyOp
    expect(rowProblems([...OPERATIONS, extra], reviewed())).toContain('ssl.list_again: no row in docs/authority-matrix.md')
    expect(floorViolations(withChanged('ssl.list', { widget: ['app', 'domain'] }))).toContain('ssl.list: a domain-bound token reaches an operation that names no domain')
    expect(floorViolations(withChanged('billing.standing', { widget: END_USER }))).toContain('billing.standing: an end user\'s widget token reaches an application-level resource')
  })
})
