// Webhook signing by the Standard Webhooks scheme (https://www.standardwebhooks.com, spec
// "Signature scheme"), so a receiver verifies our deliveries with the `standardwebhooks` library as it is.
//
// Invariants:
// - A secret is `whsec_` + base64 of 32 random bytes; the HMAC key is the decoded bytes, not the text.
// - The signed content is `${id}.${timestamp}.${body}` over the exact body string that is sent, so the
//   caller must post this very string (re-serialising JSON would break the signature).
// - `webhook-signature` is `v1,<base64 HMAC-SHA256>`; a header may carry several space-separated
//   signatures (secret rotation) and verification accepts any `v1` one that matches.
// - Verification refuses a timestamp more than `toleranceSeconds` away from now in either direction.
//   The replay window we document is 5 minutes, the scheme's default tolerance.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'
/** The scheme asks for 24 to 64 random bytes; 32 matches the HMAC-SHA256 block of security. */
const SECRET_BYTES = 32
/** Standard Webhooks' default tolerance, in seconds. */
export const WEBHOOK_TOLERANCE_SECONDS = 300

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret
  const key = Buffer.from(encoded, 'base64')
  if (key.length === 0) throw new Error('webhook secret: not a base64 key')
  return key
}

function signature(key: Buffer, id: string, timestampSeconds: number, body: string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest()
}

/** `v1,<base64>`: the value of `webhook-signature` for one secret. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!Number.isSafeInteger(timestampSeconds)) throw new Error('webhook timestamp: whole seconds expected')
  return 'v1,' + signature(secretKey(secret), id, timestampSeconds, body).toString('base64')
}

/** The headers of one delivery (one signature per secret, space-separated, while a rotation overlaps); send `body` exactly as given. */
export function webhookHeaders(secret: string | readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  const secrets = typeof secret === 'string' ? [secret] : secret
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signWebhook(s, id, timestampSeconds, body)).join(' '),
    'content-type': 'application/json',
  }
}

type HeaderSource = Headers | Record<string, string | undefined>

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v
  return undefined
}

/** True when `body` carries a valid, fresh signature by `secret` (what a receiver checks). */
export function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: string,
  nowSeconds: number,
  toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS,
): boolean {
  const id = header(headers, 'webhook-id')
  const ts = header(headers, 'webhook-timestamp')
  const sigs = header(headers, 'webhook-signature')
  if (!id || !ts || !sigs || !/^\d{1,15}$/.test(ts)) return false
  const timestamp = Number(ts)
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false
  const expected = signature(secretKey(secret), id, timestamp, body)
  return sigs.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2)
    if (version !== 'v1' || !value) return false
    const given = Buffer.from(value, 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}
