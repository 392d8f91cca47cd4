// Responses that are the same for everyone (the widget bundle and its locale tables, the share page's
// assets, the provider catalog): served compressed as the client accepts (brotli, zstd or gzip, else
// identity), each representation with its own ETag, and `304 Not Modified` for a client that already
// holds the one it would be sent. Encodings are computed once per content. Large JSON answers that
// differ per request are compressed on the way out (`compressed`). Both read Accept-Encoding by one
// rule (`chooseCoding`).
import { createHash } from 'node:crypto'
import { brotliCompressSync, constants } from 'node:zlib'
import { weightOf } from '../widget/weight.ts'
import type { Representations } from '../json.ts'

export type Coding = 'br' | 'zstd' | 'gzip'

/** One content in its encodings; `etag` is the identity representation's, the others' are derived from it. */
export interface Encoded {
  body: Uint8Array
  br: Uint8Array
  zstd: Uint8Array
  gzip: Uint8Array
  etag: string
}

const hashOf = (b: Uint8Array) => createHash('sha256').update(b).digest('base64url').slice(0, 16)

/** `content` in every coding at its smallest; `etag` defaults to a hash of the content. */
export function encode(content: Uint8Array | string, etag?: string): Encoded {
  const body = typeof content === 'string' ? new TextEncoder().encode(content) : content
  return {
    body,
    br: new Uint8Array(brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })),
    zstd: Bun.zstdCompressSync(body as Uint8Array<ArrayBuffer>, { level: 19 }),
    gzip: Bun.gzipSync(body as Uint8Array<ArrayBuffer>, { level: 9 }),
    etag: etag ?? `"${hashOf(body)}"`,
  }
}

const LIMIT = 200
const recent = new Map<string, Encoded>()

/** `encode`, remembered by content for the most recent contents (catalog answers repeat). */
export function encodeCached(text: string): Encoded {
  const hit = recent.get(text)
  if (hit) return hit
  const e = encode(text)
  recent.set(text, e)
  if (recent.size > LIMIT) recent.delete(recent.keys().next().value!)
  return e
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/
/**
 * The coding of `offered` (in the server's order of preference) to answer in, or null for none
 * (identity), read from Accept-Encoding by its grammar (RFC 9110 sections 12.5.3 and 12.4.2): codings
 * are case-insensitive tokens with optional whitespace around `;`, `x-gzip` is gzip (section 8.4.1.3),
 * `*` weighs every coding not named, `q=0` refuses, and an element whose weight is malformed (`weightOf`)
 * counts as not sent. The highest weight wins and equal weights go to the server's order; identity
 * wins only when named with a weight above every offered coding's. No header means identity: a
 * client that does not say it decodes is not sent a coding.
 */
export function chooseCoding<C extends Coding>(header: string | null, offered: readonly C[]): C | null {
  if (!header) return null
  let seen = chosen.get(offered)
  if (!seen) chosen.set(offered, (seen = new Map()))
  const known = seen.get(header)
  if (known !== undefined) return known as C | null
  const coding = codingOf(header, offered)
  if (seen.size >= SEEN_HEADERS) seen.clear()
  seen.set(header, coding)
  return coding
}

/**
 * `chooseCoding`'s answers for the headers seen lately, per list offered: a client sends the same
 * header on every request, and reading it again was a twentieth of a cached list page's CPU.
 */
const chosen = new WeakMap<readonly Coding[], Map<string, Coding | null>>()
const SEEN_HEADERS = 64

function codingOf<C extends Coding>(header: string, offered: readonly C[]): C | null {
  const weights = new Map<string, number>()
  for (const element of header.split(',')) {
    const [first, ...params] = element.split(';')
    let name = first!.trim().toLowerCase()
    if (!TOKEN.test(name)) continue
    if (name === 'x-gzip') name = 'gzip'
    const q = weightOf(params)
    if (q !== null && !weights.has(name)) weights.set(name, q)
  }
  const star = weights.get('*')
  let best: C | null = null
  let bestQ = 0
  for (const c of offered) {
    const q = weights.get(c) ?? star ?? 0
    if (q > bestQ) {
      best = c
      bestQ = q
    }
  }
  return best !== null && (weights.get('identity') ?? 0) > bestQ ? null : best
}

const STATIC: readonly Coding[] = ['br', 'zstd', 'gzip']

/** The ETag of `e` in `coding`: the identity one with the coding's name inside its quotes. */
export const etagOf = (e: Encoded, coding: Coding | null) => (coding === null ? e.etag : `${e.etag.slice(0, -1)}-${coding}"`)

/** One entity tag of a list and what follows it: `W/` exactly, a quoted opaque tag, then a comma or the end. */
const LISTED_TAG = /[ \t]*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y

/**
 * Whether If-None-Match names `etag` (RFC 9110 sections 13.1.2 and 8.8.3): `*` names any current
 * representation, else a comma-separated list of entity tags, compared weakly (a `W/` prefix ignored
 * on either side). A field that is not such a list (`w/"x"`, `W/ "x"`, `"x"y`, an unclosed quote)
 * names nothing: the client is sent the representation.
 */
export function heldAlready(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false
  const field = ifNoneMatch.trim()
  if (field === '*') return true
  const want = etag.replace(/^W\//, '')
  let held = false
  let at = 0
  while (at < field.length) {
    // Empty elements (`, ,`) are allowed by the list rule (RFC 9110 section 5.6.1).
    const empty = /[ \t]*,/y
    empty.lastIndex = at
    if (empty.test(field)) {
      at = empty.lastIndex
      continue
    }
    LISTED_TAG.lastIndex = at
    const m = LISTED_TAG.exec(field)
    if (!m) return false
    if (m[2] === want) held = true
    at = LISTED_TAG.lastIndex
  }
  return held
}

/** The headers of a 404 beside shared content: typed (a HEAD gets the type its GET has), never stored. */
export const PLAIN_NOT_FOUND = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }

/** `304` when the client holds the representation it would be sent, else that representation. */
export function respond(req: Request, e: Encoded, headers: Record<string, string>): Response {
  const coding = chooseCoding(req.headers.get('accept-encoding'), STATIC)
  const h: Record<string, string> = { ...headers, etag: etagOf(e, coding), vary: 'accept-encoding' }
  if (heldAlready(req.headers.get('if-none-match'), h.etag!)) return new Response(null, { status: 304, headers: h })
  if (coding === null) return new Response(e.body as Uint8Array<ArrayBuffer>, { headers: h })
  h['content-encoding'] = coding
  return new Response(e[coding] as Uint8Array<ArrayBuffer>, { headers: h })
}

/**
 * Bun 1.4.5 writes an answer whose body is 15,500 bytes or more (15,000 still leave in one write)
 * piece by piece once the handler has awaited anything: the status line, each header name, `: `, its
 * value and each CRLF in a send() of their own, then the body (oven-sh/bun#41341). On a virtual
 * machine that is some 200 µs of system time for a page of 50 KB, five times what its JSON cost. A
 * body past `ONE_WRITE` is therefore handed over as a stream of one chunk, which leaves with the
 * headers in one send() and the end of chunks in a second: such an answer is chunked rather than
 * framed by Content-Length (every HTTP/1.1 client reads both; an HTTP/1.0 client is sent it up to the
 * connection's close, and a HEAD is told its length: `headAnswer`).
 */
const ONE_WRITE = 12 * 1024

/** A page's text is built piece by piece (a rope): TextEncoder encodes it some five times faster than Buffer.from (9 against 45 µs for 50 KB). */
const UTF8 = new TextEncoder()

/** The body of an answer made after an await (a database read, say): see ONE_WRITE. */
export function lateBody(body: string | Uint8Array<ArrayBuffer>): string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  // A string's UTF-8 is at most three bytes a character and at least one.
  if (body.length < ONE_WRITE / (typeof body === 'string' ? 3 : 1)) return body
  const bytes = typeof body === 'string' ? UTF8.encode(body) : body
  if (bytes.byteLength < ONE_WRITE) return bytes
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes)
      c.close()
    },
  })
  LATE.add(stream)
  return stream
}

