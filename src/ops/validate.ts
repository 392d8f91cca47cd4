// Input validation for every face: TypeBox schemas compiled once per operation part. Unknown fields
// are refused (the API contract, section 7: "unknown body fields are rejected") because every object schema
// of an operation is closed with additionalProperties: false.
import type { TObject } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import { invalid } from '../errors.ts'
import { findUnstorable } from '../domain/text.ts'
import './formats.ts'

interface Compiled {
  check: TypeCheck<TObject>
  /** Some property is not a plain string, so string input (path, query, header) must be converted. */
  converts: boolean
  hasDefaults: boolean
}

const cache = new WeakMap<TObject, Compiled>()

function compiled(schema: TObject): Compiled {
  let c = cache.get(schema)
  if (!c) {
    const text = JSON.stringify(schema)
    c = {
      check: TypeCompiler.Compile(schema),
      converts: Object.values(schema.properties).some((p) => (p as { type?: unknown }).type !== 'string'),
      hasDefaults: text.includes('"default"'),
    }
    cache.set(schema, c)
  }
  return c
}

export type Part = 'path' | 'query' | 'body' | 'header'

/**
 * Validates one part of the input. Query and path values arrive as strings and are converted to the
 * declared types first; defaults are filled in. Throws invalid_request listing every problem.
 */
export function validatePart(schema: TObject, value: unknown, part: Part): Record<string, unknown> {
  const { check, converts, hasDefaults } = compiled(schema)
  const bad = findUnstorable(value)
  if (bad !== null) {
    throw invalid(`Invalid ${part === 'header' ? 'headers' : part}`, [{ in: part, field: bad || undefined, message: 'contains a NUL character or an unpaired surrogate, which cannot be stored' }])
  }
  if (part === 'query') strictIntegers(schema, value)
  let v = value
  if (part !== 'body' && converts) v = Value.Convert(schema, v)
  if (hasDefaults) v = Value.Default(schema, v)
  if (check.Check(v)) return v as Record<string, unknown>
  const problems = [...check.Errors(v)].slice(0, 20).map((e) => ({
    in: part,
    field: e.path.replace(/^\//, '').replace(/\//g, '.') || undefined,
    message: fieldMessage(e.message, e.path, v),
  }))
  throw invalid(`Invalid ${part === 'header' ? 'headers' : part === 'path' ? 'path' : part}`, dedupe(problems))
}

/** Query integers are written as integers: `1.5`, `0x10`, `1e3` or ` 7` are not read as numbers. */
function strictIntegers(schema: TObject, value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  const problems = Object.entries(value as Record<string, unknown>)
    .filter(([k, v]) => (schema.properties[k] as { type?: unknown } | undefined)?.type === 'integer' && typeof v === 'string' && !/^-?\d{1,15}$/.test(v))
    .map(([k]) => ({ in: 'query' as const, field: k, message: 'must be an integer' }))
  if (problems.length > 0) throw invalid('Invalid query', problems)
}

function fieldMessage(message: string, path: string, root: unknown): string {
  // TypeBox reports an unknown property as a failed additionalProperties check on the parent.
  if (/additional propert/i.test(message) || message === 'Unexpected property') return 'unknown field'
  if (path && getAt(root, path) === undefined) return 'is required'
  return message
}

function getAt(root: unknown, path: string): unknown {
  let cur: unknown = root
  for (const seg of path.split('/').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[seg]
  }
  return cur
}

function dedupe<T extends { field?: string; message: string }>(list: T[]): T[] {
  const seen = new Set<string>()
  return list.filter((p) => {
    const k = `${p.field}|${p.message}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}
