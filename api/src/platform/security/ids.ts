import { randomBytes } from 'node:crypto'
import { BASE62_ALPHABET, ID_PREFIXES, ID_RANDOM_LENGTH, type IdKind } from '@leadline/shared/ids'

// Random bytes are drawn 4 KiB at a time: one call per id (every request gets one) costs more than the id itself.
const POOL_SIZE = 4096
let pool = randomBytes(POOL_SIZE)
let poolOffset = 0

function randomByte(): number {
  if (poolOffset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE)
    poolOffset = 0
  }
  return pool[poolOffset++] ?? 0
}

/** Uniform random base62 text: bytes above the last multiple of 62 are dropped to avoid modulo bias. */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    const byte = randomByte()
    if (byte < 248) out += BASE62_ALPHABET.charAt(byte % 62)
  }
  return out
}

/** Base62 characters of milliseconds since 1970 a time-ordered id starts with: 62^8 ms is some 6,900 years. */
export const ID_TIME_LENGTH = 8

/**
 * The kinds whose tables grow by the million, rows added at any moment: their ids start with the time they were
 * made (decision 0055), so that new rows go to the end of each index led by their id rather than to a random page
 * of it. The others (users, organizations, settings, anything near a secret) stay wholly random.
 */
const TIME_ORDERED: ReadonlySet<IdKind> = new Set([
  'lead',
  'contact',
  'activity',
  'opportunity',
  'task',
  'notification',
  'event',
  'outbox',
  'outboxAttempt',
])

/** `ms` as ID_TIME_LENGTH base62 characters, most significant first: text order is time order. */
export function base62Time(ms: number): string {
  let rest = Math.max(0, Math.floor(ms))
  let out = ''
  for (let i = 0; i < ID_TIME_LENGTH; i += 1) {
    out = BASE62_ALPHABET.charAt(rest % 62) + out
    rest = Math.floor(rest / 62)
  }
  return out
}

/**
 * A new id of `kind`: its prefix and ID_RANDOM_LENGTH base62 characters, as Close's ids look. Those of the
 * TIME_ORDERED kinds start with the time (the rest random: 35 characters, over 200 bits, for a 43-character id).
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  const length = ID_RANDOM_LENGTH[kind]
  if (!TIME_ORDERED.has(kind)) return ID_PREFIXES[kind] + randomBase62(length)
  return ID_PREFIXES[kind] + base62Time(now) + randomBase62(length - ID_TIME_LENGTH)
}
