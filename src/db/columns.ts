// Column-wise batch parameters. A batch of rows goes to PostgreSQL as one text parameter per column,
// split back by the SQL function `unpack_column` (migration 0015) and zipped with `unnest`:
//
//   select * from unnest(unpack_column(${pack(ids)}), unpack_column(${pack(counts)})::int[])
//     as v(id, count)
//
// Entries are separated by U+001E (record separator), NULL is U+001F (unit separator), and a
// non-empty column starts with a separator. Server-side this is a plain split, where
// json_to_recordset builds a hash table for every row; client-side a join, where an array literal is
// quoted entry by entry. JSON text (JSON.stringify) never holds a raw control character, so it is
// always safe as an entry, cast back with `::json[]`.
const SEP = '\x1e'
const NUL = '\x1f'
const SEPARATORS = /[\x1e\x1f]/

type Entry = string | number | boolean | null | undefined

/** One column of a batch; throws on a text entry holding a separator, which no caller writes. */
export function pack(values: readonly Entry[]): string {
  let out = ''
  for (const v of values) {
    if (v === null || v === undefined) {
      out += SEP + NUL
      continue
    }
    const s = String(v)
    if (SEPARATORS.test(s)) throw new Error('pack: an entry holds a control separator')
    out += SEP + s
  }
  return out
}

/** One column of JSON values (objects, arrays, scalars); `null` and `undefined` are SQL NULL. */
export function packJson(values: readonly unknown[]): string {
  let out = ''
  for (const v of values) out += SEP + (v === null || v === undefined ? NUL : JSON.stringify(v)) // never a raw control character
  return out
}
