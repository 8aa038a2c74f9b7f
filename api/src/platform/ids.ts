import { randomBytes } from 'node:crypto'
import { BASE62_ALPHABET, ID_PREFIXES, ID_RANDOM_LENGTH, type IdKind } from '@leadline/shared/ids'

/** Uniform random base62 text: bytes above the last multiple of 62 are dropped to avoid modulo bias. */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue
      out += BASE62_ALPHABET.charAt(byte % 62)
      if (out.length === length) break
    }
  }
  return out
}

export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + randomBase62(ID_RANDOM_LENGTH[kind])
}
