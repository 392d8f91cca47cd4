// Hostile input, generated from the registry: every operation, with a credential it accepts, gets
// schema-valid and schema-breaking inputs built by fast-check (NUL, unpaired surrogates, huge strings,
// deep nesting, wrong types, garbage ids and cursors) in its path, query and body. The same inputs go
// to every agent tool through MCP `tools/call`, and to agent registration. For every answer:
// - never a 5xx, except the 503s an operation documents;
// - an error is always the envelope {code, title, details?};
// - it answers within a bound;
// - a refused request writes nothing (row counts of the tenant-owned tables unchanged).
// Two runs: a fixed seed, and one that changes every run and is printed (FUZZ_SEED replays it).
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import fc from 'fast-check'
import { Value } from '@sinclair/typebox/value'
import type { TObject, TSchema } from '@sinclair/typebox'
import { OPERATIONS } from '../../src/ops/index.ts'
import type { AnyOp } from '../../src/ops/registry.ts'
import { startPdns } from '../harness/pdns.ts'
import { EDGE, MGMT, PROV, provision, widgetToken, type Workspace } from '../harness/portico.ts'
import { documentToken, livePortico, registerClient, type LivePortico } from '../harness/agents.ts'

const FIXED_SEED = 20261123
const ROTATING_SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647)
const RUNS_PER_OP = Number(process.env.FUZZ_RUNS ?? 8)
const ANSWER_WITHIN_MS = 5_000
/** Tables a refused request must leave as they were. */
const WATCHED = ['tenants', 'applications', 'api_keys', 'members', 'connections', 'webhooks', 'provider_accounts', 'events', 'audit_log', 'sell_orders', 'share_links', 'push_subscriptions', 'email_senders', 'certificates', 'power_settings']

let p: LivePortico
let ws: Workspace
let widget: string
let agent: string
const figures = { operations: 0, requests: 0, mcpCalls: 0, registrations: 0, serverErrors: 0 }

beforeAll(async () => {
  const pdns = await startPdns()
  p = await livePortico({ DNS_RESOLVERS: pdns.dnsAddress, DNS_TIMEOUT_MS: '300', WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
  widget = await widgetToken(p, ws)
  agent = (await documentToken(p.url, ws.apiKey, 'domains:read domains:write domains:disconnect')).tokens.access_token
})

afterAll(async () => {
  console.log(
    `fuzz: ${figures.operations} operations, ${figures.requests} REST requests, ${figures.mcpCalls} MCP tool calls, ` +
      `${figures.registrations} registrations; 5xx outside the documented 503s: ${figures.serverErrors}; seeds ${FIXED_SEED} and ${ROTATING_SEED}`,
  )
  await p?.stop()
})

// ---- hostile values ----
const NUL = fc.constantFrom('a\u0000b', '\u0000', '%00', 'x'.repeat(5) + '\u0000')
const SURROGATE = fc.constantFrom('\ud800', 'a\udc00b', '\udfff\ud800', 'ok\ud83d')
/** Long, but within what HTTP servers take in a URL (a 70,000-character body value is in `hostileValue`). */
const HUGE = fc.constantFrom('x'.repeat(2_000), '€'.repeat(600))
const ODD = fc.constantFrom('', ' ', '../../etc/passwd', "' or 1=1 --", '<script>alert(1)</script>', '__4AAYA', 'con_', 'con_zzzzzzzzzzzzzzzzzzzzzzzzzz', '1.5', '0x10', '-1', '9'.repeat(40), 'null', '{}', '🦄')
const hostileString = fc.oneof(NUL, SURROGATE, HUGE, ODD, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }))
const deep = (n: number): unknown => (n === 0 ? 'x' : { a: deep(n - 1) })
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constant('x'.repeat(70_000)),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant(deep(200)),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
)

/** A schema-valid value where TypeBox can make one, else an empty object. */
function validFor(schema: TSchema | undefined): Record<string, unknown> {
  if (!schema) return {}
  try {
    return Value.Create(schema) as Record<string, unknown>
  } catch {
    return {}
  }
}

