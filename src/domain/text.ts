// Text PostgreSQL cannot hold: a NUL character (text columns refuse U+0000) or a UTF-16 surrogate
// without its pair (it has no UTF-8 form). Every face refuses it at the validation step, naming the
// field, so no such string reaches a query.

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export const unstorable = (s: string) => UNSTORABLE.test(s)

/**
 * The path (`a.b.0`) of the first string in `value`, key or value, that PostgreSQL cannot store;
 * null when there is none. Depth is bounded by the caller's parser (JSON.parse, the query string).
 */
export function findUnstorable(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return unstorable(value) ? path : null
  if (typeof value !== 'object' || value === null) return null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], path ? `${path}.${i}` : String(i))
      if (hit !== null) return hit
    }
    return null
  }
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k
    if (unstorable(k)) return at
    const hit = findUnstorable(v, at)
    if (hit !== null) return hit
  }
  return null
}

/** Characters a Portico identifier (or any path segment it routes on) may hold. */
const PATH_SEGMENT = /^[A-Za-z0-9._~:@+-]{1,200}$/

/** A path parameter that cannot name anything Portico stores: answered 404 before any lookup. */
export const unroutable = (segment: unknown) => typeof segment === 'string' && !PATH_SEGMENT.test(segment)
