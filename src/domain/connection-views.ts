// Connections as the API shows them (connectionOut), remembered per row version (src/domain/row-views.ts):
// a read of one connection asks for its version and makes the view only for a version this process has
// not seen; a list page reads two columns per row (id and version) instead of the whole row, so a page
// of fifty costs PostgreSQL and Portico about what a single read costs, where writing, reading and
// serialising every column of fifty rows cost eight reads (bench/scale.ts). A view is a pure function
// of its row (connectionOut reads nothing else); its timestamps are kept as the ISO strings the answer
// carries (serialising a Date costs several times a string's). A list page's answer is remembered too,
// by its rows' ids and versions (`pageKey`), so a page asked again while its rows are unchanged costs
// its window and nothing else.
import type { Sql } from '../db/sql.ts'
import { connectionHead, connectionVersionsPage, openConnectionsByIds } from '../db/connections.ts'
import { checkSeen, connectionOut } from './connections.ts'
import { notFound } from '../errors.ts'
import type { Principal } from './principal.ts'
import { jsonText, keepRepresentations, withJsonText } from '../json.ts'
import { RowViews, SecondChance } from './row-views.ts'

type Out = ReturnType<typeof connectionOut>
/** A connection as the answer carries it: connectionOut with its timestamps as ISO strings. */
export type ConnectionView = { [K in keyof Out]: Out[K] extends Date ? string : Out[K] extends Date | null ? string | null : Out[K] }

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

export type PageAnswer = ReturnType<typeof pageAnswer>

export class ConnectionViews extends RowViews<ConnectionView> {
  /**
   * Answers of list pages by their rows' ids and versions and their next cursor, which is all an
   * answer is made of: a page asked again while its rows are unchanged (an integrator polling its
   * first page, a dashboard) is the same answer, its text, UTF-8 and compressed forms made once
   * (src/json.ts `keepRepresentations`). The budget counts each answer's text twice (its UTF-8 beside it).
   */
  private readonly pages: SecondChance<PageAnswer>

  constructor(max = 20_000, pageBudget = 16 * 1024 * 1024) {
    super(max)
    this.pages = new SecondChance(pageBudget)
  }

  /** The answer remembered under `key` (`pageKey`), if any. */
  knownPage(key: string, nowMs: number): PageAnswer | undefined {
    return this.pages.get(key, nowMs)
  }

  /** Remembers a page's answer under `key`, with its representations kept (src/json.ts). */
  rememberPage(key: string, answer: PageAnswer, nowMs: number): PageAnswer {
    keepRepresentations(answer)
    this.pages.set(key, answer, key.length + 2 * jsonText(answer)!.length, nowMs)
    return answer
  }
}

/** What a page's answer is made of: its rows' ids at their versions, and the last id of a page that has a next one. */
function pageKey(rows: { id: string; v: string }[], nextAfter: string | undefined): string {
  let key = nextAfter ?? ''
  for (const r of rows) key += `|${r.id}:${r.v}`
  return key
}

/**
 * One page of a tenant's open connections, as the answer shows it: the window (ids and versions) in
 * one round trip; the answer already made for those very rows when there is one (the page's text and
 * bytes made once: nothing else is read or written); else the rows this process has not seen at their
 * version in a second round trip. A row that changed between the two is shown as it is now; one closed
 * between them is left out (the window still ends where it ended, so the next page misses nothing).
 * `cursorAfter` makes the next page's cursor from the page's last id.
 */
export async function connectionsPage(
  sql: Sql,
  views: ConnectionViews,
  p: { tenantId: string },
  filter: { app_id?: string; status?: string; domain?: string; end_user_ref?: string },
  after: string,
  limit: number,
  cursorAfter: (id: string) => string,
): Promise<PageAnswer> {
  const window = await connectionVersionsPage(sql, p, filter, after, limit)
  const shown = window.length > limit ? window.slice(0, limit) : window
  const nextAfter = window.length > limit ? shown[limit - 1]!.id : undefined
  const now = Date.now()
  const known = views.knownPage(pageKey(shown, nextAfter), now)
  if (known) return known
  const found = new Map<string, { view: ConnectionView; v: string }>()
  const missing: string[] = []
  for (const r of shown) {
    const view = views.get(r.id, r.v, now)
    if (view) found.set(r.id, { view, v: r.v })
    else missing.push(r.id)
  }
  if (missing.length > 0) {
    for (const row of await openConnectionsByIds(sql, p.tenantId, missing)) {
      const view = viewOf(connectionOut(row))
      views.set(row.id, row.v, view, now)
      found.set(row.id, { view, v: row.v })
    }
  }
  const page: ConnectionView[] = []
  const rows: { id: string; v: string }[] = []
  for (const r of shown) {
    const f = found.get(r.id)
    if (f) {
      page.push(f.view)
      rows.push({ id: r.id, v: f.v })
    }
  }
  // Remembered under the versions shown, which are the window's unless a row changed in between.
  return views.rememberPage(pageKey(rows, nextAfter), pageAnswer(page, nextAfter === undefined ? undefined : cursorAfter(nextAfter)), now)
}

/**
 * One connection as the answer shows it, for a caller `connectionFor` would give it to (else 404): its
 * version read, and the view this process made of that version when it has one, else the row read whole.
 */
export async function connectionView(sql: Sql, views: ConnectionViews, p: Principal, id: string): Promise<ConnectionView> {
  if (!('tenantId' in p)) throw notFound('Connection not found')
  const head = await connectionHead(sql, id, p.tenantId)
  checkSeen(p, head)
  const now = Date.now()
  const known = views.get(id, head.v, now)
  if (known) return known
  const [row] = await openConnectionsByIds(sql, p.tenantId, [id])
  // Closed in between: as it would have been a moment later.
  if (!row) throw notFound('Connection not found')
  const view = viewOf(connectionOut(row))
  views.set(id, row.v, view, now)
  return view
}
