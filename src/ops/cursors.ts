// List cursors that carry the last id of a page (base64url, opaque to clients). A cursor is checked
// after it is decoded: it must hold an id of the list's kind, or it is a 400 naming the cursor; no
// decoded garbage reaches a query.
import { invalid } from '../errors.ts'

export const cursorOf = (id: string) => Buffer.from(id).toString('base64url')

export function idFromCursor(cursor: string, prefix: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!new RegExp(`^${prefix}_[0-9a-z]{1,40}$`).test(id)) throw invalid('cursor is not valid', [{ in: 'query', field: 'cursor', message: 'use next_cursor from the previous page' }])
  return id
}
