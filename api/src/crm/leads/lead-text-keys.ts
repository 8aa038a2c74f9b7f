// The keys of a text sort (a lead's folded name, its first contact's email…), kept as ranks: each distinct key once,
// in order, in one string, and each lead's place among them as an integer. A column of 100,000 keys kept as strings
// in an array took some 5 MB of heap (a string's header and an array slot beside every key); as ranks it takes the
// distinct keys' characters and 8 bytes a lead, and two leads compare as two integers. Written here, not taken from a
// library: it is an order kept up to date as leads change, with the code-point order SQL sorts by.

/**
 * Compares two texts by code point, as SQLite compares text and Postgres under the C collation: by UTF-16 code
 * unit, except that a surrogate (a code point past U+FFFF) comes after every other unit.
 */
export function byCodePoint(a: string, b: string): number {
  return a === b ? 0 : compareUnits(a, 0, a.length, b, 0, b.length)
}

/** byCodePoint's order of `a` from `aFrom` to `aTo` and `b` from `bFrom` to `bTo`, without making either a string. */
function compareUnits(a: string, aFrom: number, aTo: number, b: string, bFrom: number, bTo: number): number {
  const length = Math.min(aTo - aFrom, bTo - bFrom)
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(aFrom + i)
    let y = b.charCodeAt(bFrom + i)
    if (x === y) continue
    // U+D800–U+DFFF up past U+FFFF's units, U+E000–U+FFFF down below them: then units compare as code points.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000
    }
    return x < y ? -1 : 1
  }
  const difference = aTo - aFrom - (bTo - bFrom)
  return difference < 0 ? -1 : difference > 0 ? 1 : 0
}

/** A UTF-16 surrogate: where JavaScript's order of code units and byCodePoint's part. */
const SURROGATE = /[\uD800-\uDFFF]/

/**
 * An order of indices into `keys` by code point: JavaScript's own comparison of strings (by code unit, done by the
 * engine) when no key holds a surrogate, as it is then the same order; over a million keys, half the time.
 */
function keyOrder(keys: readonly string[]): (a: number, b: number) => number {
  if (keys.some((key) => SURROGATE.test(key))) return (a, b) => byCodePoint(keys[a] ?? '', keys[b] ?? '')
  return (a, b) => {
    const x = keys[a] ?? ''
    const y = keys[b] ?? ''
    return x < y ? -1 : x > y ? 1 : 0
  }
}

/** A lead without a key. */
const NONE = -1
/** A lead whose key is held (`hold`) and not yet placed (`settle`). */
const HELD = -2

/** At least so many leads with a key between the sorted ones before those are sorted again with theirs. */
const LOOSE_HELD = 1024

/** At least so many keys held (`hold`) before they are sorted in, whether or not `settle` has come. */
const HELD_AT_ONCE = 16_384

/**
 * A text sort's keys by lead ordinal. The sorted keys are the distinct keys as last sorted; a lead whose key is one of
 * them has the rank 2i + 1 (i: its place), and a lead whose key is not (set since) the rank 2p, p the place it would
 * take, with the key itself held aside: leads of equal even ranks are compared by those keys. Once more than a
 * LOOSE_HELD or an eighth of the sorted keys are held aside, they are merged in.
 */
export class TextKeys {
  /** The sorted distinct keys, one after the other, and where each starts (past the last: the text's length). */
  private sorted = ''
  private starts = new Uint32Array(1)
  private count = 0
  private ranks = new Int32Array(1024).fill(NONE)
  /** The leads whose keys are not among the sorted ones, with their keys. */
  private readonly loose = new Map<number, string>()
  /** Keys held to be placed at the next `settle`, with their leads. */
  private heldOrdinals: number[] = []
  private heldKeys: string[] = []

  constructor(
    private readonly looseHeld = LOOSE_HELD,
    private readonly heldAtOnce = HELD_AT_ONCE,
  ) {}

  /** Lead `ordinal`'s key; undefined for none. */
  get(ordinal: number): string | undefined {
    const rank = this.ranks[ordinal] ?? NONE
    if (rank < 0) return undefined
    return rank % 2 === 1 ? this.key((rank - 1) / 2) : this.loose.get(ordinal)
  }

  /**
   * Holds lead `ordinal`'s key to be placed at the next `settle`, which must come before the keys are compared: many
   * keys read at once are sorted in together (placing each as it comes would cost a binary search each).
   */
  hold(ordinal: number, key: string | undefined): void {
    this.set(ordinal, undefined)
    if (key === undefined) return
    this.ranks[ordinal] = HELD
    this.heldOrdinals.push(ordinal)
    this.heldKeys.push(key)
    // A whole column read at once is sorted in a part at a time, so that its keys are not all strings together.
    if (this.heldOrdinals.length >= Math.max(this.heldAtOnce, this.count / 2)) this.settle()
  }

  /** Places the keys held: sorted in with the others when they are many, else one by one. */
  settle(): void {
    const ordinals = this.heldOrdinals
    const keys = this.heldKeys
    if (ordinals.length === 0) return
    this.heldOrdinals = []
    this.heldKeys = []
    const few = ordinals.length <= Math.max(this.looseHeld, this.count / 8)
    const merged: Entries = { ordinals: [], keys: [] }
    // From the last: a lead held twice takes its last key.
    for (let i = ordinals.length - 1; i >= 0; i--) {
      const ordinal = ordinals[i] ?? 0
      const key = keys[i] ?? ''
      if (this.ranks[ordinal] !== HELD) continue
      if (few) {
        this.set(ordinal, key)
      } else {
        this.ranks[ordinal] = NONE
        merged.ordinals.push(ordinal)
        merged.keys.push(key)
      }
    }
    if (!few) this.merge(merged)
  }

