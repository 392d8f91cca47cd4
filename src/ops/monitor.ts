// Monitor operations (CONTRACT.md section 4, "Templates, Secure, Monitor"; section 2, "Monitor domain
// entry"): the attention-first listing with summary counters, one connection's monitor detail, and
// the widget's read-only check of a supplied baseline against live DNS.
//
// Paging while drift changes: the first page is read in one statement whose MVCC snapshot goes into
// the cursor. Every rank change is logged with the id of the transaction that wrote it (the sweep,
// src/jobs/monitor-sweep.ts), so later pages read each domain's rank as of that snapshot with
// `pg_visible_in_snapshot`. All pages are therefore cuts of one ordering, keyed (rank, id), and a
// domain whose drift changes between pages is neither repeated nor skipped; its entry still shows
// its current state. The rank log holds 24 changes (at most one per hourly check), so a cursor is
// accepted for 12 hours.
import { isTestDomain, testZoneDns } from '../domain/test-mode.ts'
import { named } from '../domain/named.ts'
import { Type } from '@sinclair/typebox'
import { invalid } from '../errors.ts'
import { assertHostAllowed, connectionFor } from '../domain/connections.ts'
import { absoluteHost, parseDomain } from '../domain/hostnames.ts'
import { compareBaseline, EVERY, MANUAL_DETAIL, NO_RAIL_DETAIL, scheduleOf } from '../domain/monitor.ts'
import { DnsRecordSchema } from '../domain/records.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import { monitorHistory, monitorPage, monitorRowOf, monitorSummary, type MonitorRow as Row } from '../db/monitor.ts'
import { defineOp, type Ctx } from './registry.ts'
import { END_USER } from './authority.ts'
import { Id, IdParam, Input, Nullable, Out, outside, Timestamp } from './schemas.ts'

const TAG = 'Monitor'
const DEFAULT_LIMIT = 200
const MAX_LIMIT = 1000
const CURSOR_TTL_MS = 12 * 3_600_000
const HISTORY_LIMIT = 50

const Strings = Type.Array(Type.String())
const VerdictSchema = Type.Union([Type.Literal('record_missing'), Type.Literal('record_changed'), Type.Literal('extra_value')])

const DriftItemSchema = Out({ subdomain: Type.String({ description: 'The record host as in the baseline (`@` is the apex)' }), type: Type.String(), verdict: VerdictSchema, expected: Strings, observed: Type.Array(Type.String(), { description: 'What DNS answers now', ...outside('dns') }) })

const HistorySchema = named('MonitorHistoryEntry', Out({
  id: Type.String(),
  application_id: Type.String(),
  connection_id: Type.String(),
  domain: Type.String(),
  kind: Type.Union(['drift', 'restored', 'auto_fixed', 'repair_failed'].map((k) => Type.Literal(k))),
  detail: Type.Object({}, { additionalProperties: true, description: 'What was seen; may quote DNS answers and the DNS provider', ...outside('dns') }),
  created_at: Timestamp(),
}))

const EntrySchema = named('MonitorDomain', Out({
  connection_id: Type.String(),
  application_id: Type.String(),
  domain: Type.String(),
  status: Type.String({ description: 'The connection status; only live connections are watched' }),
  watched: Type.Boolean(),
  active: Type.Boolean({ description: 'Checks are running for it (watched and not paused)' }),
  every: Type.String(),
  last_checked_at: Nullable(Timestamp('The last check: its domain\'s slot in the hour for a check that found nothing new, the time of the check otherwise; null before the first')),
  next_check_at: Nullable(Timestamp('The next check: the domain\'s slot in the coming hour, at least 10 minutes after the last check')),
  result: Nullable(Type.Union([Type.Literal('ok'), Type.Literal('drift'), Type.Literal('inconclusive')], { description: 'null: not checked yet' })),
  drift_since: Nullable(Timestamp()),
  drift: Type.Array(DriftItemSchema),
  checked: Type.Integer({ description: 'How many checks were made' }),
  error: Nullable(Type.String({ description: 'The resolver failure of an inconclusive check', ...outside('dns') })),
  action: Nullable(Out({ kind: Type.Literal('auto_fixed'), at: Timestamp(), description: Type.String() })),
  attention: Nullable(Type.Literal('action_required')),
  repair: Out({ automatic: Type.Boolean(), paused: Type.Boolean(), via: Nullable(Type.Literal('managed_dns')), detail: Type.String({ description: 'The repair policy, or what the last repair met; may quote the DNS provider', ...outside('provider') }) }),
  alerts: Out({ webhooks: Type.Boolean(), email: Type.Boolean() }),
  watching: Type.Array(Out({ name: Type.String(), type: Type.String(), value: Type.String() })),
  history: Type.Optional(Type.Array(HistorySchema, { description: 'Newest first; in the per-connection detail only' })),
}))


function repairOf(ctx: Ctx, r: Row) {
  const automatic = r.managed && ctx.services.monitorRepair !== undefined
  const policy = r.managed ? (automatic ? 'Drift is repaired through the managed grant.' : NO_RAIL_DETAIL) : MANUAL_DETAIL
  return { automatic, paused: false, via: r.managed ? ('managed_dns' as const) : null, detail: r.repair_detail ?? policy }
}

