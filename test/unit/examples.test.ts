// Every operation of the registry has a response example and, when it takes a body, a request
// example; each validates against the operation's own schema, and the OpenAPI document carries them.
import { describe, test, expect } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import '../../src/ops/formats.ts'
import { OPERATIONS } from '../../src/ops/index.ts'
import { examplesFor, WRITTEN_EXAMPLES } from '../../src/ops/examples.ts'
import { buildOpenApi } from '../../src/http/openapi.ts'
import { EVENT_SCHEMAS, EVENT_TYPES, exampleEnvelope } from '../../src/domain/events.ts'

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

  test('every event type\'s example is a real envelope of its schema', () => {
    for (const type of EVENT_TYPES) expect({ type, errors: errorsOf(EVENT_SCHEMAS[type], exampleEnvelope(type)) }).toEqual({ type, errors: [] })
  })

  test('no example in the document holds a placeholder: every string is a value a real answer could carry', () => {
    const doc = buildOpenApi(OPERATIONS, { publicUrl: 'http://portico.test', version: 'test' }) as any
    const placeholders: string[] = []
    const walk = (v: unknown, path: string, inExample: boolean) => {
      if (typeof v === 'string') {
        if (inExample && /^(example|string|todo|xxx+|foo|bar|placeholder)$/i.test(v)) placeholders.push(`${path}: ${v}`)
      } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, inExample))
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`, inExample || k === 'example' || k === 'examples')
    }
    walk(doc, '', false)
    expect(placeholders).toEqual([])
    // The examples are there to be found: every operation's answer and every webhook's body has one.
    for (const type of EVENT_TYPES) expect(doc.webhooks[type].post.requestBody.content['application/json'].example.type).toBe(type)
  })

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
