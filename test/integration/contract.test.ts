// Checks generated from the operation registry: the OpenAPI document is valid and lists exactly the
// routes served; every operation refuses a missing or forged credential the same way.
import { describe, test, expect, beforeAll } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { OPERATIONS as REGISTRY } from '../../src/ops/index.ts'
import { API_BASE, fullPath } from '../../src/http/app.ts'
import { EXTRA_PATHS, withOpenApi } from '../../src/http/openapi.ts'
import { sharedPortico, type TestPortico } from '../harness/portico.ts'

// What the REST face serves: the registry and the OpenAPI document describing it.
const OPERATIONS = withOpenApi(REGISTRY)

let p: TestPortico
beforeAll(async () => {
  p = await sharedPortico()
})

/** A concrete path for an operation: parameters filled with a harmless id. */
function concrete(path: string): string {
  return path.replace(/\{(\w+)\}/g, 'x_missing')
}

describe('OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const r = await p.api('GET', '/v1/openapi.json')
    expect(r.status).toBe(200)
    expect(r.body.openapi).toBe('3.1.0')
    await SwaggerParser.validate(structuredClone(r.body))
  })

  test('lists exactly the operations the server routes', async () => {
    const doc = (await p.api('GET', '/v1/openapi.json')).body
    const documented = new Set<string>()
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const m of ['get', 'post', 'put', 'patch', 'delete']) if (item[m]) documented.add(`${m.toUpperCase()} ${path}`)
    }
    const served = new Set([...OPERATIONS.map((op) => `${op.method} ${op.path}`), ...EXTRA_PATHS.map((e) => `${e.method.toUpperCase()} ${e.path}`)])
    expect([...documented].sort()).toEqual([...served].sort())
    for (const op of OPERATIONS) {
      const r = await p.api(op.method, concrete(fullPath(op)))
      expect({ op: op.id, routed: r.status !== 404 || r.body?.title !== 'No such route' }).toEqual({ op: op.id, routed: true })
    }
    // Routes served outside the registry (their own envelopes) are mounted on the app, not the registry's router.
    for (const e of EXTRA_PATHS) {
      const res = await p.app.handle(new Request(`http://portico.test${API_BASE}${e.path}`, { method: e.method.toUpperCase(), body: '{}' }))
      const body = await res.json().catch(() => null)
      expect({ path: e.path, routed: res.status !== 404 || body?.title !== 'No such route' }).toEqual({ path: e.path, routed: true })
    }
  })
})

describe('shared security suite', () => {
  const guarded = OPERATIONS.filter((op) => !op.auth.includes('NONE'))
  test.each(guarded.map((op) => [op.id, op] as const))('%s refuses a missing or forged credential', async (_id, op) => {
    const path = concrete(fullPath(op))
    for (const token of [undefined, 'ptc_live_forged', 'sk_test_forged', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', 'opaque']) {
      const r = await p.api(op.method, path, { token, body: op.body ? {} : undefined })
      expect(r.status).toBe(401)
      expect(r.body.code).toBe('unauthorized')
      expect(Object.keys(r.body).sort()).toEqual(['code', 'title'])
    }
  })
})
