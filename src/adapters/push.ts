// Web push (RFC 8030 with VAPID, RFC 8292, and aes128gcm, RFC 8291). `web-push` builds the encrypted
// request; Portico sends it itself through the SSRF guard and the pinned POST, so a subscription
// endpoint pointing at a private address is refused like any customer-supplied URL. A subscription the
// push service says is gone (404 or 410) is reported so the caller removes it.
import webpush from 'web-push'
import { guardUrl } from './ssrf.ts'
import { postPinned } from './http-post.ts'

export interface PushKeys {
  publicKey: string
  privateKey: string
  subject: string
}

export interface Subscription {
  endpoint: string
  p256dh: string
  auth: string
}

export type PushOutcome = 'sent' | 'gone' | 'failed'

export async function sendPush(
  keys: PushKeys,
  sub: Subscription,
  payload: string,
  opts: { allowLoopback: boolean; resolve: (host: string) => Promise<string[]>; timeoutMs?: number },
): Promise<PushOutcome> {
  const guard = await guardUrl(sub.endpoint, { allowLoopback: opts.allowLoopback, resolve: opts.resolve, requireHttps: true })
  if (!guard.ok) return 'failed'
  const req = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, payload, {
    vapidDetails: { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
    contentEncoding: 'aes128gcm',
    TTL: 60,
  })
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
  const res = await postPinned({ url: guard.url, address: guard.address, headers, body: req.body ? new Uint8Array(req.body) : '', timeoutMs: opts.timeoutMs ?? 10_000 })
  if (res.error !== undefined) return 'failed'
  if (res.status === 404 || res.status === 410) return 'gone'
  return res.status >= 200 && res.status < 300 ? 'sent' : 'failed'
}
