// Calls an operation with one credential kind, the way its holder would, and says whether the answer
// matches a cell of the authority matrix (src/ops/authority.ts): refused (401, or 403 forbidden /
// insufficient_scope), let through (anything else), or for a domain-bound widget token let through on
// its own hostname and refused (403 or 404) on another one. Used by the generated test and its test.
import type { AnyOp } from '../../src/ops/registry.ts'
import type { Cell, Column } from '../../src/ops/authority.ts'
import { MGMT, PROV, EDGE } from './portico.ts'

export interface Answer {
  status: number
  body: any
}

/** Sends one request through a handler (the real one, or one built on a changed registry). */
export type Send = (method: string, path: string, headers: Record<string, string>, body: unknown) => Promise<Answer>

export function sender(handle: (req: Request) => Promise<Response>): Send {
  return async (method, path, headers, body) => {
    const h: Record<string, string> = { ...headers }
    if (body !== undefined) h['content-type'] = 'application/json'
    const res = await handle(new Request(`http://portico.test${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) }))
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed }
  }
}

/** A connection of the probing workspace and a widget token bound to its hostname. */
export interface OwnConnection {
  id: string
  domain: string
  boundToken: string
}

export interface ProbeWorld {
  send: Send
  appId: string
  tenantId: string
  /** Bearer tokens by column id (KEY roles, WIDGET app/connect, AGENT scopes). */
  tokens: Record<string, string>
  /** Another open connection of the same application, on another hostname. */
  other: OwnConnection
  /** A fresh connection (for removals, so one does not spoil the next probe). */
  own: () => Promise<OwnConnection>
  /** The connection an operation that names one is probed on (one per operation). */
  perOp: (opId: string) => Promise<OwnConnection>
  /** The shared connection for operations that name none. */
  shared: OwnConnection
  webhookId: string
  memberId: string
}

export function credentialHeaders(world: ProbeWorld, col: Column, bound: string): Record<string, string> {
  switch (col.kind) {
    case 'MGMT':
      return { authorization: `Bearer ${MGMT}` }
    case 'PROV':
      return { 'x-provision-secret': PROV }
    case 'EDGE':
      return { 'x-edge-auth': EDGE }
    case 'NONE':
      return {}
    case 'WIDGET':
      return { authorization: `Bearer ${col.widget === 'domain' ? bound : world.tokens[col.id]}` }
    default:
      return { authorization: `Bearer ${world.tokens[col.id]}` }
  }
}

const namesConnection = (op: AnyOp) => op.path.startsWith('/connections/{id}')
/** Operations whose body names the one domain they act on (or a checkout of one). */
const BODY_NAMES_DOMAIN = new Set(['domains.check', 'connections.create', 'connections.bulk', 'monitor.check', 'templates.apply_url', 'registrar.search', 'registrar.quote', 'registrar.checkout', 'registrar.purchase', 'registrar.fulfill'])
/** Where a domain-bound token can act at all: one connection, or one domain named in the body. */
export const targetsOneDomain = (op: AnyOp) => namesConnection(op) || BODY_NAMES_DOMAIN.has(op.id)

/** The request path with its parameters filled in for this probe. */
function pathOf(op: AnyOp, world: ProbeWorld, connectionId: string): string {
  const base = op.root ? '' : '/v1'
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'id') {
      if (op.path.startsWith('/applications/')) return world.appId
      if (op.path.startsWith('/tenants/')) return world.tenantId
      if (op.path.startsWith('/connections/')) return connectionId
      if (op.path.startsWith('/webhooks/')) return world.webhookId
      if (op.path.startsWith('/members/')) return world.memberId
      return `${name}_probe_unknown`
    }
    if (name === 'token') return 'probe_unknown_share_token'
    return `${name}_probe_unknown`
  })
  return base + path
}

/** A body that reaches the handler's hostname check for operations that name a domain in the body. */
function bodyFor(op: AnyOp, domain: string): unknown {
  switch (op.id) {
    case 'domains.check':
    case 'connections.create':
    case 'registrar.quote':
      return { domain }
    case 'connections.bulk':
      return { domains: [domain] }
    case 'monitor.check':
      return { domain, baseline: [{ type: 'TXT', host: '@', value: 'probe' }] }
    case 'registrar.search':
      return { query: domain }
    case 'registrar.checkout':
      return { domain, buyer: { email: 'buyer@example.com' }, return_url: 'https://shop.example.com/done' }
    case 'registrar.purchase':
      return { domain, buyer: { email: 'buyer@example.com' }, payment_method: 'pm_card_visa' }
    case 'templates.apply_url':
      return { domain, provider_base: 'https://dc.example.com' }
    case 'registrar.fulfill':
      return { session_id: 'cs_probe_unknown' }
    default:
      return op.body ? {} : undefined
  }
}

const extraHeaders = (op: AnyOp): Record<string, string> =>
  op.headers && 'idempotency-key' in op.headers.properties ? { 'idempotency-key': `probe-${crypto.randomUUID()}` } : {}

function refused(a: Answer): boolean {
  if (a.status === 401) return a.body?.code === 'unauthorized'
  return a.status === 403 && (a.body?.code === 'forbidden' || a.body?.code === 'insufficient_scope')
}

/** A bulk answer refuses per domain (200 with each result `failed`), as the batch goes on. */
function refusedOnOtherHost(op: AnyOp, a: Answer): boolean {
  if (op.id === 'connections.bulk') return a.status === 200 && a.body.results.every((r: { status: string; code?: string }) => r.status === 'failed' && r.code === 'forbidden')
  // A feature this deployment lacks answers 503 before it looks at anything: nothing is reached either way.
  if (a.status === 503 && a.body?.code === 'service_unavailable') return true
  return a.status === 403 || a.status === 404
}

const show = (a: Answer) => `${a.status} ${a.body?.code ?? ''}`.trim()

/** Calls `op` as `col`; null when the answers match `expected`, else what went wrong. */
export async function probe(world: ProbeWorld, op: AnyOp, col: Column, expected: Cell): Promise<string | null> {
  const conn = !namesConnection(op) ? world.shared : op.kind === 'destroy' ? await world.own() : await world.perOp(op.id)
  const headers = { ...credentialHeaders(world, col, conn.boundToken), ...extraHeaders(op) }
  const own = await world.send(op.method, pathOf(op, world, conn.id), headers, bodyFor(op, conn.domain))
  if (expected === 'no') return refused(own) ? null : `expected refusal, got ${show(own)}`
  // Its own connection exists: a 404 there would be a refusal too.
  if (refused(own) || (expected === 'own' && namesConnection(op) && own.status === 404)) return `expected it to be let through, got ${show(own)}`
  if (expected === 'yes') return null
  // A domain-bound token on another hostname: the other connection, or a body naming the other domain.
  if (!targetsOneDomain(op)) return 'a domain-bound token is let through an operation that names no domain'
  // The registrar sells registrable names only: there the other hostname is the zone apex (a name the token is not bound to either).
  const otherDomain = op.id.startsWith('registrar.') ? world.other.domain.split('.').slice(1).join('.') : world.other.domain
  const other = await world.send(op.method, pathOf(op, world, world.other.id), { ...headers, ...extraHeaders(op) }, bodyFor(op, otherDomain))
  return refusedOnOtherHost(op, other) ? null : `on another hostname expected 403 or 404, got ${show(other)}`
}
