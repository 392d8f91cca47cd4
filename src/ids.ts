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

// Random bytes are drawn in blocks: one system call per 400 ids instead of one per id.
let pool = Buffer.alloc(0)
let poolAt = 0

/** 80 random bits as 16 base32 characters: five bytes make eight characters. */
function random16(): string {
  if (poolAt + 10 > pool.length) {
    pool = randomBytes(4000)
    poolAt = 0
  }
  let out = ''
  for (let end = poolAt + 10; poolAt < end; poolAt += 5) {
    const hi = pool[poolAt]! * 4 + (pool[poolAt + 1]! >> 6) // 10 bits
    const lo = ((pool[poolAt + 1]! & 63) << 24) | (pool[poolAt + 2]! << 16) | (pool[poolAt + 3]! << 8) | pool[poolAt + 4]! // 30 bits
    out += B32[hi >> 5]! + B32[hi & 31]! + B32[lo >>> 25]! + B32[(lo >>> 20) & 31]! + B32[(lo >>> 15) & 31]! + B32[(lo >>> 10) & 31]! + B32[(lo >>> 5) & 31]! + B32[lo & 31]!
  }
  return out
}

// Batches stamp many ids with one time: its encoding is kept.
let lastMs = -1
let lastTime = ''

export function newId(prefix: string, nowMs: number = Date.now()): string {
  if (nowMs !== lastMs) [lastMs, lastTime] = [nowMs, encodeTime(nowMs)]
  return `${prefix}_${lastTime}${random16()}`
}

// Event ids are monotonic within a process: an id minted in the same millisecond as the last one (or
// with a clock that went back) keeps the last one's time and takes its random part plus one, as ULID's
// monotonic factory does, so events one process emits reach any reader ordered by id in the order they
// were emitted (a clock stepped back by up to a second included). Ids from two processes in one
// millisecond are ordered by their random parts.
const lastOf = new Map<string, { ms: number; time: string; random: string }>()
const BACKSTEP_MS = 1000

/**
 * The base32 string one above `s` (same length), or null when `s` is the largest (all `z`). Done on
 * the characters: a sweep mints an event id per connection, and BigInt arithmetic on each was a
 * fortieth of the sweep's CPU.
 */
export function b32next(s: string): string | null {
  let i = s.length - 1
  while (i >= 0 && s[i] === 'z') i--
  if (i < 0) return null
  return s.slice(0, i) + B32[B32.indexOf(s[i]!) + 1] + '0'.repeat(s.length - 1 - i)
}

/** A time-ordered id that sorts after every id this process minted before with the same prefix. */
export function monotonicId(prefix: string, nowMs: number = Date.now()): string {
  const last = lastOf.get(prefix)
  // A clock set back by more than a second (a test's clock reset, a corrected host clock) starts over
  // from its own time: an id keeps saying when it was minted, which time-range reads rely on.
  const following = last !== undefined && nowMs <= last.ms && nowMs > last.ms - BACKSTEP_MS
  const next = following ? b32next(last.random) : null
  if (following && next !== null) {
    last.random = next
    return `${prefix}_${last.time}${next}`
  }
  const ms = following ? last.ms + 1 : nowMs
  const random = random16()
  const time = encodeTime(ms)
  lastOf.set(prefix, { ms, time, random })
  return `${prefix}_${time}${random}`
}

/** The smallest id of this prefix minted at or after `ms`: a key-range bound for time-ordered ids. */
export const idFloor = (prefix: string, ms: number): string => `${prefix}_${encodeTime(ms)}`

/** A random opaque secret, URL-safe. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}
