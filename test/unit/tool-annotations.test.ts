// Tool annotations are derived from what each operation declares it can do to a customer's zone
// (mcp/annotations.ts), never set by hand. A host that auto-approves tools not marked destructive must
// be able to trust that: this test walks the registry and holds each agent operation's declaration
// against what the operation itself can answer, and the derived annotations against the rules. The
// zone effect of `connections.apply` is shown from the zone's side in test/integration/agent-intent.test.ts
// (an agent's write replacing an MX and an apex address in PowerDNS).
import { describe, expect, test } from 'bun:test'
import { OPERATIONS } from '../../src/ops/index.ts'
import { withOpenApi } from '../../src/http/openapi.ts'
import { agentOperations, buildTools } from '../../mcp/tools.ts'
import { annotationsOf } from '../../mcp/annotations.ts'
import type { ZoneEffect } from '../../src/ops/registry.ts'

const ops = agentOperations(withOpenApi(OPERATIONS))
const CHANGES_ZONE: readonly ZoneEffect[] = ['adds', 'replaces', 'removes']

describe('every agent operation declares what it can do to a customer\'s zone', () => {
  test.each(ops.map((op) => [op.id, op] as const))('%s', (_id, op) => {
    expect(op.zone).toBeDefined()
    // A read never changes a zone.
    if (op.kind === 'read') expect(['none', 'looks']).toContain(op.zone!)
    // An act the person must confirm (the API contract confirmation_required) replaces or removes records.
    if (op.errors.includes('confirmation_required')) expect(['replaces', 'removes']).toContain(op.zone!)
    // An operation that can fail a DNS write writes DNS.
    if (op.errors.includes('dns_write_failed')) expect(CHANGES_ZONE).toContain(op.zone!)
    // A provider credential refused means a provider was reached.
    if (op.errors.includes('ProviderAuthenticationError')) expect(op.zone).not.toBe('none')
  })
})

describe('annotations follow from the declaration', () => {
  const tools = buildTools(withOpenApi(OPERATIONS))
  test.each(tools.map((t) => [t.name, t] as const))('%s', (_name, tool) => {
    const op = tool.op
    const a = tool.descriptor.annotations!
    expect(a).toEqual(annotationsOf(op))
    expect(a.readOnlyHint).toBe(op.kind === 'read')
    expect(a.destructiveHint).toBe(op.zone === 'replaces' || op.zone === 'removes' || op.kind === 'destroy')
    expect(a.openWorldHint).toBe(op.zone !== 'none')
    // A write that replaces records acts on what the zone holds at the time: a repeat may replace again.
    if (op.zone === 'replaces') expect(a.idempotentHint).toBe(false)
    if (a.readOnlyHint) expect(a.destructiveHint).toBe(false)
  })

  test('the issue\'s tools: applying may replace MX, NS, apex or TXT records, so it is destructive and not idempotent; disconnect is destructive', () => {
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.descriptor.annotations]))
    expect(byName.connections_apply).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true })
    expect(byName.connections_disconnect).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true })
    // The tools a person must confirm are exactly the destructive ones.
    const confirmed = tools.filter((t) => t.op.errors.includes('confirmation_required')).map((t) => t.name).sort()
    const destructive = tools.filter((t) => t.descriptor.annotations!.destructiveHint).map((t) => t.name).sort()
    expect(confirmed).toEqual(destructive)
  })

  test('an agent operation without a declaration cannot become a tool', () => {
    const [first] = ops
    expect(() => buildTools([{ ...first!, zone: undefined }])).toThrow(/zone effect/)
  })
})
