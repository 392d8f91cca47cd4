// Request header fields every face reads the same way, by their grammar (RFC 9110, RFC 9112):
// what a body is declared as (Content-Type, Content-Encoding) and where the request was sent (Host).
// Accept-Encoding and If-None-Match are read in encoded.ts, Accept-Language in src/widget/locale.ts.

/**
 * Where the path of a request's URL starts: a request without Host (HTTP/1.0) comes with its path alone;
 * -1 when the URL has no path at all.
 */
export const pathStart = (raw: string) => (raw.charCodeAt(0) === 47 /* / */ ? 0 : raw.indexOf('/', raw.indexOf('//') + 2))

/** A media type a JSON body may be declared as: `application/json` or any `+json`, any case, with parameters. */
export const jsonDeclared = (type: string | null) => !type || /^application\/([\w.-]+\+)?json[ \t]*(;|$)/i.test(type.trim())

/**
 * The content coding a request's body is declared in, when it is one Portico does not decode (any but
 * `identity`): such a body is refused with 415 and `Accept-Encoding: identity` (RFC 9110 section
 * 15.5.16, RFC 7694), never read as if it were plain.
 */
export function undecodedCoding(headers: Headers): string | null {
  const coding = headers.get('content-encoding')
  if (coding === null) return null
  const codings = coding.split(',').map((c) => c.trim().toLowerCase()).filter(Boolean)
  return codings.every((c) => c === 'identity') ? null : coding.trim()
}

/** The header a 415 for an encoded body carries: only identity is read. */
export const IDENTITY_ONLY = { 'accept-encoding': 'identity' }

// uri-host [ ":" port ] (RFC 9112 section 3.2, RFC 3986 section 3.2.2): an IP literal in brackets, or a
// reg-name / IPv4 address of unreserved characters, sub-delims but the comma (no DNS name has one, and
// it is what joins several Host lines) and percent-escapes; empty is allowed (a target without an authority).
const HOST = /^(?:\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]|(?:[A-Za-z0-9\-._~!$&'()*+;=]|%[0-9A-Fa-f]{2})*)(?::\d*)?$/

/**
 * Whether the Host field is one a server may act on (RFC 9112 section 3.2): absent (HTTP/1.0; an
 * HTTP/1.1 request without one is refused by the server itself), or one well-formed value. Several
 * Host lines arrive joined by commas, which no host contains: refused with 400 as the RFC requires.
 */
export function hostAcceptable(headers: Headers): boolean {
  const host = headers.get('host')
  return host === null || HOST.test(host)
}
