import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { monitorPage, monitorSummary } from '../../db/monitor.ts'
import { EVERY } from '../../domain/monitor.ts'
import { Id, Input, Out } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { refuseFirst, type Refusal } from '../checks.ts'
import { entryOut, EntrySchema, TAG } from './shared.ts'

const DEFAULT_LIMIT = 200

const MAX_LIMIT = 1000

const CURSOR_TTL_MS = 12 * 3_600_000


interface Cursor {
  /** The first page's snapshot (`pg_snapshot` text form). */
  s: string
  /** When the first page was read (ms), for expiry. */
  t: number
  /** Last rank and id returned. */
  r: number
  i: string
  a: string | null
}

const cursorField = (message: string) => () => [{ in: 'query' as const, field: 'cursor', message }]

/** What a cursor sent back is judged on: whether it parsed into a cursor's shape, and it against the listing and the time. */
interface CursorFacts {
  c: Cursor | null
  appId: string | null
  now: Date
}

/** Refusals of a cursor, in order (src/ops/checks.ts). */
export const CURSOR_REFUSALS: readonly Refusal<CursorFacts>[] = [
  { when: ({ c }) => !c, code: 'invalid_request', title: 'cursor is not valid', details: cursorField('use next_cursor from the previous page, or start again without it') },
  { when: ({ c, appId }) => c!.a !== appId, code: 'invalid_request', title: 'cursor belongs to another listing', details: cursorField('keep the same app_id across pages') },
  { when: ({ c, now }) => now.getTime() - c!.t > CURSOR_TTL_MS, code: 'invalid_request', title: 'cursor has expired', details: cursorField('start again without a cursor') },
]

function snapshotValid(s: string): boolean {
  const m = /^(\d{1,20}):(\d{1,20}):((?:\d{1,20}(?:,\d{1,20})*)?)$/.exec(s)
  if (!m) return false
  const xmin = BigInt(m[1]!)
  const xmax = BigInt(m[2]!)
  const xip = m[3] ? m[3].split(',').map(BigInt) : []
  return xmin <= xmax && xip.every((x) => x >= xmin && x < xmax)
}

/** The cursor `raw` decodes to when it has a cursor's shape, else null. */
function parseCursor(raw: string): Cursor | null {
  let c: Cursor
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor
  } catch {
    return null
  }
  const shaped =
    typeof c?.s === 'string' && snapshotValid(c.s) && Number.isInteger(c.t) && Number.isInteger(c.r) && c.r >= 0 && c.r <= 3 &&
    typeof c.i === 'string' && /^con_[0-9a-z]+$/.test(c.i) && (c.a === null || typeof c.a === 'string')
  return shaped ? c : null
}

function decodeCursor(raw: string, appId: string | null, now: Date): Cursor {
  const c = parseCursor(raw)
  refuseFirst(CURSOR_REFUSALS, { c, appId, now })
  return c!
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url')


const SummarySchema = named('MonitorSummary', Out({
  domains: Type.Integer({ description: 'Every open connection' }),
  watched: Type.Integer({ description: 'Live connections, checked hourly' }),
  ok: Type.Integer(),
  drift: Type.Integer(),
  needs_action: Type.Integer({ description: 'Watched domains whose drift a person must fix' }),
  inconclusive: Type.Integer(),
  not_checked: Type.Integer({ description: 'Watched domains not checked yet' }),
}))

export const listMonitorDomainsOp = defineOp({
  id: 'monitor.domains',
  method: 'GET',
  path: '/monitor/domains',
  summary: 'Monitored domains, attention first',
  description:
    'Every open connection of the workspace (or of `app_id`), ordered by attention: action required, drift, inconclusive, then the ' +
    'rest, each group by connection id. Live connections are watched: checked at once when they go live, then hourly against live ' +
    'DNS, each at its own offset within the hour. ' +
    '`limit` 1 to 1000 (default 200; larger is read as 1000); pages follow `next_cursor`, absent on the last page. All pages of one ' +
    'listing follow the ordering as of its first page, so a domain whose state changes meanwhile appears exactly once (its entry ' +
    'shows its current state); a cursor is accepted for 12 hours. `summary` counts every domain, as of now.',
  tag: TAG,
  auth: ['KEY', 'AGENT'],
  permission: 'connections:read',
  scope: 'domains:read',
  query: Input({
    app_id: Type.Optional(Id('app')),
    limit: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMIT, description: '1 to 1000; larger is read as 1000' })),
    cursor: Type.Optional(Type.String({ maxLength: 4000 })),
  }),
  response: Out({
    every: Type.String({ description: 'How often each watched domain is checked' }),
    auto_repair: Type.Boolean({ description: 'A repair rail is wired: drift on managed connections is repaired automatically' }),
    next_cursor: Type.Optional(Type.String()),
    summary: SummarySchema,
    domains: Type.Array(EntrySchema),
  }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'Lists the watched domains, those needing attention first (records drifted, repaired or failing), with a summary count. Pass next_cursor back for the next page.',
    toolset: 'read',
    output: ['summary', 'domains', 'next_cursor'],
  },
  async handler(ctx, input) {
    const p = ctx.principal
    const appId = input.app_id ?? null
    if (appId) await getApplicationInTenant(ctx.sql, p.tenantId, appId)
    const limit = Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT)
    const now = ctx.clock.now()
    const after = input.cursor ? decodeCursor(input.cursor, appId, now) : null
    const [rows, summary] = await Promise.all([monitorPage(ctx.sql, p.tenantId, appId, after, limit), monitorSummary(ctx.sql, p.tenantId, appId)])
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    const next = rows.length > limit && last ? encodeCursor({ s: last.snap, t: after?.t ?? now.getTime(), r: last.rank_at, i: last.id, a: appId }) : undefined
    return {
      every: EVERY,
      auto_repair: ctx.services.monitorRepair !== undefined,
      ...(next ? { next_cursor: next } : {}),
      summary,
      domains: page.map((r) => entryOut(ctx, r)),
    }
  },
})
