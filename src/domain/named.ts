// Names of schemas: a schema marked here is published once under its name (the OpenAPI document's
// `components.schemas`, referred to by `$ref` wherever it is used), so generated clients get a named
// type for every resource and event rather than an anonymous one per use. The mark is a symbol: it
// never reaches a JSON rendering of the schema (MCP tool schemas, validation), only the document.
import type { TSchema } from '@sinclair/typebox'

export const SCHEMA_NAME = Symbol.for('portico.schema-name')

/** Marks `schema` as the one published under `name` (returned as it is). */
export function named<T extends TSchema>(name: string, schema: T): T {
  const marked = schema as T & { [SCHEMA_NAME]?: string }
  if (marked[SCHEMA_NAME] && marked[SCHEMA_NAME] !== name) throw new Error(`schema ${marked[SCHEMA_NAME]} is named again as ${name}`)
  marked[SCHEMA_NAME] = name
  return schema
}

export function nameOf(schema: unknown): string | undefined {
  return typeof schema === 'object' && schema !== null ? (schema as { [SCHEMA_NAME]?: string })[SCHEMA_NAME] : undefined
}
