// What an integrator's generator makes of the served document: openapi-typescript's types of
// /v1/openapi.json compile under `strict`, every event type has its webhook and its named envelope,
// an event narrows on `type` to its own payload, and an error code outside the catalogue (a typo) does
// not compile.
import { describe, test, expect } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS from 'openapi-typescript'
import { OPERATIONS } from '../../src/ops/index.ts'
import { buildOpenApi, withOpenApi } from '../../src/http/openapi.ts'
import { EVENT_TYPES } from '../../src/domain/events.ts'

const TSC = join(import.meta.dir, '../../node_modules/.bin/tsc')

/** Compiles `files` beside the generated types under strict; answers tsc's output (empty: it compiled). */
async function compile(dir: string, files: Record<string, string>): Promise<string> {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', noUnusedLocals: true }, files: ['schema.d.ts', ...Object.keys(files)] }),
  )
  const p = Bun.spawn([TSC, '-p', dir], { stdout: 'pipe', stderr: 'pipe' })
  const out = (await new Response(p.stdout).text()) + (await new Response(p.stderr).text())
  await p.exited
  return out.trim()
}

describe('a typed client generated from the document', () => {
  const doc = buildOpenApi(withOpenApi(OPERATIONS), { publicUrl: 'https://portico.example.com', version: 'test' }) as any
  const dir = mkdtempSync(join(tmpdir(), 'portico-typed-'))

  test('the document has a webhook for every event type, its body the event\'s named envelope', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort())
    for (const type of EVENT_TYPES) {
      const ref = doc.webhooks[type].post.requestBody.content['application/json'].schema.$ref as string
      expect(ref).toMatch(/^#\/components\/schemas\/\w+Event$/)
      expect(doc.components.schemas[ref.split('/').pop()!].properties.type.const).toBe(type)
    }
  })

  test('every body sent or answered is a named schema: a resource, an event, or its operation\'s Request/Response', () => {
    const unnamed: string[] = []
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op?.responses) continue
        const bodies = [['request', op.requestBody?.content?.['application/json']?.schema]]
        for (const [status, r] of Object.entries(op.responses as Record<string, any>)) if (/^[23]/.test(status)) bodies.push([status, r.content?.['application/json']?.schema])
        for (const [where, schema] of bodies) if (schema && !schema.$ref && op.operationId) unnamed.push(`${method} ${path} ${where}`)
      }
    }
    expect(unnamed).toEqual([])
    expect(doc.paths['/connections'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ConnectionsListResponse')
    expect(doc.paths['/connections'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/ConnectionsCreateRequest')
    expect(doc.components.schemas.ConnectionsListResponse.properties.connections.items.$ref).toBe('#/components/schemas/Connection')
  })

  test('openapi-typescript\'s types compile under strict, and an event narrows on its type', async () => {
    writeFileSync(join(dir, 'schema.d.ts'), await openapiTS(structuredClone(doc)))
    const use = `
import type { components, paths, webhooks } from './schema'
type Event = components['schemas']['Event']
type Code = components['schemas']['ErrorCode']
export function describe(e: Event): string {
  switch (e.type) {
    case 'connection.live':
      return e.data.records_propagated.map((r) => r.host).join(',') + (e.sequence ?? 0)
    case 'connection.disconnected':
      return e.data.removal.outcome + e.data.records.length
    case 'purchase.error':
      return e.data.reason
    default:
      return e.type
  }
}
export const notFound: Code = 'not_found'
export type LiveHook = webhooks['connection.live']['post']
export type Page = paths['/events']['get']['responses']['200']['content']['application/json']
export type Conflict = paths['/connections/{id}/apply']['post']['responses']['409']['content']['application/json']['code']
export const conflict: Conflict = 'conflict'
export const first = (p: Page): string | undefined => p.events[0]?.id
`
    expect(await compile(dir, { 'use.ts': use })).toBe('')
  }, 120_000)

  test('a typo in an error code or an event field does not compile', async () => {
    const wrong = `
import type { components } from './schema'
export const code: components['schemas']['ErrorCode'] = 'not_fund'
export const seq = (e: components['schemas']['ConnectionCreatedEvent']): string => e.data.record[0].host
`
    const out = await compile(dir, { 'wrong.ts': wrong })
    expect(out).toContain('not_fund')
    expect(out).toContain("'record' does not exist")
  }, 120_000)
})
