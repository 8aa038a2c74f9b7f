import { bitmap, difference, type Bitmap } from '../../platform/data/bitmaps.js'

// The words of the leads' search documents, each with the leads that hold it, so that a free-text term made only of
// letters and digits is answered in memory: `market` is a substring of a document exactly when it is a substring of
// one of its words (a run of such characters cannot run past a word's end), so the term's leads are those of the
// words that contain it. The trigram indexes (pg_trgm above all) test every candidate row again, and for a word held
// by a quarter of the leads that recheck alone took 20-30 ms (docs/decisions/0081-words-in-memory.md). Written here,
// not taken from a library: it is a table of words and bitmaps the lead index keeps up to date as it does its others.

/**
 * At most this many distinct words an organization: past it the index says it cannot tell, and terms go to the
 * database as before. The 100,000 demo leads have about 99,000 (most held by one lead: a company's own domain, an
 * email's name); each costs some 10 bytes beyond its characters once built, some 30 while it is built.
 */
export const WORDS_KEPT = 2_000_000

/** At most this many characters in all the distinct words (two bytes each while built): the same, for long words. */
export const CHARACTERS_KEPT = 32_000_000

/** A word held by at least this many leads keeps them as a bitmap; fewer, as a run of ordinals in one shared array. */
const DENSE_FROM = 16

/** (bitmap, ordinal) pairs held before they go into the bitmaps (8 bytes each, and 4 more to sort them). */
const PENDING_HELD = 1 << 17

/**
 * Leads changed since the words were last built that are tested one by one (their documents held as they are now)
 * before the words are built again from the old ones and these: at least so many, or a 32nd of the leads.
 */
const CHANGES_HELD = 2048

/** The bounds a word index works within (tests make them small). */
export interface WordSettings {
  /** At most so many distinct words. */
  bound: number
  /** At most so many characters in them. */
  characterBound: number
  /** At most so many leads held for the bitmaps before they are added. */
  held: number
  /** A word with this many leads keeps them as a bitmap. */
  denseFrom: number
  /** At least so many changed leads are tested one by one before the words are built again. */
  changesHeld: number
}

const DEFAULT_SETTINGS: WordSettings = {
  bound: WORDS_KEPT,
  characterBound: CHARACTERS_KEPT,
  held: PENDING_HELD,
  denseFrom: DENSE_FROM,
  changesHeld: CHANGES_HELD,
}

/** Between two words in the vocabulary: a character no word holds, so no term can match across it. */
const SEPARATOR = '\n'

/** A code unit that may be part of a word: an ASCII letter or digit, or any unit past ASCII. */
export function isWordUnit(unit: number): boolean {
  return unit >= 0x80 || (unit >= 0x30 && unit <= 0x39) || ((unit | 0x20) >= 0x61 && (unit | 0x20) <= 0x7a)
}

/** A term this index answers for: one or more code units, every one a word unit (no space, no punctuation). */
export function isWordForm(form: string): boolean {
  if (form.length === 0) return false
  for (let i = 0; i < form.length; i++) if (!isWordUnit(form.charCodeAt(i))) return false
  return true
}

/** An Int32Array twice as long, the new half filled with `fill`. */
function grown(array: Int32Array, fill: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(array.length * 2).fill(fill)
  next.set(array)
  return next
}

/** A Uint32Array or Uint16Array at least `size` long, with `array`'s values. */
function room<A extends Uint32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>>(array: A, size: number): A {
  if (size <= array.length) return array
  const next = new (array.constructor as new (length: number) => A)(Math.max(size, array.length * 2))
  next.set(array)
  return next
}

