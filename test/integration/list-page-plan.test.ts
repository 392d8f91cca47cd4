// A list page costs the same however deep its cursor (src/db/connections.ts connectionVersionsPage):
// on a seeded table with a workspace holding a tenth of the connections (bench/lib/scale-seed.ts, as
// bench/scale.ts lists from), the page's statement, planned for that workspace as a fresh prepared
// statement is, reads its 51 entries along connections_tenant_page from the cursor. Measured with
// PostgreSQL's own counters for the statement alone: which index scanned, how many of its blocks and
// how many rows were fetched. A cursor written as a (tenant_id, id) row read every index page before
// it (here about a dozen more for a page at nine tenths); `id > cursor` planned a walk of the primary
// key that fetched ten rows for each one shown.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { connect, type Sql } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { connectionVersionsPage } from '../../src/db/connections.ts'
import { seedConnections, seedWorkspaces, settle, tenantId } from '../../bench/lib/scale-seed.ts'
import { separateDatabaseUrl } from '../harness/db.ts'

const CONNECTIONS = 20_000
const LARGEST = { tenantId: tenantId(1) }

let db: Sql
let ids: string[]
beforeAll(async () => {
  // A database of its own: the seeded workspaces must not reach other files' sweeps and lists.
  db = connect(await separateDatabaseUrl(), 2)
  await migrate(db)
  const now = new Date()
  await seedWorkspaces(db, now)
  await seedConnections(db, 0, CONNECTIONS, now, now)
  await settle(db)
  ids = ((await db`select id from connections where tenant_id = ${LARGEST.tenantId} and disconnected_at is null order by id`) as { id: string }[]).map((r) => r.id)
}, 120_000)
afterAll(() => db.close())

interface Cost {
  pageScans: number
  indexBlocks: number
  rowsFetched: number
}

const counters = async (c: Sql): Promise<Cost> => {
  const [r] = (await c`
    select (select idx_scan from pg_stat_user_indexes where indexrelname = 'connections_tenant_page')::int as "pageScans",
      (idx_blks_hit + idx_blks_read)::int as "indexBlocks",
      (select idx_tup_fetch from pg_stat_user_tables where relname = 'connections')::int as "rowsFetched"
    from pg_statio_user_indexes where indexrelname = 'connections_tenant_page'`) as Cost[]
  return r!
}

/** What one page's statement read, alone: counters flushed before and after it on its own session. */
async function pageCost(after: string): Promise<{ cost: Cost; page: string[] }> {
  const c = await db.reserve()
  try {
    await c`select pg_stat_force_next_flush()`
    const before = await counters(c)
    const page = (await connectionVersionsPage(c, LARGEST, {}, after, 50)).map((r) => r.id)
    await c`select pg_stat_force_next_flush()`
    const now = await counters(c)
    return { cost: { pageScans: now.pageScans - before.pageScans, indexBlocks: now.indexBlocks - before.indexBlocks, rowsFetched: now.rowsFetched - before.rowsFetched }, page }
  } finally {
    c.release()
  }
}

test('the largest workspace holds a tenth of the connections, across the whole id range', () => {
  expect(ids.length).toBeGreaterThan(CONNECTIONS / 20)
  expect(ids.length).toBeLessThan(CONNECTIONS / 5)
})

test('a first page and a page nine tenths deep each read 51 rows along connections_tenant_page', async () => {
  const cut = ids[Math.floor(ids.length * 0.9)]!
  const first = await pageCost('')
  const deep = await pageCost(cut)
  expect(first.page).toEqual(ids.slice(0, 51))
  expect(deep.page).toEqual(ids.slice(ids.indexOf(cut) + 1, ids.indexOf(cut) + 52))
  for (const { cost } of [first, deep]) {
    expect(cost.pageScans).toBe(1)
    expect(cost.rowsFetched).toBeLessThanOrEqual(51)
  }
  // The index's root and the leaf (or two) holding the page, and what the planner looks up at the ends
  // of the index: not the dozen or so leaves before the cursor.
  expect(deep.cost.indexBlocks).toBeLessThanOrEqual(first.cost.indexBlocks + 3)
  expect(deep.cost.indexBlocks).toBeLessThanOrEqual(6)
})

test('the last page of the workspace ends there: no walk on through the other workspaces\' rows', async () => {
  const last = await pageCost(ids.at(-10)!)
  expect(last.page).toEqual(ids.slice(-9))
  expect(last.cost.pageScans).toBe(1)
  expect(last.cost.rowsFetched).toBeLessThanOrEqual(9)
  expect(last.cost.indexBlocks).toBeLessThanOrEqual(6)
})