interface Case {
  params: Record<string, unknown>
  query: Record<string, unknown>
  body: unknown
}

/** Inputs for one operation: the valid shape with one part (or the whole body) replaced by something hostile. */
function caseFor(op: AnyOp): fc.Arbitrary<Case> {
  const paramNames = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
  const queryNames = Object.keys((op.query as TObject | undefined)?.properties ?? {})
  const bodyNames = Object.keys((op.body as TObject | undefined)?.properties ?? {})
  const base = (): Case => ({ params: Object.fromEntries(paramNames.map((n) => [n, `${n}_fuzz`])), query: {}, body: op.body ? validFor(op.body) : undefined })
  const variants: fc.Arbitrary<Case>[] = [fc.constant(base())]
  if (paramNames.length) variants.push(fc.record({ name: fc.constantFrom(...paramNames), v: hostileString }).map(({ name, v }) => ({ ...base(), params: { ...base().params, [name]: v } })))
  if (queryNames.length) variants.push(fc.record({ name: fc.constantFrom(...queryNames), v: hostileString }).map(({ name, v }) => ({ ...base(), query: { [name]: v } })))
  if (bodyNames.length) variants.push(fc.record({ name: fc.constantFrom(...bodyNames), v: hostileValue }).map(({ name, v }) => ({ ...base(), body: { ...(base().body as object), [name]: v } })))
  if (op.body) variants.push(hostileValue.map((v) => ({ ...base(), body: v })))
  return fc.oneof(...variants)
}

// ---- requests ----
/** The credentials the fuzz can present, strongest first; null for an operation it has none for. */
function credentialKind(op: AnyOp): string | null {
  return ['KEY', 'WIDGET', 'PROV', 'MGMT', 'EDGE', 'NONE'].find((k) => (op.auth as string[]).includes(k)) ?? null
}

function credentialHeaders(op: AnyOp): Record<string, string> | null {
  const auth = [credentialKind(op)]
  if (auth.includes('KEY')) return { authorization: `Bearer ${ws.apiKey}` }
  if (auth.includes('WIDGET')) return { authorization: `Bearer ${widget}` }
  if (auth.includes('PROV')) return { 'x-provision-secret': PROV }
  if (auth.includes('MGMT')) return { authorization: `Bearer ${MGMT}` }
  if (auth.includes('EDGE')) return { 'x-edge-auth': EDGE }
  if (auth.includes('NONE')) return {}
  return null
}

/**
 * Percent-encoding that also carries what UTF-8 cannot: an unpaired surrogate goes as its three
 * WTF-8 bytes (invalid UTF-8 on the wire, as a hostile client would send it).
 */
function encode(s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    out += c >= 0xd800 && c <= 0xdfff ? [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)].map((b) => `%${b.toString(16).toUpperCase()}`).join('') : encodeURIComponent(ch)
  }
  return out
}

function urlFor(op: AnyOp, c: Case): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => encode(String(c.params[n])))
  const q = Object.entries(c.query).map(([k, v]) => `${encode(k)}=${encode(String(v))}`).join('&')
  return `${p.url}/v1${path}${q ? `?${q}` : ''}`
}

async function counts(): Promise<string> {
  const rows = await p.db.unsafe(WATCHED.map((t) => `select '${t}' as t, count(*)::int as n from ${t}`).join(' union all '))
  return JSON.stringify(rows)
}

function documented503(op: AnyOp): boolean {
  return (op.errors as string[]).some((e) => e === 'service_unavailable' || e === 'push_not_configured')
}

function checkAnswer(op: AnyOp, status: number, body: any, ms: number, what: string): void {
  if (status >= 500 && !(status === 503 && documented503(op))) {
    figures.serverErrors++
    throw new Error(`${what}: ${status} ${JSON.stringify(body).slice(0, 300)}`)
  }
  // A documented non-error answer with a 4xx status (the ask gate's 403 `{approved: false}`) is not an envelope.
  const documented = ((op as { altStatus?: { status: number }[] }).altStatus ?? []).some((a) => a.status === status)
  if (status >= 400 && !documented) {
    expect(typeof body?.code, `${what}: envelope code`).toBe('string')
    expect(typeof body?.title, `${what}: envelope title`).toBe('string')
  }
  expect(ms, `${what}: answered in ${ms} ms`).toBeLessThan(ANSWER_WITHIN_MS)
}

