import { bitmap, type Bitmap } from '../../platform/data/bitmaps.js'

// Terms of one or two characters, which the trigram indexes (FTS5, pg_trgm) cannot look up: the database would test
// them row by row on every match of the search's other terms (`main st`: `st` on each of 12,482 rows, 60 ms) or on
// every search row. Here each one- and two-character string of the leads' search documents has a bitmap of the
// leads whose document holds it, so such a term costs one bitmap. Written here, not taken from a library: it is a
// table of bitmaps the lead index keeps up to date as it does its others.

/**
 * At most this many strings are kept: a document's strings of one and two characters are few in alphabetic text
 * (717 for the 100,000 demo leads) but may be many where words are ideographs, and every one costs memory. Past it,
 * strings not yet seen are not kept, and a term of them is left to the database.
 */
export const SHORT_TERMS_KEPT = 20_000

/** A string this index answers for: one or two UTF-16 code units, neither half of a surrogate pair. */
export function isShortTerm(form: string): boolean {
  if (form.length === 0 || form.length > 2) return false
  for (let i = 0; i < form.length; i++) {
    const unit = form.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdfff) return false
  }
  return true
}

const ASCII = 128

/** (string, ordinal) pairs held before they go into the bitmaps (8 bytes each, and 4 more to sort them by string). */
const PENDING_HELD = 1 << 18

/** A pair of code units as one number, above every single unit's. */
function pairKey(first: number, second: number): number {
  return 0x10000 + first * 0x10000 + second
}

export class ShortTermIndex {
  /** Each kept string's bitmap, by its number. */
  private readonly bits: Bitmap[] = []
  /**
   * What to add at the next `flush`: the numbers of strings and the ordinals to add to each, side by side. Typed
   * arrays made once: an array of ordinals a string, pushed to, was half a gigabyte of garbage for one build of
   * 100,000 leads (their documents hold some 300 strings each).
   */
  private readonly pendingStrings: Uint32Array
  private readonly pendingOrdinals: Uint32Array
  /** The pending ordinals put in order of string, at `flush`. */
  private readonly sorted: Uint32Array
  private pendingCount = 0
  /** The last ordinal added to each string, by its number: a lead is listed once per string. */
  private last = new Int32Array(64).fill(-1)
  /** The numbers of ASCII characters and pairs of them (most of any document), then of every other string. */
  private readonly ascii = new Int32Array(ASCII + ASCII * ASCII).fill(-1)
  private readonly others = new Map<number, number>()
  /** Whether a string was left out for the bound: a string not found may then be in documents. */
  private full = false
  /** Leads whose strings changed or went since the bitmaps were last settled. */
  private stale: number[] = []

  /** `bound`: at most so many strings kept; `held`: at most so many ordinals held before they go into the bitmaps. */
  /**
   * `bound`: at most so many strings kept; `held`: at most so many ordinals held before they go into the bitmaps;
   * `keepsPair`: which pairs of code units are kept (a pair it leaves out is answered elsewhere, or by the database).
   */
  constructor(
    private readonly bound = SHORT_TERMS_KEPT,
    held = PENDING_HELD,
    private readonly keepsPair: (first: number, second: number) => boolean = () => true,
  ) {
    const room = Math.max(1, held)
    this.pendingStrings = new Uint32Array(room)
    this.pendingOrdinals = new Uint32Array(room)
    this.sorted = new Uint32Array(room)
  }

  /** The number of strings kept. */
  get size(): number {
    return this.bits.length
  }

  /** Adds a lead's document (taken out first if it was forgotten). */
  add(ordinal: number, document: string): void {
    if (this.stale.length > 0) this.settle()
    let previous = -1
    for (let i = 0; i < document.length; i++) {
      const unit = document.charCodeAt(i)
      this.mark(unit < ASCII ? unit : -1, unit, ordinal)
      if (previous >= 0 && this.keepsPair(previous, unit)) {
        const slot = previous < ASCII && unit < ASCII ? ASCII + previous * ASCII + unit : -1
        this.mark(slot, pairKey(previous, unit), ordinal)
      }
      previous = unit
    }
  }

