import { randomInt } from 'node:crypto'

/** Ordinals a table starts with room for; it doubles as leads come. */
const FIRST_ROOM = 1024
/** The bytes of ids the buffer starts with: 1,024 lead ids of 48 characters. */
const FIRST_BYTES = 48 * 1024
/** A slot of the open-addressing table that holds no ordinal. */
const EMPTY = 0xffffffff
/** The table's most filled share, tombstones included, before it is made anew (linear probing stays short). */
const MOST_FILLED = 0.7

/**
 * The lead ids of an organization's index (lead-index.ts), by ordinal, and each id's ordinal.
 *
 * The ids' characters are packed one byte each into one growing buffer, with each ordinal's start beside it, and an
 * open-addressing table of ordinals finds an id's. A string array and a `Map` of the same ids took about 104 bytes a
 * lead at a million leads (two objects a lead for the collector to mark on every full collection); this takes 63 to
 * 69 (48 for the characters, 4 for the start, 4 for the hash, 1 for whether it is gone, 6 to 12 for the table), none
 * of it in the collector's heap. Written here because no library of the field maps strings to integers without
 * holding each as a string (decision 0083).
 *
 * Lead ids are ASCII (`lead_` and 43 letters and digits). An id with a code unit past 0xff, which no byte can hold,
 * is kept in a map of its own, so that any string is answered as a `Map` would answer it.
 *
 * A deleted lead's ordinal keeps its place (an index gives each ordinal out once) and its characters; the table keeps
 * it as a tombstone until it next grows, when only live ids are placed again. The index is built again when fewer than
 * half its ordinals are live, which bounds what deleted leads hold.
 */
export class LeadIds {
  private bytes = Buffer.allocUnsafeSlow(FIRST_BYTES)
  private used = 0
  /** Ordinal → where its characters start; `starts[ordinal + 1]` is where they end. */
  private starts = new Uint32Array(FIRST_ROOM + 1)
  private count = 0
  /** 1 for an ordinal whose lead is gone. */
  private gone = new Uint8Array(FIRST_ROOM)
  /** Each ordinal's hash: a probe passes other ids on it alone, and the table grows without hashing again. */
  private hashes = new Uint32Array(FIRST_ROOM)
  private slots = new Uint32Array(FIRST_ROOM * 2).fill(EMPTY)
  /** Slots that hold an ordinal, live or gone. */
  private filled = 0
  /** Ids with a code unit past 0xff, both ways. */
  private readonly wideOrdinals = new Map<string, number>()
  private readonly wideIds = new Map<number, string>()
  /** Each table's own: ids are drawn at random, but the import from Close brings another system's. */
  private readonly seed = (0x811c9dc5 ^ randomInt(2 ** 31)) >>> 0

  /** Ordinals given out, deleted leads' included. */
  get extent(): number {
    return this.count
  }

  /** The live lead's ordinal, or undefined. */
  get(id: string): number | undefined {
    const hash = this.hash(id)
    if (hash < 0) return this.wideOrdinal(id)
    const found = this.slots[this.probe(id, hash)] ?? EMPTY
    return found === EMPTY ? undefined : found
  }

  /** The live lead's ordinal, or the next one given to `id`: one hash and one probe either way. */
  getOrAdd(id: string): number {
    const hash = this.hash(id)
    if (hash < 0) return this.wideOrdinal(id) ?? this.append(id, hash, -1)
    const slot = this.probe(id, hash)
    const found = this.slots[slot] ?? EMPTY
    return found === EMPTY ? this.append(id, hash, slot) : found
  }

