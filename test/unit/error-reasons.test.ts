// Every sub-reason the code names (`reason: '…'` in error details, events and check answers, and
// Domain Connect's `refuse('…')`) is in the catalogue of src/errors.ts, so clients have one list to
// switch on and a new reason cannot slip in unnamed.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ERROR_REASONS } from '../../src/errors.ts'
import { buildOpenApi } from '../../src/http/openapi.ts'
import { OPERATIONS } from '../../src/ops/index.ts'

const ROOT = join(import.meta.dir, '../..')

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  )
}

/** The reason literals a source text names. */
export function reasonsIn(code: string): string[] {
  return [...code.matchAll(/\breason: '([a-z_]+)'|\brefuse\('([a-z_]+)'/g)].map((m) => (m[1] ?? m[2])!)
}

describe('details.reason catalogue', () => {
  test('every reason named in the code is catalogued', () => {
    const named = new Map<string, string>()
    // A provider's reference card (src/adapters/dns-providers/<id>/card.ts) and stand-in are test data:
    // a card's `reason` is the adapter's error kind (ProviderErrorKind) a documented error maps to.
    const scanned = [...files('src'), ...files('oauth'), ...files('mcp')].filter((f) => !/\/(card|stand-in)\.ts$/.test(f))
    for (const f of scanned) for (const r of reasonsIn(readFileSync(join(ROOT, f), 'utf8'))) named.set(r, f)
    expect(named.size).toBeGreaterThan(15)
    const missing = [...named].filter(([r]) => !(r in ERROR_REASONS)).map(([r, f]) => `${r} (${f})`)
    expect(missing).toEqual([])
  })

  test('the scan finds reasons where they are written', () => {
    expect(reasonsIn("throw invalid('x', { reason: 'state_used' }); refuse('not_discovered', 'y')")).toEqual(['state_used', 'not_discovered'])
    expect(reasonsIn("{ reason: 'made_up_reason' }").every((r) => r in ERROR_REASONS)).toBe(false)
  })

  test('every catalogued reason says what it means', () => {
    for (const [id, meaning] of Object.entries(ERROR_REASONS)) expect({ id, described: meaning.length > 10 }).toEqual({ id, described: true })
  })

  test('every catalogued reason is declared in the OpenAPI document, with its meaning, where details.reason is', () => {
    // A client generated from /v1/openapi.json must know every reason an answer can carry
    // (provider_unreachable, insufficient_permission, credential_refused were answered but undeclared).
    const doc = buildOpenApi(OPERATIONS, { publicUrl: 'http://portico.test', version: 'test' }) as any
    const declared = doc.components.schemas.ErrorReason
    expect(declared.enum.sort()).toEqual(Object.keys(ERROR_REASONS).sort())
    for (const [r, meaning] of Object.entries(ERROR_REASONS)) expect({ r, said: declared.description.includes(`\`${r}\` ${meaning.charAt(0).toLowerCase()}${meaning.slice(1)}`) }).toEqual({ r, said: true })
    const objectDetails = doc.components.schemas.Error.properties.details.anyOf.find((s: any) => s.type === 'object')
    expect(objectDetails.properties.reason).toEqual({ $ref: '#/components/schemas/ErrorReason' })
  })
  test('a 503 of an operation that writes through a DNS provider shows the provider\'s server error, not "not available on this deployment"', () => {
    const doc = buildOpenApi(OPERATIONS, { publicUrl: 'http://portico.test', version: 'test' }) as any
    const examples: { op: string; title: string }[] = []
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const r = op?.responses?.['503']
        const codes: string[] = Object.values(op?.responses ?? {}).flatMap((x: any) => x?.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? [])
        if (r && codes.includes('dns_write_failed')) examples.push({ op: `${method} ${path}`, title: r.content['application/json'].example.title })
      }
    }
    expect(examples.length).toBeGreaterThan(2)
    for (const e of examples) expect(e).toEqual({ op: e.op, title: expect.stringContaining('The DNS provider') })
    // provider_server_error does not promise everything was put back: not_restored may name what was not.
    expect(ERROR_REASONS.provider_server_error).not.toContain('What the write had changed was put back')
  })
})