function entryOut(ctx: Ctx, r: Row) {
  const watched = r.status === 'live'
  // Unchanged checks are not written: the count, last and next check follow from the sweep's watermark.
  const schedule = r.enrolled_at ? scheduleOf(r.slot_ms!, r.checked ?? 0, r.last_checked_at, r.swept_to, r.enrolled_at) : null
  return {
    connection_id: r.id,
    application_id: r.application_id,
    domain: r.domain,
    status: r.status,
    watched,
    active: watched,
    every: EVERY,
    last_checked_at: schedule?.last_checked_at ?? null,
    next_check_at: watched ? (schedule?.next_check_at ?? null) : null,
    result: r.result ?? null,
    drift_since: r.drift_since ?? null,
    drift: r.drift ?? [],
    checked: schedule?.checked ?? 0,
    error: r.error ?? null,
    action: r.action ?? null,
    attention: r.attention ?? null,
    repair: repairOf(ctx, r),
    alerts: { webhooks: ctx.config.monitorAlertsEnabled, email: false },
    watching: r.desired_records.filter((d) => d.type !== 'REDIR301').map((d) => ({ name: absoluteHost(d.host, r.apex_domain), type: d.type, value: d.value })),
  }
}

// ---- Cursor ---------------------------------------------------------------------------------------

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

const badCursor = () => invalid('cursor is not valid', [{ in: 'query', field: 'cursor', message: 'use next_cursor from the previous page, or start again without it' }])

function snapshotValid(s: string): boolean {
  const m = /^(\d{1,20}):(\d{1,20}):((?:\d{1,20}(?:,\d{1,20})*)?)$/.exec(s)
  if (!m) return false
  const xmin = BigInt(m[1]!)
  const xmax = BigInt(m[2]!)
  const xip = m[3] ? m[3].split(',').map(BigInt) : []
  return xmin <= xmax && xip.every((x) => x >= xmin && x < xmax)
}

function decodeCursor(raw: string, appId: string | null, now: Date): Cursor {
  let c: Cursor
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor
  } catch {
    throw badCursor()
  }
  const shaped =
    typeof c?.s === 'string' && snapshotValid(c.s) && Number.isInteger(c.t) && Number.isInteger(c.r) && c.r >= 0 && c.r <= 3 &&
    typeof c.i === 'string' && /^con_[0-9a-z]+$/.test(c.i) && (c.a === null || typeof c.a === 'string')
  if (!shaped) throw badCursor()
  if (c.a !== appId) throw invalid('cursor belongs to another listing', [{ in: 'query', field: 'cursor', message: 'keep the same app_id across pages' }])
  if (now.getTime() - c.t > CURSOR_TTL_MS) throw invalid('cursor has expired', [{ in: 'query', field: 'cursor', message: 'start again without a cursor' }])
  return c
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url')

// ---- Operations -----------------------------------------------------------------------------------

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

export const connectionMonitorOp = defineOp({
  id: 'connections.monitor',
  method: 'GET',
  path: '/connections/{id}/monitor',
  summary: 'Monitor detail of one connection',
  description: 'The monitor entry of the connection with its history of drift, restorations and repairs (newest first, up to 50).',
  tag: TAG,
  auth: ['KEY', 'AGENT'],
  permission: 'connections:read',
  scope: 'domains:read',
  params: IdParam,
  response: EntrySchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const [row, history] = await Promise.all([monitorRowOf(ctx.sql, c), monitorHistory(ctx.sql, c, HISTORY_LIMIT)])
    return { ...entryOut(ctx, row), history }
  },
})

const RecordCheckSchema = Out({
  type: Type.String(),
  host: Type.String(),
  value: Type.String(),
  observed: Type.Array(Type.String(), { description: 'What DNS answers now', ...outside('dns') }),
  status: Type.Union(['ok', 'record_missing', 'record_changed', 'extra_value', 'inconclusive'].map((s) => Type.Literal(s))),
})

export const monitorCheckOp = defineOp({
  id: 'monitor.check',
  method: 'POST',
  path: '/monitor:check',
  summary: 'Check a baseline against live DNS',
  description:
    'Read-only: resolves each supplied record against live public DNS (through the configured resolvers) and says whether it is in ' +
    'place. `status` per record: `ok`, `record_missing`, `record_changed` (the name points elsewhere), `extra_value` (ours is there ' +
    'beside other addresses), `inconclusive` (the resolver failed). `in_sync` is true only when every record is `ok`. Hosts are ' +
    'relative to the zone apex and must be the domain or below it. The widget SDK presents this as `{inSync, records}`.',
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  body: Input({
    domain: Type.String({ minLength: 1, maxLength: 300 }),
    baseline: Type.Array(DnsRecordSchema, { minItems: 1, maxItems: 50 }),
  }),
  response: Out({ domain: Type.String(), in_sync: Type.Boolean(), checked_at: Timestamp(), records: Type.Array(RecordCheckSchema) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx, input) {
    const parsed = parseDomain(input.domain)
    if (!parsed) throw invalid(`${JSON.stringify(input.domain)} is not a domain name`, [{ in: 'body', field: 'domain', message: 'not a valid domain name' }])
    assertHostAllowed(ctx.principal, parsed.domain)
    const outside = input.baseline.findIndex((r) => {
      const name = absoluteHost(r.host, parsed.apex)
      return name !== parsed.domain && !name.endsWith('.' + parsed.domain)
    })
    if (outside >= 0) throw invalid('The baseline names a host outside the domain', [{ in: 'body', field: `baseline.${outside}.host`, message: `must be ${parsed.domain} or below it` }])
    const cmp = await compareBaseline(isTestDomain(parsed.domain) ? testZoneDns(parsed.apex, input.baseline) : ctx.services.dns, parsed.apex, input.baseline)
    return { domain: parsed.domain, in_sync: cmp.records.every((r) => r.status === 'ok'), checked_at: ctx.clock.now(), records: cmp.records }
  },
})
