// Cryptographic primitives on secret material: SHA-256 of presented secrets, constant-time comparison,
// keys derived from SECRETS_KEY per purpose, and authenticated encryption of stored secrets
// (AES-256-GCM). The floor everyone stands on: it imports nothing of Portico. Nothing here logs.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

export function sha256(value: string): Buffer {
  // Bun's hasher is about five times faster than node:crypto's here, and it runs on every request.
  const d = Bun.SHA256.hash(value) as Uint8Array
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength)
}

/** `sha256` as lowercase hex, made by the hasher itself (no Buffer between): cache keys. */
export function sha256Hex(value: string): string {
  return Bun.SHA256.hash(value, 'hex') as string
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