/** FNV-1a over code units `from` to `to` of `text`. */
function hashOf(text: string, from: number, to: number): number {
  let hash = 0x811c9dc5
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

/**
 * Collects documents, or the words of an index being built again, into a WordIndex. A word's first leads are kept in
 * a chain through two shared typed arrays (most words have one or two: an array a word was 15 MB for the 100,000 demo
 * leads); once it has DENSE_FROM, they move to a bitmap, to which later leads go a batch at a time.
 */
export class WordIndexBuilder {
  /**
   * The words' characters, each word followed by SEPARATOR, as the vocabulary will be, and where each starts: words
   * are found through a hash table of their numbers, compared where they stand, so a document's words are never
   * made into strings (3.3 million of them for the 100,000 demo leads, and a map of strings twice the index's size).
   */
  private characters = new Uint16Array(1 << 16)
  private characterCount = 0
  private wordStarts = new Uint32Array(1024)
  private hashes = new Uint32Array(1024)
  private wordCount = 0
  /** Open addressing: a word's number at its hash's slot or the next free one after; -1 where none. */
  private table = new Int32Array(1 << 11).fill(-1)
  /** By word number: the last lead noted (a lead is listed once per word), its chain's last link, its leads so far. */
  private last = new Int32Array(1024).fill(-1)
  private head = new Int32Array(1024).fill(-1)
  private counts = new Int32Array(1024)
  /** By word number, its bitmap's slot in `dense` once it has one, else -1. */
  private slots = new Int32Array(1024).fill(-1)
  private readonly dense: Bitmap[] = []
  private readonly denseWords: number[] = []
  /** The chains' links: a lead, and the link before it (-1: none). */
  private links = new Int32Array(1 << 12)
  private previous = new Int32Array(1 << 12)
  private linked = 0
  /** (slot, lead) pairs for the bitmaps, added at the next `flush`. */
  private readonly pendingSlots: Uint32Array
  private readonly pendingOrdinals: Uint32Array
  private readonly sorted: Uint32Array
  private pendingCount = 0
  private leads = 0
  private over = false

  private readonly settings: WordSettings

  constructor(settings: Partial<WordSettings> = {}) {
    this.settings = { ...DEFAULT_SETTINGS, ...settings }
    const room = Math.max(1, this.settings.held)
    this.pendingSlots = new Uint32Array(room)
    this.pendingOrdinals = new Uint32Array(room)
    this.sorted = new Uint32Array(room)
  }

  /** Adds a lead's document. */
  add(ordinal: number, document: string): void {
    if (this.over) return
    this.leads += 1
    let start = -1
    for (let i = 0; i < document.length; i++) {
      if (isWordUnit(document.charCodeAt(i))) {
        if (start < 0) start = i
      } else if (start >= 0) {
        this.note(this.numberOf(document, start, i), ordinal)
        start = -1
      }
    }
    if (start >= 0) this.note(this.numberOf(document, start, document.length), ordinal)
  }

  /** Adds a word with leads that hold it (a word of an index being built again, given once). */
  addLeads(word: string, leads: Bitmap | Uint32Array): void {
    if (this.over) return
    const n = this.numberOf(word, 0, word.length)
    if (n < 0) return
    if (leads instanceof Uint32Array) {
      for (const ordinal of leads) this.note(n, ordinal)
    } else if (leads.size > 0) {
      this.slots[n] = this.dense.length
      this.dense.push(leads)
      this.denseWords.push(n)
    }
  }

  /** The index, or one that answers nothing (`leadsHolding` undefined) when the words ran past the bound. */
  build(): WordIndex {
    if (this.over) return new WordIndex(undefined, this.settings)
    this.flush()
    const count = this.wordCount
    const starts = this.wordStarts.slice(0, count + 1)
    starts[count] = this.characterCount
    const offsets = new Uint32Array(count + 1)
    let listed = 0
    for (let n = 0; n < count; n++) {
      offsets[n] = listed
      if ((this.slots[n] ?? -1) < 0) listed += this.counts[n] ?? 0
    }
    offsets[count] = listed
    const postings = new Uint32Array(listed)
    for (let n = 0; n < count; n++) {
      if ((this.slots[n] ?? -1) >= 0) continue
      let at = offsets[n + 1] ?? 0
      for (let link = this.head[n] ?? -1; link >= 0; link = this.previous[link] ?? -1) {
        at -= 1
        postings[at] = this.links[link] ?? 0
      }
    }
    const dense = new Map<number, Bitmap>()
    this.dense.forEach((bits, slot) => {
      bits.runOptimize()
      bits.shrinkToFit()
      dense.set(this.denseWords[slot] ?? 0, bits)
    })
    let vocabulary = ''
    for (let at = 0; at < this.characterCount; at += 8192) {
      const piece = this.characters.subarray(at, Math.min(this.characterCount, at + 8192))
      vocabulary += String.fromCharCode(...piece)
    }
    const words: WordTable = { vocabulary, starts, offsets, postings, dense, count, leads: this.leads }
    return new WordIndex(words, this.settings)
  }

  /** The number of the word at `from` to `to` of `text`, a new one if it is new; -1 past the bound. */
  private numberOf(text: string, from: number, to: number): number {
    if (this.over) return -1
    const hash = hashOf(text, from, to)
    const mask = this.table.length - 1
    let slot = hash & mask
    for (let n = this.table[slot] ?? -1; n >= 0; n = this.table[slot] ?? -1) {
      if (this.hashes[n] === hash && this.holds(n, text, from, to)) return n
      slot = (slot + 1) & mask
    }
    const start = this.characterCount
    if (this.wordCount >= this.settings.bound || start + (to - from) + 1 > this.settings.characterBound) {
      this.over = true
      this.characters = new Uint16Array(0)
      this.table = new Int32Array(1).fill(-1)
      this.dense.length = 0
      return -1
    }
    const n = this.wordCount
    this.wordCount += 1
    this.characters = room(this.characters, start + (to - from) + 1)
    for (let i = from; i < to; i++) this.characters[start + i - from] = text.charCodeAt(i)
    this.characters[start + (to - from)] = SEPARATOR.charCodeAt(0)
    this.characterCount = start + (to - from) + 1
    this.wordStarts = room(this.wordStarts, n + 2)
    this.wordStarts[n] = start
    this.hashes = room(this.hashes, n + 1)
    this.hashes[n] = hash
    this.table[slot] = n
    if (n >= this.last.length) {
      this.last = grown(this.last, -1)
      this.head = grown(this.head, -1)
      this.counts = grown(this.counts, 0)
      this.slots = grown(this.slots, -1)
    }
    if (this.wordCount * 2 > this.table.length) this.rehash()
    return n
  }

  /** Whether word `n` is `text` from `from` to `to`. */
  private holds(n: number, text: string, from: number, to: number): boolean {
    const start = this.wordStarts[n] ?? 0
    if (this.characters[start + (to - from)] !== SEPARATOR.charCodeAt(0)) return false
    for (let i = from; i < to; i++) if (this.characters[start + i - from] !== text.charCodeAt(i)) return false
    return true
  }

  /** Doubles the hash table, each word placed again by its hash. */
  private rehash(): void {
    const table = new Int32Array(this.table.length * 2).fill(-1)
    const mask = table.length - 1
    for (let n = 0; n < this.wordCount; n++) {
      let slot = (this.hashes[n] ?? 0) & mask
      while ((table[slot] ?? -1) >= 0) slot = (slot + 1) & mask
      table[slot] = n
    }
    this.table = table
  }

  private note(n: number, ordinal: number): void {
    if (n < 0 || this.last[n] === ordinal) return
    this.last[n] = ordinal
    const slot = this.slots[n] ?? -1
    if (slot >= 0) {
      if (this.pendingCount === this.pendingSlots.length) this.flush()
      this.pendingSlots[this.pendingCount] = slot
      this.pendingOrdinals[this.pendingCount] = ordinal
      this.pendingCount += 1
      return
    }
    const count = (this.counts[n] ?? 0) + 1
    if (count < this.settings.denseFrom) {
      if (this.linked === this.links.length) {
        this.links = grown(this.links, 0)
        this.previous = grown(this.previous, -1)
      }
      this.links[this.linked] = ordinal
      this.previous[this.linked] = this.head[n] ?? -1
      this.head[n] = this.linked
      this.linked += 1
      this.counts[n] = count
      return
    }
    // Its leads move to a bitmap; their links are left unused.
    const bits = bitmap()
    bits.add(ordinal)
    for (let link = this.head[n] ?? -1; link >= 0; link = this.previous[link] ?? -1) bits.add(this.links[link] ?? 0)
    this.slots[n] = this.dense.length
    this.dense.push(bits)
    this.denseWords.push(n)
    this.head[n] = -1
    this.counts[n] = 0
  }

  /** Puts the pending pairs in their bitmaps, counted out by bitmap first: one call a bitmap. */
  private flush(): void {
    const count = this.pendingCount
    if (count === 0) return
    const slots = this.dense.length
    const starts = new Uint32Array(slots + 1)
    for (let i = 0; i < count; i++) {
      const at = (this.pendingSlots[i] ?? 0) + 1
      starts[at] = (starts[at] ?? 0) + 1
    }
    for (let n = 1; n <= slots; n++) starts[n] = (starts[n] ?? 0) + (starts[n - 1] ?? 0)
    const next = starts.slice(0, slots)
    for (let i = 0; i < count; i++) {
      const slot = this.pendingSlots[i] ?? 0
      const at = next[slot] ?? 0
      this.sorted[at] = this.pendingOrdinals[i] ?? 0
      next[slot] = at + 1
    }
    for (let slot = 0; slot < slots; slot++) {
      const from = starts[slot] ?? 0
      const to = starts[slot + 1] ?? 0
      if (to > from) this.dense[slot]?.addMany(this.sorted.subarray(from, to))
    }
    this.pendingCount = 0
  }
}

/** The words as last built, and their leads. */
interface WordTable {
  /** Every word, each followed by SEPARATOR. */
  vocabulary: string
  /** Where each word starts in `vocabulary`, and past the last, its length. */
  starts: Uint32Array
  /** Where each word's leads start in `postings` (a word in `dense` has none there). */
  offsets: Uint32Array
  postings: Uint32Array
  /** The leads of the words many hold, by the word's number. */
  dense: Map<number, Bitmap>
  count: number
  /** How many documents the words were built from. */
  leads: number
}

/**
 * The words of an organization's search documents. Kept exact as leads change without building it again each time:
 * a changed lead is set aside (its old words still list it, and are not trusted for it) with its document as it is
 * now, which each term is tested against directly, until so many are set aside that the words are built again from
 * the old ones (without them) and their documents.
 */
export class WordIndex {
  /** Leads changed since the words were built: their listings in `words` are out of date. */
  private changed = bitmap()
  /** The changed leads that still have a document, with it. */
  private readonly documents = new Map<number, string>()

  constructor(
    private words: WordTable | undefined,
    private readonly settings: WordSettings = DEFAULT_SETTINGS,
  ) {}

  /** The number of distinct words (0 when past the bound). */
  get size(): number {
    return this.words?.count ?? 0
  }

  /** Whether it can answer at all: false once the words ran past the bound. */
  get usable(): boolean {
    return this.words !== undefined
  }

  /** A lead's document, new or changed. */
  add(ordinal: number, document: string): void {
    if (this.words === undefined) return
    this.changed.add(ordinal)
    this.documents.set(ordinal, document)
    this.rebuildWhenFull()
  }

  /** A lead whose document changed (its new one comes through `add`) or went. */
  forget(ordinal: number): void {
    if (this.words === undefined) return
    this.changed.add(ordinal)
    this.documents.delete(ordinal)
  }

  /**
   * The leads whose documents hold `form` (isWordForm's) as a new bitmap, or undefined when that cannot be told here
   * (past the bound).
   */
  leadsHolding(form: string): Bitmap | undefined {
    const words = this.words
    if (words === undefined) return undefined
    const found = bitmap()
    const { vocabulary, starts, offsets, postings, dense } = words
    let at = vocabulary.indexOf(form)
    while (at >= 0) {
      const n = wordAt(starts, words.count, at)
      const bits = dense.get(n)
      if (bits !== undefined) found.orInPlace(bits)
      else found.addMany(postings.subarray(offsets[n] ?? 0, offsets[n + 1] ?? 0))
      at = vocabulary.indexOf(form, starts[n + 1] ?? vocabulary.length)
    }
    if (this.changed.size > 0) found.andNotInPlace(this.changed)
    for (const [ordinal, document] of this.documents) if (document.includes(form)) found.add(ordinal)
    return found
  }

  /** Builds the words again once enough leads changed: those listed from the old words, then the changed ones. */
  private rebuildWhenFull(): void {
    const words = this.words
    if (words === undefined || this.changed.size < Math.max(this.settings.changesHeld, words.leads / 32)) return
    const builder = new WordIndexBuilder(this.settings)
    const { vocabulary, starts, offsets, postings, dense, count } = words
    for (let n = 0; n < count; n++) {
      const word = vocabulary.slice(starts[n] ?? 0, (starts[n + 1] ?? 1) - 1)
      const bits = dense.get(n)
      if (bits !== undefined) {
        builder.addLeads(word, difference(bits, this.changed))
        continue
      }
      const listed = postings.subarray(offsets[n] ?? 0, offsets[n + 1] ?? 0)
      const kept = listed.filter((ordinal) => !this.changed.has(ordinal))
      if (kept.length > 0) builder.addLeads(word, kept)
    }
    for (const [ordinal, document] of this.documents) builder.add(ordinal, document)
    const rebuilt = builder.build().words
    // The old words' leads were given as lists, not documents: the count the next rebuild waits on stays the old one.
    if (rebuilt !== undefined) rebuilt.leads = Math.max(words.leads, rebuilt.leads)
    this.words = rebuilt
    this.changed = bitmap()
    this.documents.clear()
  }
}

/** The number of the word that holds position `at` of the vocabulary: the last whose start is at or before it. */
function wordAt(starts: Uint32Array, count: number, at: number): number {
  let low = 0
  let high = count - 1
  while (low < high) {
    const middle = (low + high + 1) >>> 1
    if ((starts[middle] ?? 0) <= at) low = middle
    else high = middle - 1
  }
  return low
}
