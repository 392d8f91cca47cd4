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
