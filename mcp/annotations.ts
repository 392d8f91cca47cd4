// An agent tool's annotations, derived from what its operation declares (src/ops/registry.ts), never
// written by hand: a host that auto-approves what is not destructive must be able to trust them.
// - readOnlyHint: the operation only reads (`kind: read`);
// - destructiveHint: it may replace or remove records in a customer's zone (`zone: replaces | removes`),
//   or destroys something of Portico's (`kind: destroy`);
// - idempotentHint: a read, or a write declared `idempotent` (a repeat changes nothing more), unless it
//   replaces records: such a write acts on what the zone holds at the time, so a repeat after the
//   customer put a record back replaces it again;
// - openWorldHint: it asks DNS or a DNS provider about the zone, or changes the zone (`zone` other than `none`).
// test/unit/tool-annotations.test.ts walks the registry and checks each agent operation's declaration
// against what it can answer (a person's confirmation, a DNS write failing).
import type { ToolAnnotations } from '@modelcontextprotocol/server'
import type { AnyOp, ZoneEffect } from '../src/ops/registry.ts'

/** The zone effects a host must treat as destructive. */
export const DESTRUCTIVE_ZONE: readonly ZoneEffect[] = ['replaces', 'removes']

export function zoneOf(op: AnyOp): ZoneEffect {
  if (!op.zone) throw new Error(`${op.id} is an agent operation without a declared zone effect (src/ops/registry.ts ZoneEffect)`)
  return op.zone
}

export function annotationsOf(op: AnyOp): Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>> {
  const zone = zoneOf(op)
  const readOnly = op.kind === 'read'
  return {
    readOnlyHint: readOnly,
    destructiveHint: DESTRUCTIVE_ZONE.includes(zone) || op.kind === 'destroy',
    idempotentHint: readOnly || (op.idempotent === true && zone !== 'replaces'),
    openWorldHint: zone !== 'none',
  }
}