async function restCase(op: AnyOp, c: Case): Promise<void> {
  const headers = credentialHeaders(op)!
  const hasBody = op.method !== 'GET' && c.body !== undefined
  const before = op.kind === 'read' ? null : await counts()
  const started = performance.now()
  const res = await fetch(urlFor(op, c), {
    method: op.method,
    headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    body: hasBody ? JSON.stringify(c.body) : undefined,
  })
  const text = await res.text()
  const ms = performance.now() - started
  figures.requests++
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON: the envelope check below says so for an error
  }
  checkAnswer(op, res.status, body, ms, `${op.method} ${op.path} ${JSON.stringify(c).slice(0, 200)}`)
  if (before !== null && res.status >= 400) expect(await counts(), `${op.id}: a refused request wrote nothing`).toBe(before)
}

const restOps = OPERATIONS.filter((op) => credentialKind(op) !== null)

describe.each([
  ['fixed seed', FIXED_SEED],
  ['rotating seed', ROTATING_SEED],
])('every operation with hostile input (%s)', (_label, seed) => {
  test(`${restOps.length} operations, ${RUNS_PER_OP} inputs each`, async () => {
    figures.operations = restOps.length
    for (const op of restOps) {
      await fc.assert(
        fc.asyncProperty(caseFor(op), (c) => restCase(op, c)),
        { seed: seed + op.id.length, numRuns: RUNS_PER_OP, endOnFailure: true },
      )
    }
  }, 170_000)
})

describe('MCP tools/call and agent registration with the same inputs', () => {
  test('every agent tool', async () => {
    const mcp = async (method: string, params: unknown) => {
      const started = performance.now()
      const res = await fetch(`${p.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      return { status: res.status, body: (await res.json()) as any, ms: performance.now() - started }
    }
    const listed = await mcp('tools/list', {})
    const tools = listed.body.result.tools as { name: string; inputSchema: { properties?: Record<string, unknown> } }[]
    expect(tools.length).toBeGreaterThan(5)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...tools), fc.dictionary(fc.constantFrom('id', 'domain', 'application_id', 'confirm', 'cursor', 'app_id'), hostileValue, { maxKeys: 3 }), async (tool, args) => {
        const r = await mcp('tools/call', { name: tool.name, arguments: args })
        figures.mcpCalls++
        expect(r.status, `${tool.name}: HTTP status`).toBeLessThan(500)
        expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS)
        // A refused call is a tool error (isError with text) or a JSON-RPC error: never a crash.
        const ok = r.body.result !== undefined || (typeof r.body.error?.code === 'number' && typeof r.body.error?.message === 'string')
        expect(ok, `${tool.name}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(true)
        if (r.body.result?.isError) expect(JSON.stringify(r.body.result.content)).not.toContain('internal_error')
      }),
      { seed: ROTATING_SEED, numRuns: 60 },
    )
  }, 120_000)

  test('agent registration', async () => {
    const before = await counts()
    await fc.assert(
      fc.asyncProperty(fc.record({ client_name: hostileValue, redirect_uris: fc.oneof(fc.constant(['http://127.0.0.1:9/cb']), fc.array(hostileString, { maxLength: 2 }), hostileValue) }), async (meta) => {
        const r = await registerClient(p.url, meta)
        figures.registrations++
        expect(r.status).toBeLessThan(500)
        if (r.status >= 400) expect(typeof r.body?.error).toBe('string')
      }),
      { seed: ROTATING_SEED, numRuns: 30 },
    )
    // Only well-formed metadata could have registered: every hostile one was refused.
    const rows = (await p.db`select client_name from agent_clients`) as { client_name: string }[]
    for (const r of rows) expect(r.client_name.includes('\u0000')).toBe(false)
    expect(before.length).toBeGreaterThan(0)
  }, 60_000)
})
