// Connections as the API shows them (connectionOut), remembered per row version, so a list page
// reads two columns per row (id and version) instead of the whole row: a page of fifty costs
// PostgreSQL and Portico about what a single read costs, where writing, reading and serialising every
// column of fifty rows cost eight reads (bench/scale.ts).
//
// The version is the row's `xmin`, which PostgreSQL gives every new version of a row (any UPDATE,
// HOT or not), so a view is found only for the very row version it was made from: there is nothing to
// invalidate. A view is a pure function of its row (connectionOut reads nothing else). Each entry
// also expires after TTL_MS: `xmin` is a 32-bit transaction id that comes round after four billion
// transactions, and an entry never lives that long. Timestamps are kept as the ISO strings the
// answer carries (serialising a Date costs several times a string's). Bounded: the oldest view goes
// first unless it was read since it was last passed over (second chance: a read only sets a flag).
// Per process; nothing is shared or written.
import type { Sql } from '../db/sql.ts'
import { connectionVersionsPage, openConnectionsByIds } from '../db/connections.ts'
import { connectionOut } from './connections.ts'
import { jsonText, withJsonText } from '../json.ts'

type Out = ReturnType<typeof connectionOut>
/** A connection as the answer carries it: connectionOut with its timestamps as ISO strings. */
export type ConnectionView = { [K in keyof Out]: Out[K] extends Date ? string : Out[K] extends Date | null ? string | null : Out[K] }

const TTL_MS = 10 * 60_000

/** The view of a row, with its JSON text (a list page is written from the texts: src/json.ts). */
function viewOf(out: Out): ConnectionView {
  const v: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(out)) v[k] = x instanceof Date ? x.toJSON() : x // what JSON.stringify writes for it
  return withJsonText(v, JSON.stringify(v)) as ConnectionView
}

/**
 * A list page's answer, its JSON text written from its views' texts: serialising fifty views again
 * cost a third of a list page's CPU.
 */
export function pageAnswer(page: ConnectionView[], nextCursor: string | undefined): { connections: ConnectionView[]; count: number; next_cursor?: string } {
  const body = { connections: page, count: page.length, ...(nextCursor !== undefined ? { next_cursor: nextCursor } : {}) }
  let text = '{"connections":['
  for (let i = 0; i < page.length; i++) text += (i ? ',' : '') + jsonText(page[i])
  text += `],"count":${page.length}${nextCursor !== undefined ? `,"next_cursor":${JSON.stringify(nextCursor)}` : ''}}`
  return withJsonText(body, text)
}

export class ConnectionViews {
  private readonly entries = new Map<string, { v: string; view: ConnectionView; until: number; used: boolean }>()

  constructor(private readonly max = 20_000) {}

  get(id: string, version: string, nowMs: number): ConnectionView | undefined {
    const e = this.entries.get(id)
    if (!e || e.v !== version || e.until <= nowMs) return undefined
    // Marked, not moved: a page of fifty hits costs fifty flags (second-chance eviction in `set`).
    e.used = true
    return e.view
  }

  set(id: string, version: string, view: ConnectionView, nowMs: number): void {
    this.entries.delete(id)
    this.entries.set(id, { v: version, view, until: nowMs + TTL_MS, used: false })
    // The oldest view not used since it was last passed over goes; a used one is given another round.
    while (this.entries.size > this.max) {
      const [oldest, e] = this.entries.entries().next().value!
      this.entries.delete(oldest)
      if (e.used) {
        e.used = false
        this.entries.set(oldest, e)
      }
    }
  }

  get size(): number {
    return this.entries.size
  }
}

/**
 * One page of a tenant's open connections, as the answer shows them: the window (ids and versions)
 * in one round trip, and the rows this process has not seen at their version in a second. A row that
 * changed between the two is shown as it is now; one closed between them is left out (the window still
 * ends where it ended, so the next page misses nothing). `rows` is the window, one longer than `limit`
 * when a next page exists.
 */
export async function connectionsPageViews(
  sql: Sql,
  views: ConnectionViews,
  p: { tenantId: string },
  filter: { app_id?: string; status?: string; domain?: string; end_user_ref?: string },
  after: string,
  limit: number,
): Promise<{ page: ConnectionView[]; window: { id: string }[] }> {
  const window = await connectionVersionsPage(sql, p, filter, after, limit)
  const shown = window.slice(0, limit)
  const now = Date.now()
  const found = new Map<string, ConnectionView>()
  const missing: string[] = []
  for (const r of shown) {
    const view = views.get(r.id, r.v, now)
    if (view) found.set(r.id, view)
    else missing.push(r.id)
  }
  if (missing.length > 0) {
    for (const row of await openConnectionsByIds(sql, p.tenantId, missing)) {
      const view = viewOf(connectionOut(row))
      views.set(row.id, row.v, view, now)
      found.set(row.id, view)
    }
  }
  const page: ConnectionView[] = []
  for (const r of shown) {
    const view = found.get(r.id)
    if (view) page.push(view)
  }
  return { page, window }
}