  /** Sets lead `ordinal`'s key (undefined: it has none). */
  set(ordinal: number, key: string | undefined): void {
    if (ordinal >= this.ranks.length) {
      const ranks = new Int32Array(Math.max(ordinal + 1, this.ranks.length * 2)).fill(NONE)
      ranks.set(this.ranks)
      this.ranks = ranks
    }
    this.loose.delete(ordinal)
    if (key === undefined) {
      this.ranks[ordinal] = NONE
      return
    }
    const place = this.placeOf(key)
    if (place < this.count && this.compareAt(place, key) === 0) {
      this.ranks[ordinal] = 2 * place + 1
      return
    }
    this.ranks[ordinal] = 2 * place
    this.loose.set(ordinal, key)
    if (this.loose.size > Math.max(this.looseHeld, this.count / 8)) this.merge()
  }

  /** Compares two leads by key, ascending (`s` 1) or descending (-1); a lead without one last both ways. */
  compare(a: number, b: number, s: number): number {
    const x = this.ranks[a] ?? NONE
    const y = this.ranks[b] ?? NONE
    if (x === y) {
      if (x === NONE || x % 2 === 1) return 0
      return byCodePoint(this.loose.get(a) ?? '', this.loose.get(b) ?? '') * s
    }
    if (x === NONE) return 1
    if (y === NONE) return -1
    return x < y ? -s : s
  }

  /** The sorted key at `place`. */
  private key(place: number): string {
    return this.sorted.slice(this.starts[place] ?? 0, this.starts[place + 1] ?? 0)
  }

  /** The sorted key at `place` compared with `key`. */
  private compareAt(place: number, key: string): number {
    return compareUnits(this.sorted, this.starts[place] ?? 0, this.starts[place + 1] ?? 0, key, 0, key.length)
  }

  /** The first place whose sorted key is not before `key` (binary search). */
  private placeOf(key: string): number {
    let low = 0
    let high = this.count
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.compareAt(middle, key) < 0) low = middle + 1
      else high = middle
    }
    return low
  }

  /**
   * Sorts the keys held aside and `more` (leads without a rank) into the sorted ones, a merge of two sorted runs,
   * leaving out sorted keys no lead holds any longer, and ranks every lead again.
   */
  private merge(more: Entries = { ordinals: [], keys: [] }): void {
    const { ordinals, keys: heldKeys } = more
    for (const [ordinal, key] of this.loose) {
      this.ranks[ordinal] = NONE
      ordinals.push(ordinal)
      heldKeys.push(key)
    }
    this.loose.clear()
    const order = Array.from(heldKeys.keys()).sort(keyOrder(heldKeys))
    // Which sorted keys are still some lead's.
    const used = new Uint8Array(this.count)
    for (const rank of this.ranks) if (rank >= 0) used[(rank - 1) / 2] = 1
    // The new text is made of runs of the old one and the held keys between them: no sorted key becomes a string.
    const pieces: string[] = []
    const starts = new Uint32Array(this.count + order.length + 1)
    const placeOfSorted = new Int32Array(this.count).fill(NONE)
    const placeOfHeld = new Int32Array(heldKeys.length)
    let count = 0
    let at = 0
    let runFrom = -1
    let i = 0
    let j = 0
    const endRun = (to: number) => {
      if (runFrom >= 0) pieces.push(this.sorted.slice(runFrom, to))
      runFrom = -1
    }
    while (i < this.count || j < order.length) {
      const from = this.starts[i] ?? 0
      const to = this.starts[i + 1] ?? 0
      if (i < this.count && used[i] === 0) {
        endRun(from)
        i += 1
        continue
      }
      const held = j < order.length ? (heldKeys[order[j] ?? 0] ?? '') : undefined
      const sortedFirst =
        i < this.count && (held === undefined || compareUnits(this.sorted, from, to, held, 0, held.length) <= 0)
      starts[count] = at
      if (sortedFirst) {
        if (runFrom < 0) runFrom = from
        placeOfSorted[i] = count
        at += to - from
        i += 1
        // Held keys equal to it take its place.
        while (j < order.length) {
          const next = heldKeys[order[j] ?? 0] ?? ''
          if (compareUnits(this.sorted, from, to, next, 0, next.length) !== 0) break
          placeOfHeld[order[j] ?? 0] = count
          j += 1
        }
      } else if (held !== undefined) {
        endRun(from)
        pieces.push(held)
        at += held.length
        while (j < order.length && heldKeys[order[j] ?? 0] === held) {
          placeOfHeld[order[j] ?? 0] = count
          j += 1
        }
      }
      count += 1
    }
    endRun(this.starts[this.count] ?? 0)
    starts[count] = at
    for (let ordinal = 0; ordinal < this.ranks.length; ordinal++) {
      const rank = this.ranks[ordinal] ?? NONE
      if (rank >= 0) this.ranks[ordinal] = 2 * (placeOfSorted[(rank - 1) / 2] ?? NONE) + 1
    }
    ordinals.forEach((ordinal, n) => {
      this.ranks[ordinal] = 2 * (placeOfHeld[n] ?? NONE) + 1
    })
    this.sorted = pieces.join('')
    this.starts = starts.slice(0, count + 1)
    this.count = count
  }
}
/** Leads and their keys, side by side. */
interface Entries {
  ordinals: number[]
  keys: string[]
}
