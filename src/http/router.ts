// Path matching for the registry's routes. The contract uses custom-method paths such as
// `/connections/{id}:recheck` and `/tenants:provision`, which Elysia's router cannot express (a `:`
// inside a segment starts a parameter there), so the registry's paths are matched here and Elysia
// hosts the result. Static segments win over parameters; a segment parameter never contains `/`.

interface Seg {
  literal?: string
  param?: string
  /** `{id}:verb`: the parameter is the segment up to this suffix. */
  suffix?: string
}

interface Route<T> {
  method: string
  template: string
  segs: Seg[]
  value: T
  rank: number
}

export interface Match<T> {
  value: T
  params: Record<string, string>
}

function parse(template: string): Seg[] {
  return template
    .split('/')
    .slice(1)
    .map((s) => {
      const m = /^\{(\w+)\}(:[\w-]+)?$/.exec(s)
      if (m) return { param: m[1], suffix: m[2] }
      if (s.includes('{')) throw new Error(`unsupported path segment ${s} in ${template}`)
      return { literal: s }
    })
}

const SEEN_MAX = 10_000

/** The order `Allow` lists methods in, on every face. */
export const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

export class Router<T> {
  private readonly exact = new Map<string, T>()
  private readonly bySize = new Map<number, Route<T>[]>()
  /**
   * The candidates for a path of n segments whose second segment (`/v1/<here>/…`) is s: the routes
   * with that literal there and the ones with a parameter there, in rank order (`${n} ${s}`). A path
   * is matched against a handful of routes instead of every route of its length (this runs on every
   * request).
   */
  private readonly bySecond = new Map<string, Route<T>[]>()
  private readonly paths = new Set<string>()
  /**
   * The parameter routes' matches of the paths asked for lately, by `${method} ${path}`: a client reads
   * the same few paths again and again. Bounded: emptied when full. A hit's params are a copy.
   */
  private readonly seen = new Map<string, Match<T>>()

  add(method: string, template: string, value: T): void {
    const segs = parse(template)
    const key = `${method} ${template}`
    if (this.paths.has(key)) throw new Error(`duplicate route ${key}`)
    this.paths.add(key)
    if (segs.every((s) => s.literal !== undefined)) {
      this.exact.set(key, value)
      return
    }
    // Fewer parameters and longer literal parts first, so `/connections:count` beats `/connections/{id}`.
    const rank = segs.reduce((r, s) => r * 4 + (s.literal !== undefined ? 2 : s.suffix ? 1 : 0), 0)
    const list = this.bySize.get(segs.length) ?? []
    list.push({ method, template, segs, value, rank })
    list.sort((a, b) => b.rank - a.rank)
    this.bySize.set(segs.length, list)
    this.bySecond.clear() // rebuilt on the next match: routes are added at start only
  }

  private candidates(parts: string[]): Route<T>[] {
    const all = this.bySize.get(parts.length)
    if (!all || parts.length < 2) return all ?? []
    const key = `${parts.length} ${parts[1]}`
    let list = this.bySecond.get(key)
    if (!list) {
      list = all.filter((r) => r.segs[1]!.literal === undefined || r.segs[1]!.literal === parts[1])
      // Only second segments some route names are kept; any other shares one list (parameter routes only).
      if (all.some((r) => r.segs[1]!.literal === parts[1])) this.bySecond.set(key, list)
    }
    return list
  }

  /**
   * Returns the match, or `'method'` when the path exists under another method, or null. HEAD is
   * answered wherever GET is (RFC 9110 section 9.3.2): by the GET route, the server leaving out the body.
   */
  match(method: string, path: string): Match<T> | 'method' | null {
    if (method === 'HEAD') method = 'GET'
    const key = `${method} ${path}`
    const exact = this.exact.get(key)
    if (exact !== undefined) return { value: exact, params: {} }
    const hit = this.seen.get(key)
    if (hit !== undefined) return { value: hit.value, params: { ...hit.params } }
    const parts = path.split('/').slice(1)
    let otherMethod = false
    for (const r of this.candidates(parts)) {
      const params = matchSegs(r.segs, parts)
      if (!params) continue
      if (r.method === method) {
        if (this.seen.size >= SEEN_MAX) this.seen.clear()
        this.seen.set(key, { value: r.value, params: { ...params } })
        return { value: r.value, params }
      }
      otherMethod = true
    }
    if (otherMethod) return 'method'
    for (const key of this.exact.keys()) if (key.endsWith(` ${path}`)) return 'method'
    return null
  }

  /** The methods the path answers to, for `Allow`: HEAD beside GET. */
  allowed(path: string): string[] {
    return METHOD_ORDER.filter((m) => {
      const r = this.match(m, path)
      return r !== null && r !== 'method'
    })
  }
}

function matchSegs(segs: Seg[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {}
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!
    const p = parts[i]!
    if (s.literal !== undefined) {
      if (s.literal !== p) return null
      continue
    }
    let raw = p
    if (s.suffix) {
      if (!p.endsWith(s.suffix) || p.length === s.suffix.length) return null
      raw = p.slice(0, -s.suffix.length)
    } else if (p === '' || p.includes(':')) {
      return null
    }
    if (!raw.includes('%')) {
      params[s.param!] = raw
      continue
    }
    try {
      params[s.param!] = decodeURIComponent(raw)
    } catch {
      return null
    }
  }
  return params
}
