import { randomFillSync } from 'node:crypto'
import { BASE62_ALPHABET, ID_PREFIXES, ID_RANDOM_LENGTH, type IdKind } from '@leadline/shared/ids'

// The app's ids (platform/security/ids.ts) drawn by the million for the demo seed: the same prefixes, alphabet and rejection
// of the bytes that would favour some characters, written into one buffer and read out as flat strings. One id at
// a time, a string grown a character at a time, a million ids took ten times as long, and sorting them three times.

const ALPHABET = Buffer.from(BASE62_ALPHABET, 'latin1')
/** Bytes from 248 up would make the first 248 % 62 characters likelier: they are dropped, as the app drops them. */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length)
const RANDOM_CHUNK = 65_536

/** `count` new random ids of one kind, each as the app would make it. */
export function drawIds(kind: IdKind, count: number): string[] {
  const prefix = ID_PREFIXES[kind]
  const width = prefix.length + ID_RANDOM_LENGTH[kind]
  const text = Buffer.alloc(width * count)
  const random = Buffer.alloc(RANDOM_CHUNK)
  let next = random.length
  for (let id = 0; id < count; id++) {
    const start = id * width
    text.write(prefix, start, 'latin1')
    for (let at = start + prefix.length; at < start + width;) {
      if (next === random.length) {
        randomFillSync(random)
        next = 0
      }
      const byte = random[next++] ?? UNBIASED_BELOW
      if (byte < UNBIASED_BELOW) text[at++] = ALPHABET[byte % ALPHABET.length] ?? 0
    }
  }
  return Array.from({ length: count }, (_, id) => text.toString('latin1', id * width, (id + 1) * width))
}
