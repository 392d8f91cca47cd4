// AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html)
// for the Route 53 adapter: canonical request, string to sign, the HMAC key chain, Authorization header.
import { createHash, createHmac } from 'node:crypto'

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest()
const sha256hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex')
/** RFC 3986 unreserved characters stay; everything else is %XX (AWS's UriEncode). */
const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

export interface SignInput {
  method: string
  url: URL
  /** Headers to sign besides host and x-amz-date (lowercase names). */
  headers?: Record<string, string>
  body: string
  accessKeyId: string
  secretAccessKey: string
  region: string
  service: string
  now: Date
}

export function amzDate(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')
}

/** The headers to send: `x-amz-date` and `authorization`. */
export function signV4(i: SignInput): { 'x-amz-date': string; authorization: string } {
  const date = amzDate(i.now)
  const day = date.slice(0, 8)
  const headers: Record<string, string> = { ...(i.headers ?? {}), host: i.url.host, 'x-amz-date': date }
  const names = Object.keys(headers).map((h) => h.toLowerCase()).sort()
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim().replace(/\s+/g, ' ')]))
  const canonicalUri = i.url.pathname.split('/').map((seg) => uriEncode(decodeURIComponent(seg))).join('/') || '/'
  const query = [...i.url.searchParams.entries()].map(([k, v]) => [uriEncode(k), uriEncode(v)]).sort(([a, x], [b, y]) => (a === b ? (x! < y! ? -1 : 1) : a! < b! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&')
  const canonical = [i.method, canonicalUri, query, names.map((n) => `${n}:${lower[n]}\n`).join(''), names.join(';'), sha256hex(i.body)].join('\n')
  const scope = `${day}/${i.region}/${i.service}/aws4_request`
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256hex(canonical)].join('\n')
  const key = hmac(hmac(hmac(hmac(`AWS4${i.secretAccessKey}`, day), i.region), i.service), 'aws4_request')
  const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex')
  return { 'x-amz-date': date, authorization: `AWS4-HMAC-SHA256 Credential=${i.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}` }
}
