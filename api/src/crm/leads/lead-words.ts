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
 * email's name); each costs some 10 bytes beyond its characters once built, some 80 while it is built.
 */
export const WORDS_KEPT = 2_000_000

/** A word held by at least this many leads keeps them as a bitmap; fewer, as a run of ordinals in one shared array. */
const DENSE_FROM = 16

/** (word, ordinal) pairs held before they are sorted into the words' lists (8 bytes each, and 4 more to sort). */
const PENDING_HELD = 1 << 19

/**
 * Leads changed since the words were last built that are tested one by one (their documents held as they are now)
 * before the words are built again from the old ones and these: at least so many, or a 32nd of the leads.
 */
const CHANGES_HELD = 2048

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

/** Calls `each` with every word of `document` (maximal runs of word units), as often as it occurs. */
function eachWord(document: string, each: (word: string) => void): void {
  let start = -1
  for (let i = 0; i < document.length; i++) {
    if (isWordUnit(document.charCodeAt(i))) {
      if (start < 0) start = i
    } else if (start >= 0) {
      each(document.slice(start, i))
      start = -1
    }
  }
  if (start >= 0) each(document.slice(start))
}

/** Collects documents, or the words of an index being built again, into a WordIndex. */
export class WordIndexBuilder {
  private readonly numbers = new Map<string, number>()
  private readonly words: string[] = []
  /** Each word's leads while they are few (undefined: none yet, or a bitmap in `dense`). */
  private readonly lists: (number[] | undefined)[] = []
  private readonly dense = new Map<number, Bitmap>()
  /** The last lead noted for each word, by its number: a lead is listed once per word. */
  private last = new Int32Array(1024).fill(-1)
  private readonly pendingWords: Uint32Array
  private readonly pendingOrdinals: Uint32Array
  private readonly sorted: Uint32Array
  private pendingCount = 0
  private leads = 0
  private over = false

  constructor(
    private readonly bound = WORDS_KEPT,
    held = PENDING_HELD,
  ) {
    const room = Math.max(1, held)
    this.pendingWords = new Uint32Array(room)
    this.pendingOrdinals = new Uint32Array(room)
    this.sorted = new Uint32Array(room)
  }

  /** Adds a lead's document. */
  add(ordinal: number, document: string): void {
    if (this.over) return
    this.leads += 1
    eachWord(document, (word) => this.note(this.numberOf(word), ordinal))
  }

  /** Adds a word with leads that hold it (a word of an index being built again, given once). */
  addLeads(word: string, leads: Bitmap | Uint32Array): void {
    if (this.over) return
    const n = this.numberOf(word)
    if (n < 0) return
    if (leads instanceof Uint32Array) {
      for (const ordinal of leads) this.note(n, ordinal)
    } else if (leads.size > 0) {
      this.dense.set(n, leads)
    }
  }

  /** The index, or one that answers nothing (`leadsHolding` undefined) when the words ran past the bound. */
  build(changesHeld = CHANGES_HELD): WordIndex {
    if (this.over) return new WordIndex(undefined, this.bound, changesHeld)
    this.flush()
    const count = this.words.length
    const starts = new Uint32Array(count + 1)
    const offsets = new Uint32Array(count + 1)
    let characters = 0
    let listed = 0
    for (let n = 0; n < count; n++) {
      starts[n] = characters
      characters += (this.words[n] ?? '').length + 1
      offsets[n] = listed
      listed += this.lists[n]?.length ?? 0
    }
    starts[count] = characters
    offsets[count] = listed
    const postings = new Uint32Array(listed)
    for (let n = 0; n < count; n++) {
      const list = this.lists[n]
      if (list !== undefined) postings.set(list, offsets[n] ?? 0)
    }
    for (const bits of this.dense.values()) {
      bits.runOptimize()
      bits.shrinkToFit()
    }
    const vocabulary = this.words.join(SEPARATOR) + SEPARATOR
    const words: WordTable = { vocabulary, starts, offsets, postings, dense: this.dense, count, leads: this.leads }
    return new WordIndex(words, this.bound, changesHeld)
  }

  /** The word's number, a new one if it is new; -1 past the bound. */
  private numberOf(word: string): number {
    if (this.over) return -1
    const known = this.numbers.get(word)
    if (known !== undefined) return known
    if (this.words.length >= this.bound) {
      this.over = true
      this.numbers.clear()
      this.words.length = 0
      this.lists.length = 0
      this.dense.clear()
      return -1
    }
    const n = this.words.length
    this.numbers.set(word, n)
    this.words.push(word)
    this.lists.push(undefined)
    if (n >= this.last.length) {
      const last = new Int32Array(this.last.length * 2).fill(-1)
      last.set(this.last)
      this.last = last
    }
    return n
  }

  private note(n: number, ordinal: number): void {
    if (n < 0 || this.last[n] === ordinal) return
    this.last[n] = ordinal
    if (this.pendingCount === this.pendingWords.length) this.flush()
    this.pendingWords[this.pendingCount] = n
    this.pendingOrdinals[this.pendingCount] = ordinal
    this.pendingCount += 1
  }

  /** Puts the pending pairs in their words' lists (or bitmaps), counted out by word first: one call a word. */
  private flush(): void {
    const count = this.pendingCount
    if (count === 0) return
    const words = this.words.length
    const starts = new Uint32Array(words + 1)
    for (let i = 0; i < count; i++) {
      const at = (this.pendingWords[i] ?? 0) + 1
      starts[at] = (starts[at] ?? 0) + 1
    }
    for (let n = 1; n <= words; n++) starts[n] = (starts[n] ?? 0) + (starts[n - 1] ?? 0)
    const next = starts.slice(0, words)
    for (let i = 0; i < count; i++) {
      const n = this.pendingWords[i] ?? 0
      const at = next[n] ?? 0
      this.sorted[at] = this.pendingOrdinals[i] ?? 0
      next[n] = at + 1
    }
    for (let n = 0; n < words; n++) {
      const from = starts[n] ?? 0
      const to = starts[n + 1] ?? 0
      if (to === from) continue
      const run = this.sorted.subarray(from, to)
      const bits = this.dense.get(n)
      if (bits !== undefined) {
        bits.addMany(run)
        continue
      }
      const list = this.lists[n] ?? []
      for (const ordinal of run) list.push(ordinal)
      if (list.length >= DENSE_FROM) {
        this.dense.set(n, bitmap(list))
        this.lists[n] = undefined
      } else this.lists[n] = list
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
    private readonly bound = WORDS_KEPT,
    private readonly changesHeld = CHANGES_HELD,
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
    if (words === undefined || this.changed.size < Math.max(this.changesHeld, words.leads / 32)) return
    const builder = new WordIndexBuilder(this.bound)
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
