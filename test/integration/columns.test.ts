// Column-wise batch parameters (src/db/columns.ts) come back from PostgreSQL entry for entry.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { connect, type Sql } from '../../src/db/sql.ts'
import { migrate } from '../../src/db/migrate.ts'
import { pack, packJson } from '../../src/db/columns.ts'
import { testDatabaseUrl } from '../harness/db.ts'

let db: Sql
beforeAll(async () => {
  db = connect(await testDatabaseUrl(), 2)
  await migrate(db)
})
afterAll(() => db.close())

const unpacked = async (packed: string) => ((await db`select unpack_column(${packed}) as a`) as { a: (string | null)[] }[])[0]!.a

test('text entries, empty strings and NULLs keep their place', async () => {
  expect(await unpacked(pack([]))).toEqual([])
  expect(await unpacked(pack(['']))).toEqual([''])
  expect(await unpacked(pack([null]))).toEqual([null])
  expect(await unpacked(pack(['', null, '', undefined]))).toEqual(['', null, '', null])
  const odd = ['a,b', '{"x"}', 'back\\slash', 'NULL', 'tab\there', 'line\nbreak', 'ünïcødé ✓', "quote'd"]
  expect(await unpacked(pack(odd))).toEqual(odd)
})

test('numbers, timestamps and JSON cast back to their types, zipped by unnest', async () => {
  const at = new Date('2026-11-23T10:00:00.123Z')
  const json = [{ a: 1, s: 'control \u001e\u001f chars and "quotes"' }, null, [1, 'two'], 'text']
  const rows = (await db`
    select * from unnest(unpack_column(${pack(['x', 'y', 'z', 'w'])}), unpack_column(${pack([1, null, -3, 0])})::int[],
      unpack_column(${pack([at.toISOString(), null, null, null])})::timestamptz[], unpack_column(${packJson(json)})::json[])
    as t(id, n, at, doc)`) as { id: string; n: number | null; at: Date | null; doc: unknown }[]
  expect(rows.map((r) => r.id)).toEqual(['x', 'y', 'z', 'w'])
  expect(rows.map((r) => r.n)).toEqual([1, null, -3, 0])
  expect(rows[0]!.at?.getTime()).toBe(at.getTime())
  expect(rows[1]!.at).toBeNull()
  expect(rows.map((r) => r.doc)).toEqual(json)
})

test('a text entry holding a separator is refused before it reaches the database', () => {
  expect(() => pack(['fine', 'not\u001efine'])).toThrow(/separator/)
  expect(() => pack(['\u001f'])).toThrow(/separator/)
})
