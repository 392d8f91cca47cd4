// Every operation of the registry has a response example and, when it takes a body, a request
// example; each validates against the operation's own schema, and the OpenAPI document carries them.
import { describe, test, expect } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import '../../src/ops/formats.ts'
import { OPERATIONS } from '../../src/ops/index.ts'
import { examplesFor, WRITTEN_EXAMPLES } from '../../src/ops/examples.ts'
import { buildOpenApi } from '../../src/http/openapi.ts'

const errorsOf = (schema: any, value: unknown) => [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`)

describe('operation examples', () => {
  for (const op of OPERATIONS) {
    test(`${op.id}: the examples validate`, () => {
      const ex = examplesFor(op)
      expect(errorsOf(op.response, ex.response)).toEqual([])
      if (op.body) {
        expect(ex.request).toBeDefined()
        expect(errorsOf(op.body, ex.request)).toEqual([])
      } else {
        expect(ex.request).toBeUndefined()
      }
    })
  }

  test('hand-written examples name operations that exist', () => {
    const ids = new Set(OPERATIONS.map((o) => o.id))
    expect(WRITTEN_EXAMPLES.filter((id) => !ids.has(id))).toEqual([])
  })

  test('the OpenAPI document shows them on every operation', () => {
    const doc = buildOpenApi(OPERATIONS, { publicUrl: 'http://portico.test', version: 'test' }) as any
    let n = 0
    for (const op of OPERATIONS) {
      const o = doc.paths[op.path][op.method.toLowerCase()]
      expect(o.responses[String(op.status ?? 200)].content['application/json'].example).toEqual(examplesFor(op).response)
      if (op.body) expect(o.requestBody.content['application/json'].example).toEqual(examplesFor(op).request)
      n++
    }
    expect(n).toBe(OPERATIONS.length)
    const create = doc.paths['/connections'].post
    expect(create.requestBody.content['application/json'].example).toEqual({ domain: 'shop.example.com', end_user_ref: 'cust_42' })
  })
})
