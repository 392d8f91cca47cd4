// JSON helpers shared across layers.

/** JSON with object keys sorted, to compare values whatever order their keys come in. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (v instanceof Date) return JSON.stringify(v)
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`
  return JSON.stringify(v) ?? 'null'
}

const texts = new WeakMap<object, string>()

/**
 * Marks `value` as serialising to `text` (exactly what JSON.stringify writes for it), so an answer made
 * of parts already serialised is not serialised again (a list page of cached connection views). The
 * value must not change afterwards; anyone else reading it sees the plain value.
 */
export function withJsonText<T extends object>(value: T, text: string): T {
  texts.set(value, text)
  return value
}

/** JSON.stringify(value), or the text `withJsonText` gave it. */
export function jsonText(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null) {
    const known = texts.get(value)
    if (known !== undefined) return known
  }
  return JSON.stringify(value)
}

const isoSeen = new Map<number, string>()

/**
 * A timestamp as the ISO string JSON carries (what `JSON.stringify` writes for a Date), remembered for
 * the instants seen lately: an answer's timestamps are mostly the same few rows' (an application's
 * created_at), and formatting one costs about as much as the rest of a cached read's serialising.
 * Answers carry strings, not Dates, since one Date sends JSON.stringify down its slow path for the
 * whole answer. Bounded: emptied when full.
 */
export function isoTime(d: Date): string {
  const ms = d.getTime()
  let s = isoSeen.get(ms)
  if (s === undefined) {
    s = d.toJSON()
    if (isoSeen.size >= 10_000) isoSeen.clear()
    isoSeen.set(ms, s)
  }
  return s
}

/** A timestamp for an answer: a Date as its ISO string (isoTime); null, or a string already, as it is. */
export function timeOut(d: Date): string
export function timeOut(d: Date | null): string | null
export function timeOut(d: Date | string | null): string | null {
  return d instanceof Date ? isoTime(d) : d
}

/** How deep JSON may nest anywhere Portico parses it (request bodies, agent registration, MCP). */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a JSON text nests arrays and objects deeper than `max`, found in one pass over the text
 * without parsing it (brackets inside strings do not count). Checked before any parse, so a body of
 * 30,000 open brackets is refused before anything recursive (the parser, the hostile-text check) meets it.
 */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--
  }
  return false
}

/**
 * The bytes of an answer served again exactly as it is (a list page whose rows have not changed:
 * src/domain/connection-views.ts), each made the first time a client asks for it: the UTF-8 of its
 * text and its zstd and gzip forms (src/http/encoded.ts). Compressing a page of 50 connections and
 * encoding it as UTF-8 were half of a list page's CPU (bun --cpu-prof under bench/scale's load).
 */
export interface Representations {
  bytes?: Uint8Array<ArrayBuffer>
  zstd?: Uint8Array<ArrayBuffer>
  gzip?: Uint8Array<ArrayBuffer>
}

const representations = new WeakMap<object, Representations>()

/** Marks `value` (an answer with its text: `withJsonText`) as one whose bytes are kept with it; it must not change afterwards. */
export function keepRepresentations<T extends object>(value: T): T {
  representations.set(value, {})
  return value
}

/** The kept representations of an answer, when `keepRepresentations` marked it. */
export const representationsOf = (value: unknown): Representations | undefined => (typeof value === 'object' && value !== null ? representations.get(value) : undefined)
