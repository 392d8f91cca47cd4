// Request signing for the Domain Connect synchronous apply URL (spec "Signing Procedure", "Signature
// Verification", "Public Key Publication"). Invariants:
// - The signed string is the canonical query: every apply parameter except `sig` and `key`, names and
//   values percent-encoded per RFC 3986, sorted by encoded name, joined as name=value with "&".
// - The signature is RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 section 3.3), standard base64.
// - The public key is published as TXT records `p=<n>,a=RS256,d=<base64 fragment>` at
//   `<key>.<syncPubKeyDomain>`; `d` fragments joined in ascending `p` order are the DER SubjectPublicKeyInfo.
import { createPublicKey, createSign, createVerify } from 'node:crypto'

/** Characters of a fragment so that a whole `p=NN,a=RS256,d=…` record stays one 255-octet TXT string. */
const FRAGMENT_CHARS = 200
/** Apply parameters this module sets itself; template variables may not reuse them. */
const RESERVED_PARAMS = ['domain', 'host', 'groupId', 'redirect_uri', 'state', 'sig', 'key']

/** RFC 3986 unreserved characters stay, everything else is percent-encoded (encodeURIComponent leaves !'()*). */
export function rfc3986Encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

/** The canonical input string of the signing procedure for a set of apply parameters. */
export function canonicalQuery(params: Record<string, string>): string {
  return Object.entries(params)
    .filter(([name]) => name !== 'sig' && name !== 'key')
    .map(([name, value]) => [rfc3986Encode(name), rfc3986Encode(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
}

export function signApplyQuery(query: string, privateKeyPem: string): string {
  return createSign('RSA-SHA256').update(query).sign(privateKeyPem, 'base64')
}

/** True only when `sig` (standard base64) is a valid RS256 signature of `query` under the DER SPKI key in base64. */
export function verifyApplyQuery(query: string, sig: string, publicKeyBase64: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeyBase64, 'base64'), format: 'der', type: 'spki' })
    return createVerify('RSA-SHA256').update(query).verify(key, sig, 'base64')
  } catch {
    return false
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, '%20'))
  } catch {
    return value
  }
}

/**
 * Splits a received raw query string into the signed part and the `sig`/`key` values, removing those
 * two pairs without re-ordering or re-encoding the rest (spec "Signature Verification", step 6).
 */
export function splitSignedQuery(rawQuery: string): { signed: string; sig?: string; key?: string } {
  const pairs = rawQuery.replace(/^\?/, '').split('&').filter(Boolean)
  const out: { signed: string; sig?: string; key?: string } = { signed: '' }
  const rest: string[] = []
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    const name = eq < 0 ? pair : pair.slice(0, eq)
    const value = eq < 0 ? '' : safeDecode(pair.slice(eq + 1))
    if (name === 'sig') out.sig = value
    else if (name === 'key') out.key = value
    else rest.push(pair)
  }
  out.signed = rest.join('&')
  return out
}

/** The TXT records publishing a public key (PEM, SPKI or PKCS#1) for `<key>.<syncPubKeyDomain>`. */
export function publicKeyTxtRecords(publicKeyPem: string): string[] {
  const der = createPublicKey(publicKeyPem).export({ format: 'der', type: 'spki' }).toString('base64')
  const records: string[] = []
  for (let i = 0; i * FRAGMENT_CHARS < der.length; i++) {
    records.push(`p=${i + 1},a=RS256,d=${der.slice(i * FRAGMENT_CHARS, (i + 1) * FRAGMENT_CHARS)}`)
  }
  return records
}

interface KeyFragment {
  p: number
  d: string
  a: string
  t: string
}

function parseFragment(txt: string): KeyFragment | null {
  const fields = new Map<string, string>()
  for (const kv of txt.trim().split(',')) {
    const eq = kv.indexOf('=')
    if (eq <= 0) return null
    fields.set(kv.slice(0, eq).trim(), kv.slice(eq + 1).trim())
  }
  const p = fields.get('p')
  const d = fields.get('d')
  if (!p || !/^\d+$/.test(p) || Number(p) < 1 || !d || !/^[A-Za-z0-9+/=]+$/.test(d)) return null
  return { p: Number(p), d, a: fields.get('a') ?? 'RS256', t: fields.get('t') ?? 'x509' }
}

/**
 * Reassembles the base64 DER public key from the TXT records at the key host, or null when any record
 * is malformed, `p` repeats, the algorithm is not RS256 or the key type is not x509.
 */
export function publicKeyFromTxt(txts: string[]): string | null {
  const fragments = txts.map(parseFragment)
  if (fragments.length === 0 || fragments.some((f) => f === null)) return null
  const valid = (fragments as KeyFragment[]).sort((x, y) => x.p - y.p)
  if (new Set(valid.map((f) => f.p)).size !== valid.length) return null
  if (valid.some((f) => f.a !== 'RS256' || f.t !== 'x509')) return null
  return valid.map((f) => f.d).join('')
}

export interface SyncApplyUrlInput {
  /** `urlSyncUX` from the DNS Provider's settings, with or without the https:// scheme. */
  providerBase: string
  providerId: string
  serviceId: string
  domain: string
  host?: string
  params: Record<string, string>
  redirectUri?: string
  state?: string
  groupId?: string | string[]
  /** The `key` label under the template's syncPubKeyDomain; required with `privateKeyPem`. */
  keyHost?: string
  privateKeyPem?: string
}

/** The synchronous apply URL (spec "Apply Template URL"), signed when a private key is given. */
export function buildSyncApplyUrl(input: SyncApplyUrlInput): string {
  for (const name of RESERVED_PARAMS) {
    if (Object.hasOwn(input.params, name)) throw new Error(`template parameter "${name}" collides with an apply parameter`)
  }
  if (input.privateKeyPem && !input.keyHost) throw new Error('a signed apply URL needs keyHost')
  const params: Record<string, string> = { ...input.params, domain: input.domain }
  if (input.host) params.host = input.host
  if (input.groupId !== undefined) params.groupId = Array.isArray(input.groupId) ? input.groupId.join(',') : input.groupId
  if (input.redirectUri !== undefined) params.redirect_uri = input.redirectUri
  if (input.state !== undefined) params.state = input.state
  let query = canonicalQuery(params)
  if (input.privateKeyPem && input.keyHost) {
    query += `&sig=${rfc3986Encode(signApplyQuery(query, input.privateKeyPem))}&key=${rfc3986Encode(input.keyHost)}`
  }
  const base = (/^https?:\/\//i.test(input.providerBase) ? input.providerBase : `https://${input.providerBase}`).replace(/\/+$/, '')
  return `${base}/v2/domainTemplates/providers/${rfc3986Encode(input.providerId)}/services/${rfc3986Encode(input.serviceId)}/apply?${query}`
}