/** The bodies `lateBody` made a stream of. */
const LATE = new WeakSet<ReadableStream>()

/**
 * The answer to a HEAD request: one whose GET is chunked by `lateBody` says its length instead (RFC
 * 9110 section 8.6 allows a HEAD answer the Content-Length its GET's content has). Bun 1.4.5 would say
 * `Transfer-Encoding: chunked`, even to an HTTP/1.0 client, which RFC 9112 section 6.1 forbids.
 */
export async function headAnswer(answer: Response | Promise<Response>): Promise<Response> {
  const res = await answer
  const body = res.body
  return body !== null && LATE.has(body) ? new Response(await res.arrayBuffer(), res) : res
}

/**
 * An answer made by a library after an await (the MCP SDK's JSON), given a body Bun sends in one write
 * (`lateBody`); a stream of events is left as it is.
 */
export async function inOneWrite(res: Response): Promise<Response> {
  if (res.body === null || res.headers.get('content-type')?.startsWith('text/event-stream')) return res
  const body = lateBody(new Uint8Array(await res.arrayBuffer()))
  if (!(body instanceof ReadableStream)) return new Response(body, res)
  const headers = new Headers(res.headers)
  headers.delete('content-length')
  return new Response(body, { status: res.status, statusText: res.statusText, headers })
}

/**
 * JSON answers from this many characters on (a list page) go compressed to a client that accepts zstd
 * or gzip, at the fastest level: a page of 50 connections (about 52 KB) takes 20-40 µs to compress to
 * 2-3 KB, which also leaves in one write (`ONE_WRITE`). Brotli is not used here (three times slower
 * at its fastest); an answer that differs per request is never compressed with a secret beside input a
 * third party chose, and API credentials are never ambient (no cookies), so a compression side channel
 * (BREACH) has no victim.
 */
export const COMPRESS_FROM = 8192

const DYNAMIC: readonly ('zstd' | 'gzip')[] = ['zstd', 'gzip']

/**
 * `text` compressed in zstd or gzip as the client accepts (`chooseCoding`), or null when it accepts
 * neither. On the request thread: handed to the runtime's thread pool, a page of 50 connections (about
 * 52 KB, 20-40 µs to compress) went out no sooner on a machine of two cores, where the pool has no core
 * of its own, and the hop back cost the event loop a wake-up; bench/scale's first page against a get
 * measured 0.50-0.55 here against 0.45-0.46 with the pool (two alternating runs each, AMD EPYC).
 */
export function compressed(text: string, acceptEncoding: string | null, kept?: Representations): { coding: Coding; body: Uint8Array<ArrayBuffer> } | null {
  const coding = chooseCoding(acceptEncoding, DYNAMIC)
  if (coding === null) return null
  const known = kept?.[coding]
  if (known) return { coding, body: known }
  const bytes = kept?.bytes ?? UTF8.encode(text)
  const body = (coding === 'zstd' ? Bun.zstdCompressSync(bytes, { level: 1 }) : Bun.gzipSync(bytes, { level: 1 })) as Uint8Array<ArrayBuffer>
  if (kept) kept[coding] = body
  return { coding, body }
}

/** `text` as UTF-8, made once for an answer whose representations are kept. */
export const utf8Of = (text: string, kept: Representations): Uint8Array<ArrayBuffer> => (kept.bytes ??= UTF8.encode(text) as Uint8Array<ArrayBuffer>)
