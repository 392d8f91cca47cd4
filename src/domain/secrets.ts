// Secret material Portico mints: API keys (shown once, stored as SHA-256) and application client
// secrets. The primitives (hashing, derived keys, encryption) are in src/crypto.ts. Nothing here logs.
import { randomBytes } from 'node:crypto'
import { sha256 } from '../crypto.ts'
import type { KeyEnvironment } from '../db/applications.ts'


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