  /** The slot that holds `id`'s live ordinal, or the empty slot where its probe ends. */
  private probe(id: string, hash: number): number {
    const mask = this.slots.length - 1
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const ordinal = this.slots[slot] ?? EMPTY
      if (ordinal === EMPTY) return slot
      if (this.hashes[ordinal] === hash && this.gone[ordinal] === 0 && this.holds(ordinal, id)) return slot
    }
  }

  private wideOrdinal(id: string): number | undefined {
    const ordinal = this.wideOrdinals.get(id)
    return ordinal === undefined || this.gone[ordinal] === 1 ? undefined : ordinal
  }

  /** Packs `id` as the next ordinal, in `slot` (the empty one its probe ended at; -1 for a wide id). */
  private append(id: string, hash: number, slot: number): number {
    const ordinal = this.count
    if (this.room(ordinal + 1, hash < 0 ? 0 : id.length) && hash >= 0) slot = this.probe(id, hash)
    if (hash < 0) {
      this.wideOrdinals.set(id, ordinal)
      this.wideIds.set(ordinal, id)
    } else {
      for (let i = 0; i < id.length; i++) this.bytes[this.used + i] = id.charCodeAt(i)
      this.used += id.length
      this.slots[slot] = ordinal
      this.filled += 1
      this.hashes[ordinal] = hash
    }
    this.count = ordinal + 1
    this.starts[this.count] = this.used
    this.gone[ordinal] = 0
    return ordinal
  }

  /** The lead of `ordinal` is gone: its id is no longer found, and `idOf` answers ''. */
  delete(ordinal: number): void {
    if (ordinal >= 0 && ordinal < this.count) this.gone[ordinal] = 1
  }

  /** Whether `ordinal` was given out and its lead is not gone. */
  has(ordinal: number): boolean {
    return ordinal >= 0 && ordinal < this.count && this.gone[ordinal] === 0
  }

  /** The lead id of `ordinal`, or '' when its lead is gone or it was never given out. */
  idOf(ordinal: number): string {
    if (!this.has(ordinal)) return ''
    const wide = this.wideIds.size > 0 ? this.wideIds.get(ordinal) : undefined
    if (wide !== undefined) return wide
    return this.bytes.toString('latin1', this.starts[ordinal] ?? 0, this.starts[ordinal + 1] ?? 0)
  }

  /** The two ordinals' ids compared by code unit (as `<` compares strings; a gone lead's as ''). */
  compare(a: number, b: number): number {
    if (this.wideIds.size > 0 && (this.wideIds.has(a) || this.wideIds.has(b))) {
      const x = this.idOf(a)
      const y = this.idOf(b)
      return x === y ? 0 : x < y ? -1 : 1
    }
    const starts = this.starts
    let i = starts[a] ?? 0
    let j = starts[b] ?? 0
    // A gone lead's id (or an ordinal never given out) compares as ''.
    const aLength = this.has(a) ? (starts[a + 1] ?? 0) - i : 0
    const bLength = this.has(b) ? (starts[b + 1] ?? 0) - j : 0
    const bytes = this.bytes
    for (const end = i + Math.min(aLength, bLength); i < end; i++, j++) {
      const x = bytes[i] ?? 0
      const y = bytes[j] ?? 0
      if (x !== y) return x < y ? -1 : 1
    }
    return aLength === bLength ? 0 : aLength < bLength ? -1 : 1
  }

  /** `ordinals` in the order of their ids (compare's), sorted in place unless they are in it already. */
  sortedById(ordinals: number[]): number[] {
    let sorted = true
    for (let i = 1; i < ordinals.length && sorted; i++)
      sorted = this.compare(ordinals[i - 1] ?? 0, ordinals[i] ?? 0) <= 0
    if (sorted) return ordinals
    // Sorted as strings, each made once: a comparison of two packed ids costs five of two strings.
    const keyed = ordinals.map((ordinal) => ({ ordinal, id: this.idOf(ordinal) }))
    keyed.sort((x, y) => (x.id === y.id ? 0 : x.id < y.id ? -1 : 1))
    for (let i = 0; i < keyed.length; i++) ordinals[i] = keyed[i]?.ordinal ?? 0
    return ordinals
  }

  /** FNV-1a of the id's code units from this table's seed, or -1 for an id with a code unit past 0xff. */
  private hash(id: string): number {
    let hash = this.seed
    for (let i = 0; i < id.length; i++) {
      const unit = id.charCodeAt(i)
      if (unit > 0xff) return -1
      hash = Math.imul(hash ^ unit, 0x01000193)
    }
    return mixed(hash)
  }

  private holds(ordinal: number, id: string): boolean {
    const start = this.starts[ordinal] ?? 0
    if ((this.starts[ordinal + 1] ?? 0) - start !== id.length) return false
    for (let i = 0; i < id.length; i++) if (this.bytes[start + i] !== id.charCodeAt(i)) return false
    return true
  }

  private place(ordinal: number, hash: number): void {
    const mask = this.slots.length - 1
    let slot = hash & mask
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask
    this.slots[slot] = ordinal
    this.filled += 1
  }

  /** Room for `ordinals` ordinals, `more` bytes and one more slot; true when the table was made anew. */
  private room(ordinals: number, more: number): boolean {
    if (ordinals + 1 > this.starts.length) {
      const size = Math.max(ordinals + 1, this.starts.length * 2)
      const starts = new Uint32Array(size)
      starts.set(this.starts)
      this.starts = starts
      const gone = new Uint8Array(size)
      gone.set(this.gone)
      this.gone = gone
      const hashes = new Uint32Array(size)
      hashes.set(this.hashes)
      this.hashes = hashes
    }
    if (this.used + more > this.bytes.length) {
      // Not filled: its pages past what is copied are not resident until ids are packed there.
      const bytes = Buffer.allocUnsafeSlow(Math.max(this.used + more, this.bytes.length * 2))
      this.bytes.copy(bytes, 0, 0, this.used)
      this.bytes = bytes
    }
    if (this.filled + 1 <= this.slots.length * MOST_FILLED) return false
    this.rehash()
    return true
  }

  /** Places the live ids again, tombstones dropped, in a table they fill at most half of. */
  private rehash(): void {
    let live = 0
    for (let ordinal = 0; ordinal < this.count; ordinal++) if (this.gone[ordinal] === 0) live++
    let size = FIRST_ROOM * 2
    while (size < (live + 1) * 2) size *= 2
    this.slots = new Uint32Array(size).fill(EMPTY)
    this.filled = 0
    for (let ordinal = 0; ordinal < this.count; ordinal++) {
      if (this.gone[ordinal] === 1 || this.wideIds.has(ordinal)) continue
      this.place(ordinal, this.hashes[ordinal] ?? 0)
    }
  }
}

/** A hash's final mix: the table's slot is its low bits. */
function mixed(hash: number): number {
  let h = hash ^ (hash >>> 15)
  h = Math.imul(h, 0x2c1b3c6d)
  return (h ^ (h >>> 12)) & 0x7fffffff
}