  /**
   * Puts the strings of the leads added since into the bitmaps: a batch at a time (a call a string, not a lead),
   * the pending ordinals counted out by string into one array, each string's run given to its bitmap at once.
   */
  private flush(): void {
    const count = this.pendingCount
    if (count === 0) return
    const starts = new Uint32Array(this.bits.length + 1)
    for (let i = 0; i < count; i++) {
      const at = (this.pendingStrings[i] ?? 0) + 1
      starts[at] = (starts[at] ?? 0) + 1
    }
    for (let n = 1; n < starts.length; n++) starts[n] = (starts[n] ?? 0) + (starts[n - 1] ?? 0)
    const next = starts.slice(0, this.bits.length)
    for (let i = 0; i < count; i++) {
      const n = this.pendingStrings[i] ?? 0
      const at = next[n] ?? 0
      this.sorted[at] = this.pendingOrdinals[i] ?? 0
      next[n] = at + 1
    }
    for (let n = 0; n < this.bits.length; n++) {
      const from = starts[n] ?? 0
      const to = starts[n + 1] ?? 0
      if (to > from) this.bits[n]?.addMany(this.sorted.subarray(from, to))
    }
    this.pendingCount = 0
  }

  /** Takes a lead out of every bitmap (before the next document is added, or the next term looked up). */
  forget(ordinal: number): void {
    this.stale.push(ordinal)
  }

  /** Puts what was added into the bitmaps, then takes the forgotten leads out: one pass for all of them. */
  private settle(): void {
    this.flush()
    if (this.stale.length === 0) return
    const gone = bitmap(this.stale)
    for (const bits of this.bits) bits.andNotInPlace(gone)
    for (let n = 0; n < this.last.length; n++) if (gone.has(this.last[n] ?? -1)) this.last[n] = -1
    this.stale = []
  }

  /** Settles, and keeps each bitmap in its least memory (runs where leads in a row hold a string): after a build. */
  compact(): void {
    this.settle()
    for (const bits of this.bits) {
      bits.runOptimize()
      bits.shrinkToFit()
    }
  }

  /**
   * The leads whose documents hold `form` (isShortTerm's), or undefined when that cannot be told here (a string
   * left out for the bound, or a pair this index does not keep). The bitmap is the index's own: callers copy it before changing it.
   */
  leadsHolding(form: string): Bitmap | undefined {
    this.settle()
    const first = form.charCodeAt(0)
    const second = form.charCodeAt(1)
    const one = form.length === 1
    if (!one && !this.keepsPair(first, second)) return undefined
    const slot = one
      ? first < ASCII
        ? first
        : -1
      : first < ASCII && second < ASCII
        ? ASCII + first * ASCII + second
        : -1
    const n = slot >= 0 ? (this.ascii[slot] ?? -1) : (this.others.get(one ? first : pairKey(first, second)) ?? -1)
    if (n >= 0) return this.bits[n]
    return this.full ? undefined : bitmap()
  }

  private mark(slot: number, key: number, ordinal: number): void {
    let n = slot >= 0 ? (this.ascii[slot] ?? -1) : (this.others.get(key) ?? -1)
    if (n < 0) {
      if (this.bits.length >= this.bound) {
        this.full = true
        return
      }
      n = this.bits.length
      this.bits.push(bitmap())
      if (n >= this.last.length) {
        const last = new Int32Array(this.last.length * 2).fill(-1)
        last.set(this.last)
        this.last = last
      }
      if (slot >= 0) this.ascii[slot] = n
      else this.others.set(key, n)
    }
    if (this.last[n] !== ordinal) {
      this.last[n] = ordinal
      if (this.pendingCount === this.pendingStrings.length) this.flush()
      this.pendingStrings[this.pendingCount] = n
      this.pendingOrdinals[this.pendingCount] = ordinal
      this.pendingCount += 1
    }
  }
}
