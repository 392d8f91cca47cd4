// The authority matrix: for every operation, which credentials may call it. Each operation declares its
// part (`auth`, `permission`, `scope`, `widget` in the registry) and src/ops/run.ts `authorize` with
// src/http/auth.ts enforce it; this module reads the declarations back as one table (operations by
// credential kind), which docs/authority-matrix.md publishes and the generated security test checks
// against what the server really answers to each credential.
import type { Credential, WidgetClass } from '../domain/principal.ts'
import { AGENT_SCOPE_IDS, ROLES, can, type MemberRole } from '../domain/rbac.ts'
import type { AnyOp } from './registry.ts'

/** Any widget token: the end user's flow. A domain-bound one acts on its own hostname only (the handler checks). */
export const END_USER: readonly WidgetClass[] = ['app', 'connect', 'domain']
/** Only the application-scoped token, minted for the integrator's own pages: application-level resources. */
export const APP_ONLY: readonly WidgetClass[] = ['app']
/** Only a token bound to the connection's hostname (removing a domain, the API contract, section 4). */
export const BOUND_ONLY: readonly WidgetClass[] = ['domain']

/** One column of the matrix: a credential kind as a caller holds it. */
export type Column =
  | { id: string; kind: 'MGMT' | 'PROV' | 'EDGE' | 'NONE' }
  | { id: string; kind: 'KEY'; role: MemberRole }
  | { id: string; kind: 'WIDGET'; widget: WidgetClass }
  | { id: string; kind: 'AGENT'; scope: string }

export const COLUMNS: readonly Column[] = [
  { id: 'MGMT', kind: 'MGMT' },
  { id: 'PROV', kind: 'PROV' },
  ...ROLES.map((role) => ({ id: `KEY ${role}`, kind: 'KEY' as const, role })),
  ...(['app', 'connect', 'domain'] as const).map((widget) => ({ id: `WIDGET ${widget}`, kind: 'WIDGET' as const, widget })),
  ...AGENT_SCOPE_IDS.map((scope) => ({ id: `AGENT ${scope}`, kind: 'AGENT' as const, scope })),
  { id: 'EDGE', kind: 'EDGE' },
  { id: 'NONE', kind: 'NONE' },
]

/** `yes`: may call it; `own`: a domain-bound widget token, on its own hostname only; `no`: refused (401 or 403). */
export type Cell = 'yes' | 'own' | 'no'

/** What an operation's declaration grants one column. */
export function authority(op: AnyOp, col: Column): Cell {
  const auth = op.auth as readonly Credential[]
  // An operation open to anyone ignores whatever credential comes with the request.
  if (auth.length === 1 && auth[0] === 'NONE') return 'yes'
  if (!auth.includes(col.kind)) return 'no'
  switch (col.kind) {
    case 'KEY':
      return !op.permission || can(col.role, op.permission) ? 'yes' : 'no'
    case 'WIDGET':
      if (!op.widget?.includes(col.widget)) return 'no'
      return col.widget === 'domain' ? 'own' : 'yes'
    case 'AGENT':
      return op.scope === col.scope ? 'yes' : 'no'
    default:
      return 'yes'
  }
}

export interface MatrixRow {
  id: string
  route: string
  cells: Record<string, Cell>
}

export function authorityMatrix(ops: readonly AnyOp[]): MatrixRow[] {
  return ops.map((op) => ({
    id: op.id,
    route: `${op.method} ${op.root ? op.path : `/v1${op.path}`}`,
    cells: Object.fromEntries(COLUMNS.map((c) => [c.id, authority(op, c)])),
  }))
}

export const CELL_MARK: Record<Cell, string> = { yes: '✓', own: 'own', no: '—' }

/** The matrix as the markdown document docs/authority-matrix.md (generated: `npm run generate`). */
export function authorityMarkdown(ops: readonly AnyOp[]): string {
  const head = ['Operation', 'Route', ...COLUMNS.map((c) => c.id)]
  const lines = [
    '# Authority matrix',
    '',
    'Generated from the operation registry (`src/ops/*`) by `npm run generate`; do not edit by hand.',
    'test/integration/authority-matrix.test.ts fails when this file is not current, and calls every operation with',
    'every credential kind to check that the server answers as the table says.',
    '',
    '- **MGMT** the management key (refused in production); **PROV** the provision secret; **EDGE** the edge shared secret.',
    '- **KEY _role_** a tenant API key of that role (permissions: `GET /v1/rbac`).',
    '- **WIDGET app** a widget token minted with `scope: "app"` and no `domain` (the integrator\'s own pages);',
    '  **WIDGET connect** one minted with scope `connect` and no `domain` (the end user\'s flow);',
    '  **WIDGET domain** one minted with a `domain` (whatever its scope): it acts on that hostname only.',
    '- **AGENT _scope_** a delegated agent token holding that one scope; **NONE** no credential.',
    '',
    `Cells: ${CELL_MARK.yes} may call it; ${CELL_MARK.own} only on the token's own hostname (its connection, or a body naming it; ` +
      `any other answers 403 or 404); ${CELL_MARK.no} refused (401 without a credential the operation accepts, 403 with a valid one ` +
      'it does not). Operations open to everyone ignore any credential sent.',
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
  ]
  for (const row of authorityMatrix(ops)) {
    lines.push(`| ${row.id} | \`${row.route}\` | ${COLUMNS.map((c) => CELL_MARK[row.cells[c.id]!]).join(' | ')} |`)
  }
  return lines.join('\n') + '\n'
}

/** Reads a matrix back from its markdown (the reviewed file the generated test holds the server to). */
export function parseAuthorityMarkdown(text: string): Map<string, Record<string, Cell>> {
  const byMark = new Map(Object.entries(CELL_MARK).map(([cell, mark]) => [mark, cell as Cell]))
  const rows = text.split('\n').filter((l) => l.startsWith('| '))
  const head = rows.shift()!.split('|').slice(1, -1).map((s) => s.trim())
  const out = new Map<string, Record<string, Cell>>()
  for (const line of rows) {
    const parts = line.split('|').slice(1, -1).map((s) => s.trim())
    const cells: Record<string, Cell> = {}
    head.forEach((h, i) => {
      if (i < 2) return
      const cell = byMark.get(parts[i]!)
      if (!cell) throw new Error(`authority matrix: ${parts[0]} has an unknown cell ${JSON.stringify(parts[i])} under ${h}`)
      cells[h] = cell
    })
    out.set(parts[0]!, cells)
  }
  return out
}
