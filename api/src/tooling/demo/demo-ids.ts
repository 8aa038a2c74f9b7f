import { randomFillSync } from 'node:crypto'
import { BASE62_ALPHABET, ID_PREFIXES, ID_RANDOM_LENGTH, type IdKind } from '@leadline/shared/ids'

// The app's ids (platform/security/ids.ts) drawn by the million for the demo seed, in ascending order: the same
// prefixes, alphabet and rejection of the bytes that would favour some characters, each id written into one buffer
// and read out as a flat string (grown a character at a time, a million ids took ten times as long).

const ALPHABET = Buffer.from(BASE62_ALPHABET, 'latin1')
/** Bytes from 248 up would make the first 248 % 62 characters likelier: they are dropped, as the app drops them. */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length)
const RANDOM_CHUNK = 65_536

/** Random bytes a chunk at a time. */
class RandomBytes {
  private readonly bytes = Buffer.alloc(RANDOM_CHUNK)
  private next = RANDOM_CHUNK

  byte(): number {
    if (this.next === this.bytes.length) {
      randomFillSync(this.bytes)
      this.next = 0
    }
    return this.bytes[this.next++] ?? 0
  }

  /** A base62 character's code, uniformly: bytes that would favour some characters are dropped. */
  character(): number {
    for (;;) {
      const byte = this.byte()
      if (byte < UNBIASED_BELOW) return ALPHABET[byte % ALPHABET.length] ?? 0
    }
  }

  /** A number uniformly in (0, 1], from 53 random bits. */
  unit(): number {
    let bits = 0
    for (let i = 0; i < 6; i++) bits = bits * 256 + this.byte()
    bits = bits * 32 + (this.byte() >>> 3)
    return (bits + 1) / 2 ** 53
  }
}

/** How many leading characters of an ascending id come from its place among the draws: 62^8 is under 2^53. */
const PLACED_CHARACTERS = 8

/**
 * `count` new random ids of one kind, handed out in ascending order as they are asked for: in distribution the same
 * ids as `count` drawn one at a time as the app draws them and then sorted, but with no sort, and the first ones
 * ready at once rather than after the whole draw (for a seed of 100,000 leads, 2.2 million ids: its writes waited
 * some 4 s for the first batch). An id's first `placed` characters are a base62 number, its draw's place in [0, 1)
 * among `count` uniform draws taken in order (each the least of those left above the one before:
 * 1 - (1 - u)·V^(1/left), V uniform); the rest are drawn one character at a time. Ids whose first characters tie
 * (for 1.2 million ids, about one seed in 300) are held until one that does not comes, and sorted. `placed` is
 * smaller only in tests, to make ties common.
 */
export function ascendingIds(kind: IdKind, count: number, placed = PLACED_CHARACTERS): () => string {
  const prefix = ID_PREFIXES[kind]
  const length = ID_RANDOM_LENGTH[kind]
  const leading = Math.min(placed, length)
  const places = ALPHABET.length ** leading
  const text = Buffer.alloc(prefix.length + length)
  text.write(prefix, 0, 'latin1')
  const random = new RandomBytes()
  let drawn = 0
  let at = 0
  // The ids drawn whose leading characters are `tiedPlace`'s, and those ready to hand out.
  let tied: string[] = []
  let tiedPlace = -1
  let ready: string[] = []
  let readyAt = 0
  const release = () => {
    ready = tied.length > 1 ? tied.sort() : tied
    readyAt = 0
    tied = []
  }
  const draw = () => {
    at = 1 - (1 - at) * random.unit() ** (1 / (count - drawn))
    drawn += 1
    const drawnPlace = Math.min(places - 1, Math.floor(at * places))
    let place = drawnPlace
    for (let i = prefix.length + leading - 1; i >= prefix.length; i--) {
      text[i] = ALPHABET[place % ALPHABET.length] ?? 0
      place = Math.floor(place / ALPHABET.length)
    }
    for (let i = prefix.length + leading; i < text.length; i++) text[i] = random.character()
    if (drawnPlace !== tiedPlace && tied.length > 0) release()
    tiedPlace = drawnPlace
    tied.push(text.toString('latin1'))
  }
  return () => {
    while (readyAt === ready.length) {
      if (drawn < count) draw()
      else if (tied.length > 0) release()
      else throw new Error(`no ${kind} ids left`)
    }
    return ready[readyAt++] ?? ''
  }
}
