// Responses that are the same for everyone (the widget bundle and its locale tables, the provider
// catalog): served compressed as the client accepts (brotli, else gzip, else identity), with an ETag
// and `304 Not Modified` for a client that already holds them. Encodings are computed once per content.
import { createHash } from 'node:crypto'
import { brotliCompressSync, constants } from 'node:zlib'

/** One content in its three encodings. */
export interface Encoded {
  body: Uint8Array
  gzip: Uint8Array
  br: Uint8Array
  etag: string
}

const hashOf = (b: Uint8Array) => createHash('sha256').update(b).digest('base64url').slice(0, 16)

export function encode(content: Uint8Array | string): Encoded {
  const body = typeof content === 'string' ? new TextEncoder().encode(content) : content
  return {
    body,
    gzip: Bun.gzipSync(body as Uint8Array<ArrayBuffer>, { level: 9 }),
    br: new Uint8Array(brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })),
    etag: `"${hashOf(body)}"`,
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

/** The encodings the client accepts (RFC 9110 section 12.5.3), `q=0` meaning not at all. */
export function accepted(header: string | null): Set<string> {
  const out = new Set<string>()
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (name && !(q && Number(q.slice(2)) === 0)) out.add(name)
  }
  return out
}

/** `304` when the client holds this content, else the content in the best encoding it accepts. */
export function respond(req: Request, e: Encoded, headers: Record<string, string>): Response {
  const h: Record<string, string> = { ...headers, etag: e.etag, vary: 'accept-encoding' }
  const held = req.headers.get('if-none-match')
  if (held && held.split(',').some((t) => t.trim().replace(/^W\//, '') === e.etag)) return new Response(null, { status: 304, headers: h })
  const ok = accepted(req.headers.get('accept-encoding'))
  if (ok.has('br')) return new Response(e.br as Uint8Array<ArrayBuffer>, { headers: { ...h, 'content-encoding': 'br' } })
  if (ok.has('gzip')) return new Response(e.gzip as Uint8Array<ArrayBuffer>, { headers: { ...h, 'content-encoding': 'gzip' } })
  return new Response(e.body as Uint8Array<ArrayBuffer>, { headers: h })
}

/**
 * JSON answers from this many characters on (a list page) go compressed to a client that accepts zstd
 * or gzip, at the fastest level: a page of 50 connections (about 33 KB) takes 20-25 µs to compress to
 * 2-3 KB. Besides the bytes, this keeps the answer under 16 KB, the most Bun 1.4.5 sends in one write
 * once the handler has awaited anything: a larger answer leaves in a dozen or more send() calls (its
 * status line, each header and the body apart; oven-sh/bun#41341), which cost a list page three times
 * what its JSON did. Brotli is not used here (three times slower at its fastest); an answer that
 * differs per request is never compressed with a secret beside input a third party chose, and API
 * credentials are never ambient (no cookies), so a compression side channel (BREACH) has no victim.
 */
export const COMPRESS_FROM = 8192

const DYNAMIC = ['zstd', 'gzip'] as const

/** `text` compressed in the first of zstd and gzip the client accepts; null when it accepts neither. */
export function compressed(text: string, acceptEncoding: string | null): { coding: (typeof DYNAMIC)[number]; body: Uint8Array<ArrayBuffer> } | null {
  if (acceptEncoding === null) return null
  const ok = accepted(acceptEncoding)
  const coding = DYNAMIC.find((c) => ok.has(c))
  if (coding === undefined) return null
  const bytes = new TextEncoder().encode(text)
  const body = coding === 'zstd' ? Bun.zstdCompressSync(bytes, { level: 1 }) : Bun.gzipSync(bytes, { level: 1 })
  return { coding, body: body as Uint8Array<ArrayBuffer> }
}
