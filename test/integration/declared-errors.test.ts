// Declared versus answered: an operation's error codes are derived from its declaration
// (src/ops/declared.ts), the OpenAPI document lists exactly those, and in tests every error a face
// answers is checked against them: one an operation does not declare becomes a 500 that names it, so
// the test that provoked it fails. Here, the check itself: a handler that throws an undeclared code
// makes it fail (REST and MCP), a declared one passes; and the document's error responses per
// operation are the derived set, each code under its status, as an enum.
import { describe, test, expect, beforeAll } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { ApiError, ERROR_STATUS } from '../../src/errors.ts'
import { defineOp } from '../../src/ops/registry.ts'
import { declaredErrors, undeclared } from '../../src/ops/declared.ts'
import { OPERATIONS } from '../../src/ops/index.ts'
import { buildOpenApi, withOpenApi } from '../../src/http/openapi.ts'
import { createHandler } from '../../src/http/app.ts'
import { callTool } from '../../mcp/tools.ts'
import { sharedPortico, provision, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
let ws: Workspace
beforeAll(async () => {
  p = await sharedPortico()
  ws = await provision(p)
})

/** An operation whose handler throws `code`, declaring only `declared`. */
const throwing = (code: keyof typeof ERROR_STATUS, declared: (keyof typeof ERROR_STATUS)[]) =>
  defineOp({
    id: 'test.throws',
    method: 'POST',
    path: '/test-throws',
    summary: 'Throws',
    tag: 'Test',
    auth: ['KEY'],
    body: Type.Object({}),
    bodyOptional: true,
    response: Type.Object({}),
    errors: declared,
    kind: 'write',
    async handler() {
      throw new ApiError(code, 'thrown on purpose')
    },
  })

async function callRest(op: ReturnType<typeof throwing>) {
  const handle = createHandler({ config: p.config, db: p.db, clock: p.clock, services: p.services, ops: [op] })
  const res = await handle(new Request('http://portico.test/v1/test-throws', { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}` } }), '127.0.0.1')
  return { status: res.status, body: (await res.json()) as { code: string; title: string } }
}

describe('the check of the test: an undeclared code fails, a declared one passes', () => {
  test('REST: a handler answering a code its declaration does not list is a 500 naming the operation and the code', async () => {
    const r = await callRest(throwing('conflict', ['not_found']))
    expect(r.status).toBe(500)
    expect(r.body.code).toBe('internal_error')
    expect(r.body.title).toContain('operation test.throws answered 409 conflict')
  })

  test('REST: the same code declared is answered as it is', async () => {
    const r = await callRest(throwing('conflict', ['conflict']))
    expect(r).toEqual({ status: 409, body: { code: 'conflict', title: 'thrown on purpose' } })
  })

  test('REST: codes the declaration implies need no listing (a credential: 401; an id: 404; Idempotency-Key: 409)', async () => {
    const r = await callRest(throwing('idempotency_key_in_use', []))
    expect(r.status).toBe(409)
    const noCredential = await createHandler({ config: p.config, db: p.db, clock: p.clock, services: p.services, ops: [throwing('conflict', [])] })(
      new Request('http://portico.test/v1/test-throws', { method: 'POST' }),
      '127.0.0.1',
    )
    expect(noCredential.status).toBe(401)
  })

  test('MCP: a tool answering an undeclared code is the same 500', async () => {
    // Declared as an operation agents call (its agent text is what the MCP face reads).
    const op = { ...throwing('conflict', []), id: 'connections.get', agent: OPERATIONS.find((o) => o.id === 'connections.get')!.agent }
    const principal = { kind: 'KEY' as const, tenantId: ws.tenantId, keyId: 'key_x', role: 'owner' as const, applicationId: ws.appId }
    const r = await callTool({ op } as never, {}, { principal, db: p.db, clock: p.clock, config: p.config, services: p.services, requestId: 'req_t', ip: null } as never)
    expect(JSON.parse((r.content[0] as { text: string }).text)).toMatchObject({ code: 'internal_error', title: expect.stringContaining('answered 409 conflict') })
  })

  test('outside tests the error stands (the check changes nothing in production)', () => {
    const e = new ApiError('conflict')
    expect(undeclared(throwing('conflict', []), e, false)).toBe(e)
  })
})

describe('the document lists exactly the derived codes', () => {
  const doc = buildOpenApi(withOpenApi(OPERATIONS), { publicUrl: 'http://portico.test', version: 'test' }) as any

  test('each operation\'s error responses are its declared codes, each under its status, as an enum', () => {
    for (const op of OPERATIONS) {
      const responses = doc.paths[op.path][op.method.toLowerCase()].responses as Record<string, any>
      const listed: Record<string, string[]> = {}
      for (const [status, r] of Object.entries(responses)) {
        const codes = r.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum
        if (codes) listed[status] = codes
      }
      const want: Record<string, string[]> = {}
      for (const code of [...declaredErrors(op)].sort()) (want[String(ERROR_STATUS[code])] ??= []).push(code)
      expect({ op: op.id, listed }).toEqual({ op: op.id, listed: want })
    }
  })

  test('the derivation: a scope implies insufficient_scope, an id not_found, Idempotency-Key its codes, a credential 401, 403 and 429', () => {
    const byId = new Map(OPERATIONS.map((o) => [o.id, o]))
    const has = (id: string, ...codes: string[]) => expect({ id, missing: codes.filter((c) => !declaredErrors(byId.get(id)!).has(c as never)) }).toEqual({ id, missing: [] })
    for (const op of OPERATIONS) {
      if (op.scope) has(op.id, 'insufficient_scope')
      if (op.auth.some((c) => c !== 'NONE')) has(op.id, 'unauthorized', 'forbidden', 'rate_limited')
      if (op.params) has(op.id, 'not_found')
    }
    has('connections.list', 'not_found') // app_id of another tenant
    has('connections.count', 'not_found')
    has('connections.apply', 'conflict') // another write in progress
    has('connections.create', 'idempotency_key_in_use', 'idempotency_key_reused')
    has('tenants.provision', 'forbidden') // another valid credential
  })

  test('every answer carries X-Request-Id; 429 and 503 carry Retry-After; idempotent operations say Idempotent-Replayed', () => {
    for (const op of OPERATIONS) {
      const responses = doc.paths[op.path][op.method.toLowerCase()].responses as Record<string, any>
      for (const [status, r] of Object.entries(responses)) {
        expect({ op: op.id, status, id: Boolean(r.headers?.['X-Request-Id']) }).toEqual({ op: op.id, status, id: true })
        if (status === '429' || status === '503') expect({ op: op.id, status, retry: Boolean(r.headers['Retry-After']) }).toEqual({ op: op.id, status, retry: true })
      }
    }
    expect(doc.paths['/connections'].post.responses['201'].headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/IdempotentReplayed' })
    expect(doc.components.headers.RetryAfter.schema).toEqual({ type: 'integer', minimum: 0 })
  })
})
