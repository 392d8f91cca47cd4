// Verifies Portico's webhook deliveries by the Standard Webhooks scheme and answers the event typed by
// its `type` (the event registry, generated into src/generated/names.ts).
// - The signed content is `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 keyed by the base64
//   bytes after `whsec_`; `webhook-signature` holds one or more space-separated `v1,<base64>` signatures.
// - During a secret rotation's overlap Portico signs with both secrets: give the verifier either one,
//   or both (`secret: [next, previous]`); any matching signature is enough.
// - A timestamp more than `toleranceSeconds` (default 300) from now, either way, is refused: a replay.
//   Both are whole seconds, so `toleranceSeconds: 0` accepts a delivery stamped this very second.
// - An empty secret (or none) matches nothing: `bad_signature`, never an error of Web Crypto's.
// Web Crypto only (Node 20+, Bun, Deno, browsers, edge runtimes).
import { EVENT_TYPES, type EventMap, type EventType } from './generated/names.js'

/** Any event Portico delivers, told apart by `type`. */
export type PorticoEvent = EventMap[EventType]

export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>

export interface VerifyOptions {
  /** The endpoint's secret (`whsec_…`), or several (a rotation's new and previous one). */
  secret: string | readonly string[]
  /** Seconds a delivery's timestamp may be away from now (default 300). */
  toleranceSeconds?: number
  /** The time to judge the timestamp by (default: now). */
  now?: Date
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
  constructor(
    readonly reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' | 'bad_payload' | 'unknown_event_type',
    message: string,
  ) {
    super(message)
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (k.toLowerCase() === name) return typeof v === 'string' ? v : v?.[0]
  }
  return undefined
}

function base64(s: string): Uint8Array {
  const bin = atob(s)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

async function hmac(secret: string, content: Uint8Array): Promise<Uint8Array> {
  const raw = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret
  let keyBytes: Uint8Array
  try {
    keyBytes = base64(raw)
  } catch {
    throw new TypeError('webhook secret: not whsec_ followed by base64')
  }
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, content as BufferSource))
}

/**
 * Checks a delivery and answers its event: pass the body exactly as received (the raw string or
 * bytes, never re-serialised JSON) and the request's headers.
 */
export async function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, opts: VerifyOptions): Promise<PorticoEvent> {
  const id = header(headers, 'webhook-id')
  const ts = header(headers, 'webhook-timestamp')
  const sigs = header(headers, 'webhook-signature')
  if (!id || !ts || !sigs) throw new WebhookVerificationError('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required')
  const seconds = Number(ts)
  // Whole seconds, as the header is: a timestamp of this very second is 0 s away.
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000)
  if (!/^\d+$/.test(ts) || Math.abs(now - seconds) > (opts.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('stale_timestamp', `webhook-timestamp ${ts} is outside the tolerance: a replayed or delayed delivery`)
  }
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload)
  const content = new TextEncoder().encode(`${id}.${ts}.${body}`)
  const given = sigs
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .flatMap((s) => {
      try {
        return [base64(s.slice(3))]
      } catch {
        return []
      }
    })
  const secrets = (typeof opts.secret === 'string' ? [opts.secret] : opts.secret).filter((x) => x !== '' && x !== 'whsec_')
  // No secret yet (say, a delivery that arrives before the endpoint's secret is stored): nothing can match.
  if (!secrets.length) throw new WebhookVerificationError('bad_signature', 'No secret to verify with: the secret given is empty')
  let ok = false
  for (const secret of secrets) {
    const expected = await hmac(secret, content)
    for (const g of given) if (sameBytes(g, expected)) ok = true
  }
  if (!ok) throw new WebhookVerificationError('bad_signature', 'No signature matches the secret')
  let event: { id?: unknown; type?: unknown }
  try {
    event = JSON.parse(body)
  } catch {
    throw new WebhookVerificationError('bad_payload', 'The body is not JSON')
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new WebhookVerificationError('bad_payload', 'The body is not a JSON object')
  if (event.id !== id) throw new WebhookVerificationError('bad_payload', 'The body\'s id is not the webhook-id')
  if (!(EVENT_TYPES as readonly unknown[]).includes(event.type)) {
    throw new WebhookVerificationError('unknown_event_type', `Unknown event type ${JSON.stringify(event.type)}: a newer Portico than this package knows`)
  }
  return event as PorticoEvent
}

/** Narrows an event to one type: `if (isEventOf(e, 'connection.live')) e.data.records_propagated`. */
export function isEventOf<T extends EventType>(event: PorticoEvent, type: T): event is EventMap[T] {
  return event.type === type
}
