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

export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + randomBase62(ID_RANDOM_LENGTH[kind])
}
