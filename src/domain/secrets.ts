// Secret material: API keys (shown once, stored as SHA-256), application client secrets, keys derived
// from SECRETS_KEY for signing widget tokens, and authenticated encryption of stored provider
// credentials (AES-256-GCM). Nothing here logs.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

export type KeyEnvironment = 'live' | 'test'

/** New keys carry the Portico prefix; `sk_live_` / `sk_test_` keys from before are still accepted. */
export const KEY_PREFIXES = ['ptc_live_', 'ptc_test_', 'sk_live_', 'sk_test_'] as const

export function looksLikeApiKey(token: string): boolean {
  return KEY_PREFIXES.some((p) => token.startsWith(p))
}

/**
 * A key of a shape Portico mints: `ptc_live_` / `ptc_test_` and 43 base64url characters; the older
 * `sk_` keys in printable characters up to 200. Anything else is refused without a lookup.
 */
export function wellFormedApiKey(token: string): boolean {
  if (token.startsWith('ptc_')) return /^ptc_(live|test)_[A-Za-z0-9_-]{43}$/.test(token)
  return /^sk_(live|test)_[\x21-\x7e]{1,200}$/.test(token)
}

export function newApiKey(env: KeyEnvironment): { key: string; prefix: string; hash: Buffer } {
  const key = `ptc_${env}_${randomBytes(32).toString('base64url')}`
  return { key, prefix: key.slice(0, 13), hash: sha256(key) }
}

export function newClientSecret(): { secret: string; hash: Buffer } {
  const secret = `pcs_${randomBytes(32).toString('base64url')}`
  return { secret, hash: sha256(secret) }
}

export function sha256(value: string): Buffer {
  // Bun's hasher is about five times faster than node:crypto's here, and it runs on every request.
  const d = Bun.SHA256.hash(value) as Uint8Array
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength)
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function matchesHash(presented: string, stored: Buffer | Uint8Array): boolean {
  const h = sha256(presented)
  const s = Buffer.from(stored)
  return h.length === s.length && timingSafeEqual(h, s)
}

/** Constant-time comparison of two secrets of possibly different length. */
export function secretEquals(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b))
}

const derived = new WeakMap<Buffer, Map<string, Buffer>>()

/** HKDF-SHA256 subkey of SECRETS_KEY for one purpose; derived once per process. */
export function deriveKey(master: Buffer, purpose: string, length = 32): Buffer {
  let byPurpose = derived.get(master)
  if (!byPurpose) derived.set(master, (byPurpose = new Map()))
  const id = `${purpose}:${length}`
  let key = byPurpose.get(id)
  if (!key) byPurpose.set(id, (key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `portico:${purpose}`, length))))
  return key
}

/** AES-256-GCM; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt(master: Buffer, plaintext: string, purpose = 'credentials'): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', deriveKey(master, purpose), iv)
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return ['v1', iv, cipher.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.')
}

export function decrypt(master: Buffer, sealed: string, purpose = 'credentials'): string {
  const [v, iv, tag, ct] = sealed.split('.')
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised sealed value')
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(master, purpose), Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8')
}
