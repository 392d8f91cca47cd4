// Identifiers: a type prefix, then a time-ordered part (milliseconds, Crockford base32) and 80 random
// bits. Time order lets list endpoints page by id with an opaque cursor; the prefix tells a reader
// (and the MCP tools) what kind of object an id names.
import { randomBytes } from 'node:crypto'

const B32 = '0123456789abcdefghjkmnpqrstvwxyz'

function encodeTime(ms: number): string {
  let out = ''
  for (let i = 0; i < 10; i++) {
    out = B32[ms % 32] + out
    ms = Math.floor(ms / 32)
  }
  return out
}

function encodeRandom(bytes: Buffer): string {
  let out = ''
  let bits = 0
  let value = 0
  for (const b of bytes) {
    value = (value << 8) | b
    bits += 8
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  return out
}

// Random bytes are drawn in blocks: one system call per 400 ids instead of one per id.
let pool = Buffer.alloc(0)
let poolAt = 0
function random10(): Buffer {
  if (poolAt + 10 > pool.length) {
    pool = randomBytes(4000)
    poolAt = 0
  }
  poolAt += 10
  return pool.subarray(poolAt - 10, poolAt)
}

export function newId(prefix: string, nowMs: number = Date.now()): string {
  return `${prefix}_${encodeTime(nowMs)}${encodeRandom(random10())}`
}

/** A random opaque secret, URL-safe. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}
