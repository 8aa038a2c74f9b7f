import { setImmediate as nextTurn } from 'node:timers/promises'
import { sql, type RawBuilder } from 'kysely'
import { LRUCache } from 'lru-cache'
import { bitmap, type Bitmap } from '../../platform/data/bitmaps.js'
import type { Db, Dialect } from '../../platform/data/database.js'
import { folded } from '../../platform/data/sql-conditions.js'
import { leadChangePosition, leadChangesSince, type ChangePosition } from './lead-changes.js'
import type { SearchColumn } from './lead-search-index.js'
import { isShortTerm, SHORT_TERMS_KEPT, ShortTermIndex } from './lead-short-terms.js'
import { isWordForm, isWordUnit, WordIndexBuilder, type WordIndex } from './lead-words.js'
import { byCodePoint, TextKeys } from './lead-text-keys.js'
import { LeadIds } from './lead-ids.js'
import { LAST_ACTIVITY_TYPE_LIST } from './lead-summary-repo.js'
import { foldCase } from '../../platform/text/text.js'

// An organization's leads in memory, for searches (decision 0061): each lead has an ordinal, and what searches test
// most is kept by ordinal — the lead's status as one compressed bitmap (roaring) a status, whether its name, URL and
// description are filled as bitmaps, its dates as numbers (timeKey), its counts of contacts, emails, phones, addresses, open tasks
// and opportunities, and (once a search asks) a number field's values. It is built on first use, and before each
// search it catches up exactly with the feed of lead changes (lead-changes.ts): a write committed by any process
// is in the next search. Ordinals of deleted leads are not used again; the index is built anew when they are half.

/** The counts a lead's rows make, as lead-search.ts's COUNTED counts them (activities, which move no revision, aside). */
export const INDEXED_COUNTS = ['contacts', 'opportunities', 'tasks', 'addresses', 'emails', 'phones'] as const
export type IndexedCount = (typeof INDEXED_COUNTS)[number]

const COUNT_SOURCES: Record<IndexedCount, { table: string; open?: true }> = {
  contacts: { table: 'contact' },
  opportunities: { table: 'opportunity' },
  tasks: { table: 'task', open: true },
  addresses: { table: 'lead_address' },
  emails: { table: 'contact_email' },
  phones: { table: 'contact_phone' },
}

/** A date sort, whose order a page can walk. */
export interface DateSort {
  field: 'date_created' | 'date_updated'
  direction: 'asc' | 'desc'
}

/**
 * A sort the index keeps the keys of: a date; the status (by its label, folded, as SQL orders the statuses); a count;
 * a number field's first value. Leads without a status's rank or a number come last both ways, as SQL's `nulls
 * last`; then (as every lead search ends) by id, descending.
 */
export type IndexSort =
  | DateSort
  | { field: 'status'; direction: 'asc' | 'desc' }
  | { field: 'count'; which: IndexedCount; direction: 'asc' | 'desc' }
  | { field: 'number'; fieldId: string; direction: 'asc' | 'desc' }
  | { field: 'text'; which: TextSort; direction: 'asc' | 'desc' }
  | { field: 'opportunity_value'; direction: 'asc' | 'desc' }
  | { field: 'last_activity'; direction: 'asc' | 'desc' }
  /** The first open task with a date, when it stands in the caller's zone (`offsetHours`, as X-TZ-Offset). */
  | { field: 'next_task'; direction: 'asc' | 'desc'; offsetHours: number }

/**
 * The texts a list sorts by that the index keeps once a sort asks (the leads list's columns): the lead's name, the
 * first contact's name, email and phone, and the lead's URL, each folded as lead-search.ts's sortTerms folds it (and
 * names that fold the same then by the name itself).
 */
export const TEXT_SORTS = ['name', 'contact_name', 'email_address', 'phone', 'url'] as const
export type TextSort = (typeof TEXT_SORTS)[number]

export function isDateSort(sort: IndexSort): sort is DateSort {
  return sort.field === 'date_created' || sort.field === 'date_updated'
}

/** A sort whose whole order an organization's index keeps once a page has walked it: a date's or the status's. */
export type KeptSort = DateSort | { field: 'status'; direction: 'asc' | 'desc' }

/** Whether the index keeps `sort`'s whole order (sortedBy): by status always, by a date when every time is regular. */
export function isKeptSort(sort: IndexSort, regularTimes: boolean): sort is KeptSort {
  return sort.field === 'status' || (isDateSort(sort) && regularTimes)
}

/**
 * A stored time as a number that sorts as its text does: the microseconds since 1970 of the wire form
 * `YYYY-MM-DDTHH:MM:SS.ffffff+00:00` (formatTimestamp's) from 1685 to 2255; NaN for any other text.
 */
export function timeKey(text: string): number {
  if (text.length !== 32 || text.charCodeAt(19) !== 46 || !text.endsWith('+00:00')) return Number.NaN
  let micros = 0
  for (let i = 23; i < 26; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return Number.NaN
    micros = micros * 10 + digit
  }
  const key = Date.parse(`${text.slice(0, 23)}Z`) * 1000 + micros
  // Past 2^53 µs either side of 1970 (the years 1685 and 2255) a double is no longer exact: kept as text instead.
  return Number.isSafeInteger(key) ? key : Number.NaN
}

/** A day of a task's dates (YYYY-MM-DD) as the milliseconds of its midnight, UTC; NaN for another form or far years. */
export function dayKey(text: string): number {
  if (text.length !== 10 || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return Number.NaN
  const millis = Date.parse(`${text}T00:00:00Z`)
  // A date Date.parse rolled over (02-30) is not the day SQL reads; past 2255 a microsecond key is not exact.
  if (Number.isNaN(millis) || new Date(millis).toISOString().slice(0, 10) !== text) return Number.NaN
  return Math.abs(millis) < 8.9e15 / 1000 ? millis : Number.NaN
}

/** The wire form a timeKey number was read from (its inverse, for keys of the wire form's four-digit years). */
export function timeText(key: number): string {
  const micros = ((key % 1000) + 1000) % 1000
  const millis = (key - micros) / 1000
  return `${new Date(millis).toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}+00:00`
}

/** Lead ids a statement may list (under both databases' parameter limits). */
const IDS_PER_QUERY = 500
/**
 * Leads read at once when the whole organization is (in order of id, with their counts by a range of ids): the rows
 * of one read are garbage soon after, so a build's passing memory stays small however many leads there are.
 */
const LEADS_PER_READ = 5_000
/**
 * Leads whose search documents are read at once for the short-term index: the documents are long (all of a lead's
 * text), and at 100,000 leads reading them 5,000 at a time raised the api's peak by 13 MB during the build, 500 by 8.
 */
const DOCUMENTS_PER_READ = 500
/** Changed leads above which (and above a quarter of the index) the index is built anew rather than caught up. */
const REBUILD_AFTER = 5_000

/** What the index keeps of a lead row: its texts only as whether they are filled (1 or 0, or Postgres's booleans). */
interface LeadFacts {
  id: string
  status_id: string
  named: number | boolean
  with_url: number | boolean
  described: number | boolean
  date_created: string
  date_updated: string
  search_rowid: number | null
}

/**
 * Each lead's newest call, email, note or SMS (lead-summary-repo.ts's lastActivityOfLead) as timeKey's number (NaN:
 * none), and the texts of those of another form than the wire form (NaN there too).
 */
interface LastActivities {
  times: Float64Array
  irregular: Map<number, string>
}

/**
 * Each lead's first open task with a date, kept apart by kind, since where an all-day task stands against a timed
 * one depends on the caller's zone: the first timed task's time (timeKey), and the first all-day task's day (the
 * milliseconds of its midnight, UTC); NaN: none. `irregular` holds the leads with a task date of another form,
 * which the index cannot order (a sort by next task then goes to SQL).
 */
interface NextTasks {
  timed: Float64Array
  day: Float64Array
  irregular: Set<number>
}

/** Which leads a read is of: those listed, or a range of ids (both ends in). */
type LeadScope = { ids: readonly string[] } | { from: string; to: string }

/** A number field's values by ordinal: the first in `first` (NaN: none), any further ones in `more`. */
interface NumberColumn {
  first: Float64Array
  more: Map<number, number[]>
}

/**
 * Each lead's sum of its active opportunities' values (NaN: none), and the active statuses it was added up over: a
 * status that changes type moves sums without moving any lead, so the sums are read anew when the statuses differ.
 */
interface OpportunityValues {
  sums: Float64Array
  active: string
}

function grown(array: Float64Array, size: number): Float64Array {
  if (size <= array.length) return array
  const next = new Float64Array(Math.max(size, array.length * 2)).fill(Number.NaN)
  next.set(array)
  return next
}

/**
 * A kind of count by ordinal: 16 bits a lead until one lead has more than 65,535 rows of that kind, when that kind's
 * array is widened to 32 bits for good (12 bytes a lead less for the six kinds: 12 MB at a million leads).
 */
type CountArray = Uint16Array | Uint32Array

/** `array`, or one of its kind with room for `size` and its values copied. */
function grownCounts<T extends CountArray>(array: T, size: number): T {
  if (size <= array.length) return array
  const length = Math.max(size, array.length * 2)
  const next = (array instanceof Uint16Array ? new Uint16Array(length) : new Uint32Array(length)) as T
  next.set(array)
  return next
}

/** SQLite: an organization's search rows take rowids from a multiple of 2^32 on (lead-search-index.ts). */
const ROWID_RANGE = 2 ** 32
/** Rowid offsets past this (16 million leads ever made in one organization) are kept in a map instead. */
const MAX_ROWID_SLOTS = 2 ** 24

/**
 * SQLite: a lead's search rowid → its ordinal. The rowids of one organization are its range's first onwards, one per
 * lead ever made (an update keeps the row), so each is a slot in an array by its offset, holding its ordinal plus one
 * (0 for none): a trigram lookup's thousands of matches are then array reads, where a map keyed by these numbers (past
 * 2^31, so not small integers to V8) cost 3 ms a search of 8,000 matches.
 */
export class RowidOrdinals {
  private base: number | undefined
  private slots: Uint32Array = new Uint32Array(0)
  /** Rowids outside the first one's range or past MAX_ROWID_SLOTS: none that this app writes. */
  private readonly others = new Map<number, number>()

  /** The rowid's slot, or undefined when it has none; the first rowid set fixes the range. */
  private slot(rowid: number, setting = false): number | undefined {
    if (setting) this.base ??= Math.floor(rowid / ROWID_RANGE) * ROWID_RANGE
    if (this.base === undefined) return undefined
    const offset = rowid - this.base
    return offset >= 0 && offset < MAX_ROWID_SLOTS && Number.isInteger(offset) ? offset : undefined
  }

  get(rowid: number): number | undefined {
    const slot = this.slot(rowid)
    if (slot === undefined) return this.others.get(rowid)
    const held = this.slots[slot] ?? 0
    return held === 0 ? undefined : held - 1
  }

  set(rowid: number, ordinal: number): void {
    const slot = this.slot(rowid, true)
    if (slot === undefined) {
      this.others.set(rowid, ordinal)
      return
    }
    this.slots = grownCounts(this.slots, slot + 1)
    this.slots[slot] = ordinal + 1
  }

  delete(rowid: number): void {
    const slot = this.slot(rowid)
    if (slot === undefined) this.others.delete(rowid)
    else if (slot < this.slots.length) this.slots[slot] = 0
  }
}

/**
 * Text terms of the leads' search rows (lead-search.ts's DocumentGroup, its statuses aside): each holds when its
 * column contains one of its folded forms; together they hold when all do (`and`) or any does (`or`).
 */
export interface TextTerms {
  op: 'and' | 'or'
  terms: readonly { column: SearchColumn; forms: readonly string[] }[]
}

/** The one key of the same terms. */
export function textKey(text: TextTerms): string {
  return JSON.stringify([text.op, text.terms.map((t) => [t.column, t.forms])])
}

/** Whether a lead's search row (its columns, as stored) holds the terms: the substring test SQL makes of them. */
function holds(row: Partial<Record<SearchColumn, string | null>>, text: TextTerms): boolean {
  const one = (t: TextTerms['terms'][number]) => {
    const value = row[t.column] ?? ''
    return t.forms.some((form) => value.includes(form))
  }
  return text.op === 'and' ? text.terms.every(one) : text.terms.some(one)
}

/**
 * Text terms whose matches an organization's index keeps, most recently searched first (a page after the first,
 * a Smart View opened again, the same words typed again are then answered from memory). Each is a bitmap of at most
 * an eighth of a byte a lead.
 */
const TEXT_TERMS_KEPT = 64

/**
 * The pairs of characters the short-term index keeps: those with punctuation. A pair of letters and digits is found
 * in the words (decision 0081), and a pair with a space or a line break is never a term's (terms are split there);
 * either is left to the database when asked for.
 */
function keepsShortPair(first: number, second: number): boolean {
  return first > 0x20 && second > 0x20 && !(isWordUnit(first) && isWordUnit(second))
}

/** What takes the leads' search documents as they are read: the short-term index, the words (or their builder). */
export interface DocumentSink {
  add(ordinal: number, document: string): void
}

/** Words being read: the documents the catch-ups give meanwhile are held for them. */
interface WordsBuilding extends DocumentSink {
  forget(ordinal: number): void
  done: Promise<void>
}

interface TextMatches {
  text: TextTerms
  bits: Bitmap
}

/** The search rows the database found for text terms: search rowids on SQLite, lead ids on Postgres. */
export type FoundText = { kind: 'rowids'; values: number[] } | { kind: 'ids'; values: string[] }

/** The live leads among `keys` (search rowids or lead ids), through a map of them to ordinals. */
export function liveOrdinals<K>(
  keys: readonly K[],
  ordinals: { get(key: K): number | undefined },
  index: OrganizationLeadIndex,
): Bitmap {
  const found = index.scratchOrdinals(keys.length)
  let n = 0
  for (const key of keys) {
    const ordinal = ordinals.get(key)
    if (ordinal !== undefined) found[n++] = ordinal
  }
  return bitmap(found.subarray(0, n)).andInPlace(index.live)
}

export class OrganizationLeadIndex {
  position: ChangePosition | undefined
  /** Ordinal → lead id ('' once deleted), and a live lead's id → its ordinal. */
  readonly ids = new LeadIds()
  /** SQLite: a lead's search row (lead.search_rowid) → its ordinal, for the trigram index's matches. */
  readonly bySearchRowid = new RowidOrdinals()
  readonly live = bitmap()
  readonly statuses = new Map<string, Bitmap>()
  readonly named = bitmap()
  readonly withUrl = bitmap()
  readonly described = bitmap()
  readonly counts = new Map<IndexedCount, CountArray>(INDEXED_COUNTS.map((c) => [c, new Uint16Array(1024)]))
  readonly numbers = new Map<string, NumberColumn>()
  /** A sort's texts by ordinal (undefined: none), loaded the first time a search sorts by them. */
  private readonly texts = new Map<TextSort, TextKeys>()
  /** The names themselves, by ordinal, once a sort by name asks: they order the names that fold the same. */
  private readonly names = new TextKeys()
  private opportunityValues: OpportunityValues | undefined
  private lastActivities: LastActivities | undefined
  private nextTasks: NextTasks | undefined
  /** The live leads' ordinals in id order, and minus each ordinal's rank in it (idKeys). */
  private idOrder: Uint32Array | undefined
  private idKeysOf: Int32Array | undefined
  private idsChanged = true
  /** Ordinals given out since the id order was last made. */
  private freshIds: number[] = []
  /**
   * The dates as timeKey's numbers, by ordinal; `irregular` holds the texts of the live leads with a date of another
   * form (NaN here), the only dates kept as text.
   */
  private createdAt: Float64Array = new Float64Array(1024)
  private updatedAt: Float64Array = new Float64Array(1024)
  private readonly irregular = new Map<number, { date_created: string; date_updated: string }>()
  /**
   * The live leads' ordinals in the order of a date sort or the status sort, made when a page first walks it, and
   * the ordinals loaded since it was last brought up to date (merged in when a page next walks it; past a bound, it
   * is made anew). The status's order holds for the statuses' ranks it was made with: new ranks drop it.
   */
  private readonly orders = new Map<string, { sort: KeptSort; order: Uint32Array }>()
  /** The organization's statuses' ranks in the order SQL sorts their labels, read for each search that sorts by them. */
  private statusRanks = new Map<string, number>()
  private readonly touched = new Set<number>()
  /**
   * Each lead's status as its number in `statusIds` plus one (0: none): a typed array, where an array of the status
   * ids took a pointer a lead.
   */
  private statusOf: Uint32Array = new Uint32Array(1024)
  private readonly statusNumbers = new Map<string, number>()
  private readonly statusIds: string[] = []
  /**
   * SQLite: each ordinal's search rowid (NaN: none). A typed array: the rowids are past 2^32 (ROWID_RANGE), where
   * an array would hold each as a boxed number of its own.
   */
  private rowidOf: Float64Array = new Float64Array(1024).fill(Number.NaN)
  /**
   * The matches of the text terms searched lately, by textKey: found by the database the first time, then kept up
   * to date as the leads' other facts are (every write of a search row moves its lead's revision, in one
   * transaction), each changed lead's search row tested again here.
   */
  private readonly textMatches = new LRUCache<string, TextMatches>({ max: TEXT_TERMS_KEPT })
  /** The one- and two-character strings of the search rows, read the first time a search has such a term. */
  private shortTerms: ShortTermIndex | undefined
  /** The words of the search rows, read the first time a search has a term of letters and digits (0081). */
  private words: WordIndex | undefined
  /** The words being read, and the documents the catch-ups read meanwhile. */
  private wordsBuilding: WordsBuilding | undefined
  /**
   * Arrays a search's steps fill and read again before they return (a scan, a page's matches, a sort's keys), kept
   * from one search to the next: made anew each time, they were a megabyte of garbage a search at 100,000 leads,
   * outside the heap, where the collector comes for it late (decision 0066).
   */
  private ordinalScratch = new Uint32Array(0)
  private pageScratch = new Uint32Array(0)
  private keyScratch = new Float64Array(0)
  /** A sort's values by status rank or next task: the same for every sort of one search, so shared by them. */
  private statusScratch = new Float64Array(0)
  private nextTaskScratch = new Float64Array(0)

  constructor(
    readonly organizationId: string,
    readonly dialect: Dialect,
    private readonly rebuildAfter = REBUILD_AFTER,
    private readonly leadsPerRead = LEADS_PER_READ,
  ) {}

  get size(): number {
    return this.live.size
  }

  /** Ordinals given out, deleted leads' included. */
  get extent(): number {
    return this.ids.extent
  }

  /**
   * An array of at least `size` ordinals to fill and read before the caller returns (or awaits): the next call
   * hands out the same array.
   */
  scratchOrdinals(size: number): Uint32Array {
    if (this.ordinalScratch.length < size) this.ordinalScratch = new Uint32Array(Math.max(size, this.extent))
    return this.ordinalScratch
  }

  /** The ordinals of `bits` in order, in an array that the next call hands out again (read it before returning). */
  ordinalsOf(bits: Bitmap): Uint32Array {
    const size = bits.size
    if (this.pageScratch.length < size) this.pageScratch = new Uint32Array(Math.max(size, this.extent))
    return bits.toUint32Array(this.pageScratch)
  }

  /** The ordinals below the extent for which `test` holds (live or not), as a bitmap. */
  ordinalsWhere(test: (ordinal: number) => boolean): Bitmap {
    const found = this.scratchOrdinals(this.extent)
    let n = 0
    for (let ordinal = 0; ordinal < this.extent; ordinal++) if (test(ordinal)) found[n++] = ordinal
    return bitmap(found.subarray(0, n))
  }

  count(which: IndexedCount): CountArray {
    const array = this.counts.get(which)
    if (array === undefined) throw new Error(`${which} is not counted`)
    return array
  }

  private setCount(which: IndexedCount, ordinal: number, n: number): void {
    let array = this.count(which)
    if (n > 0xffff && array instanceof Uint16Array) this.counts.set(which, (array = Uint32Array.from(array)))
    array[ordinal] = n
  }

  /** The whole organization, read after the position it then stands at. */
  async build(db: Db): Promise<void> {
    this.position = await leadChangePosition(db, this.dialect, this.organizationId)
    // Reads that are not one snapshot are exact all the same: whatever changed after the position is read again
    // (or removed) by the next catch-up.
    await this.inIdOrder(
      (after) => this.readLeads(db, sql`and id > ${after} order by id limit ${this.leadsPerRead}`),
      (rows, range) => this.apply(db, rows, range),
    )
  }

  /**
   * Walks the organization's leads in order of id, a read's worth at a time: `read` gives the rows after an id (at
   * most leadsPerRead, in order), `use` takes each batch with the range of ids it spans. Between two reads the
   * event loop takes a turn: SQLite's driver answers at once, so without one a walk of a million leads (the words,
   * 10 s) held every other request of the process until it ended.
   */
  private async inIdOrder<Row extends { id: string }>(
    read: (after: string) => Promise<Row[]>,
    use: (rows: Row[], range: { from: string; to: string }) => Promise<void>,
    perRead = this.leadsPerRead,
  ): Promise<void> {
    for (let after = ''; ;) {
      const rows = await read(after)
      const first = rows[0]
      const last = rows.at(-1)
      if (first === undefined || last === undefined) return
      await use(rows, { from: first.id, to: last.id })
      if (rows.length < perRead) return
      after = last.id
      await nextTurn()
    }
  }

  /** Applies the changes since the last position; answers false when the index should be built anew. */
  async catchUp(db: Db): Promise<boolean> {
    if (this.position === undefined) return false
    const changes = await leadChangesSince(db, this.organizationId, this.position)
    // Deletions since were pruned: which leads went cannot be told.
    if (!changes.complete) return false
    this.position = changes.position
    for (const id of changes.gone) this.remove(id)
    const changed = [...new Set(changes.changed)]
    // Many leads changed (an import, a bulk edit): one read of the whole organization is quicker than theirs by 500.
    if (changed.length > Math.max(this.rebuildAfter, this.live.size / 4)) return false
    for (let i = 0; i < changed.length; i += IDS_PER_QUERY) {
      const ids = changed.slice(i, i + IDS_PER_QUERY)
      await this.apply(db, await this.readLeads(db, sql`and id in (${sql.join(ids)})`), { ids })
    }
    const last = this.lastActivities
    if (last !== undefined) {
      const active = [...new Set(changes.active)]
      // As many as a read of them all: read again when next asked for.
      if (active.length > Math.max(this.rebuildAfter, this.live.size / 4)) this.lastActivities = undefined
      else {
        for (let i = 0; i < active.length; i += IDS_PER_QUERY) {
          const ids = active.slice(i, i + IDS_PER_QUERY)
          for (const id of ids) {
            const ordinal = this.ids.get(id)
            if (ordinal !== undefined) forget(last, ordinal)
          }
          await this.loadLastActivities(db, last, { ids })
        }
      }
    }
    this.boundTouched()
    return this.extent < 1024 || this.live.size * 2 >= this.extent
  }

  /**
   * The live leads whose search rows hold `text`: `find` (the database's lookup of terms: search rowids on SQLite,
   * lead ids on Postgres) the first time, or when it has been forgotten; kept up to date after. Terms of one or two
   * characters, which the database would test row by row, are answered by the short-term index.
   */
  async textMatchesOf(db: Db, text: TextTerms, find: (text: TextTerms) => Promise<FoundText>): Promise<Bitmap> {
    const key = textKey(text)
    const kept = this.textMatches.get(key)
    if (kept !== undefined) return kept.bits
    const bits = await this.matchesOf(db, text, find)
    this.textMatches.set(key, { text, bits })
    return bits
  }

  /**
   * `text`'s live matches: each term of the search documents whose every form the short-term index or the words
   * answer is found in memory, the others by the database (one lookup for all of them), and the parts combined.
   */
  private async matchesOf(db: Db, text: TextTerms, find: (text: TextTerms) => Promise<FoundText>): Promise<Bitmap> {
    const parts: Bitmap[] = []
    const others: TextTerms['terms'][number][] = []
    for (const term of text.terms) {
      const held = term.column === 'body' ? await this.heldInMemory(db, term.forms) : undefined
      if (held === undefined) others.push(term)
      else parts.push(held)
    }
    if (others.length > 0) parts.push(this.liveFound(await find({ op: text.op, terms: others })))
    const [first, ...rest] = parts
    const bits = first ?? bitmap()
    for (const part of rest) {
      if (text.op === 'and') bits.andInPlace(part)
      else bits.orInPlace(part)
    }
    return bits.andInPlace(this.live)
  }

  /**
   * The leads whose documents hold any of `forms`, as a new bitmap; undefined when memory cannot tell for one. A
   * single character comes from the short-term index, any other form of letters and digits from the words, and the
   * short-term index's pairs with punctuation from it.
   */
  private async heldInMemory(db: Db, forms: readonly string[]): Promise<Bitmap | undefined> {
    if (!forms.every((form) => isShortTerm(form) || isWordForm(form))) return undefined
    const held = bitmap()
    for (const form of forms) {
      const leads =
        isShortTerm(form) && (form.length === 1 || !isWordForm(form))
          ? (await this.shortTermIndex(db)).leadsHolding(form)
          : this.wordIndex(db)?.leadsHolding(form)
      if (leads === undefined) return undefined
      held.orInPlace(leads)
    }
    return held
  }

  private liveFound(found: FoundText): Bitmap {
    return found.kind === 'rowids'
      ? liveOrdinals(found.values, this.bySearchRowid, this)
      : liveOrdinals(found.values, this.ids, this)
  }

  /** The short-term index, read from the search rows the first time it is asked for (and kept up to date after). */
  private async shortTermIndex(db: Db): Promise<ShortTermIndex> {
    if (this.shortTerms !== undefined) return this.shortTerms
    const index = new ShortTermIndex(SHORT_TERMS_KEPT, undefined, keepsShortPair)
    await this.readDocuments(db, index)
    index.compact()
    this.shortTerms = index
    return index
  }

  /**
   * The words, once built; undefined while they are not (the first search that asks starts reading them, and the
   * database answers until they are ready) or when the organization's documents hold more distinct words than are
   * kept.
   */
  private wordIndex(db: Db): WordIndex | undefined {
    if (this.words === undefined) {
      this.wordsBuilding ??= this.buildWords(db)
      return undefined
    }
    return this.words.usable ? this.words : undefined
  }

  /**
   * Reads every lead's document into the words beside the searches (a million leads take seconds, which no search
   * waits for). What the catch-ups read meanwhile is held, and given to the words once they are built, after the
   * documents read before: a lead changed after its document was read is then as it is now.
   */
  private buildWords(db: Db): WordsBuilding {
    const late = new Map<number, string | undefined>()
    // Once built, a catch-up that began before still gives its documents here: they go on to the words.
    let built: WordIndex | undefined
    const building: WordsBuilding = {
      add: (ordinal, document) => {
        if (built === undefined) late.set(ordinal, document)
        else built.add(ordinal, document)
      },
      forget: (ordinal) => {
        if (built === undefined) late.set(ordinal, undefined)
        else built.forget(ordinal)
      },
      done: (async () => {
        try {
          const builder = new WordIndexBuilder()
          await this.readDocuments(db, builder)
          const words = builder.build()
          for (const [ordinal, document] of late) {
            words.forget(ordinal)
            if (document !== undefined) words.add(ordinal, document)
          }
          built = words
          this.words = words
        } catch {
          // The database could not be read (closing, say): the next search that asks starts again.
        } finally {
          this.wordsBuilding = undefined
        }
      })(),
    }
    return building
  }

  /** Settles once the words being built are (tests wait on it); at once when none are. */
  async wordsBuilt(): Promise<void> {
    await this.wordsBuilding?.done
  }

  /** Gives every live lead's search document to `to`, read in id order a range at a time. */
  protected async readDocuments(db: Db, to: DocumentSink): Promise<void> {
    const perRead = Math.min(this.leadsPerRead, DOCUMENTS_PER_READ)
    await this.inIdOrder(
      (after) => this.leadIds(db, after, perRead),
      (_rows, range) => this.loadSearchRows(db, range, { kept: [], documents: [to] }),
      perRead,
    )
  }

  /** A number field's values, loaded the first time a search asks (and kept up to date after). */
  async numberColumn(db: Db, fieldId: string): Promise<NumberColumn> {
    const known = this.numbers.get(fieldId)
    if (known !== undefined) return known
    const column: NumberColumn = { first: new Float64Array(this.extent + 1024).fill(Number.NaN), more: new Map() }
    await this.inIdOrder(
      (after) => this.leadIds(db, after),
      (_rows, range) => this.loadNumbers(db, fieldId, column, range),
    )
    this.numbers.set(fieldId, column)
    return column
  }

  /** A text sort's keys, loaded the first time a search sorts by it (and kept up to date after). */
  async textColumn(db: Db, which: TextSort): Promise<void> {
    if (this.texts.has(which)) return
    const column = new TextKeys()
    await this.inIdOrder(
      (after) => this.leadIds(db, after),
      (_rows, range) => this.loadTexts(db, which, column, range),
    )
    this.settleTexts(which, column)
    this.texts.set(which, column)
  }

  /**
   * The sums of the leads' active opportunities, loaded the first time a search sorts by them and read anew when
   * the organization's active statuses are no longer those they were added up over.
   */
  async opportunityValueColumn(db: Db): Promise<void> {
    const { rows } = await sql<{ id: string }>`select id from opportunity_status
      where organization_id = ${this.organizationId} and type = 'active' order by id`.execute(db)
    const active = rows.map((row) => row.id).join(' ')
    if (this.opportunityValues?.active === active) return
    const values: OpportunityValues = { sums: new Float64Array(this.extent + 1024).fill(Number.NaN), active }
    await this.inIdOrder(
      (after) => this.leadIds(db, after),
      (_rows, range) => this.loadOpportunityValues(db, values, range),
    )
    this.opportunityValues = values
  }

  /**
   * The leads' last activities, loaded the first time a search sorts by them; kept up to date after from the feed of
   * their activities' changes (migration 0048), as activities move no lead.
   */
  async lastActivityColumn(db: Db): Promise<void> {
    if (this.lastActivities !== undefined) return
    const last: LastActivities = {
      times: new Float64Array(this.extent + 1024).fill(Number.NaN),
      irregular: new Map(),
    }
    await this.inIdOrder(
      (after) => this.leadIds(db, after),
      (_rows, range) => this.loadLastActivities(db, last, range),
    )
    this.lastActivities = last
  }

  /** The leads' first open tasks, loaded the first time a search sorts by them (and kept up to date after). */
  async nextTaskColumn(db: Db): Promise<void> {
    if (this.nextTasks !== undefined) return
    const size = this.extent + 1024
    const next: NextTasks = {
      timed: new Float64Array(size).fill(Number.NaN),
      day: new Float64Array(size).fill(Number.NaN),
      irregular: new Set(),
    }
    await this.inIdOrder(
      (after) => this.leadIds(db, after),
      (_rows, range) => this.loadNextTasks(db, next, range),
    )
    this.nextTasks = next
  }

  /** Whether every live lead's task dates are of the forms the index orders (else a sort by them goes to SQL). */
  get regularNextTasks(): boolean {
    return this.nextTasks?.irregular.size === 0
  }

  /** The organization's lead ids after `after`, a read's worth, for the ranges of reads of their other rows. */
  private async leadIds(db: Db, after: string, perRead = this.leadsPerRead): Promise<{ id: string }[]> {
    const { rows } = await sql<{ id: string }>`select id from lead where organization_id = ${this.organizationId}
      and id > ${after} order by id limit ${perRead}`.execute(db)
    return rows
  }

  private ordinalOf(id: string): number {
    const extent = this.ids.extent
    const ordinal = this.ids.getOrAdd(id)
    if (ordinal < extent) return ordinal
    this.idsChanged = true
    // Placed in the id order when it is next made; none is kept before the first (which sorts every live lead).
    if (this.idOrder !== undefined) this.freshIds.push(ordinal)
    this.statusOf = grownCounts(this.statusOf, ordinal + 1)
    this.rowidOf = grown(this.rowidOf, ordinal + 1)
    for (const [which, array] of this.counts) this.counts.set(which, grownCounts(array, ordinal + 1))
    this.createdAt = grown(this.createdAt, ordinal + 1)
    this.updatedAt = grown(this.updatedAt, ordinal + 1)
    for (const column of this.numbers.values()) column.first = grown(column.first, ordinal + 1)
    if (this.opportunityValues !== undefined) {
      this.opportunityValues.sums = grown(this.opportunityValues.sums, ordinal + 1)
    }
    if (this.lastActivities !== undefined) this.lastActivities.times = grown(this.lastActivities.times, ordinal + 1)
    if (this.nextTasks !== undefined) {
      this.nextTasks.timed = grown(this.nextTasks.timed, ordinal + 1)
      this.nextTasks.day = grown(this.nextTasks.day, ordinal + 1)
    }
    return ordinal
  }

  private remove(id: string): void {
    const ordinal = this.ids.get(id)
    if (ordinal === undefined) return
    // Taken out of the kept orders at their next merge: cleared, it has no status rank to stay in place by.
    if (this.orders.size > 0) this.touched.add(ordinal)
    this.clear(ordinal)
    this.ids.delete(ordinal)
    this.idsChanged = true
  }

  /**
   * Each ordinal's key in the order every sort ends with (by id, descending): minus its rank in the order of the live
   * leads' ids, so the smaller first (by code unit: lead ids are ASCII, and SQLite compares them so, as Postgres does
   * under a C collation; under another, leads that tie on every sort may come in another order than SQL's). Kept as
   * the live ordinals in id order: new leads are placed by binary search, gone ones dropped, and the ranks numbered
   * anew — no id compared but the new ones'. One `Int32Array`: the ranks themselves are not kept beside.
   */
  idKeys(): Int32Array {
    if (this.idKeysOf !== undefined && !this.idsChanged && this.idKeysOf.length >= this.extent) return this.idKeysOf
    const ids = this.ids
    const byCodeUnit = (a: number, b: number) => ids.compare(a, b)
    let order: number[]
    if (this.idOrder === undefined) {
      // A build reads the leads in id order: on SQLite the ordinals are in it already.
      order = ids.sortedById(Array.from(this.live.toUint32Array()))
    } else {
      const kept = Array.from(this.idOrder).filter((ordinal) => ids.has(ordinal))
      const fresh = this.freshIds.filter((ordinal) => ids.has(ordinal) && this.live.has(ordinal)).sort(byCodeUnit)
      order = []
      let from = 0
      for (const ordinal of fresh) {
        // The first kept lead whose id comes after the new one's.
        let low = from
        let high = kept.length
        while (low < high) {
          const middle = (low + high) >> 1
          if (byCodeUnit(kept[middle] ?? 0, ordinal) < 0) low = middle + 1
          else high = middle
        }
        for (let i = from; i < low; i++) order.push(kept[i] ?? 0)
        order.push(ordinal)
        from = low
      }
      for (let i = from; i < kept.length; i++) order.push(kept[i] ?? 0)
    }
    this.idOrder = Uint32Array.from(order)
    const keys = new Int32Array(this.extent)
    for (let i = 0; i < order.length; i++) keys[order[i] ?? 0] = -i
    this.idKeysOf = keys
    this.idsChanged = false
    this.freshIds = []
    return keys
  }

  private clear(ordinal: number): void {
    this.live.remove(ordinal)
    const held = this.statusOf[ordinal] ?? 0
    if (held > 0) this.statuses.get(this.statusIds[held - 1] ?? '')?.remove(ordinal)
    this.statusOf[ordinal] = 0
    this.named.remove(ordinal)
    this.withUrl.remove(ordinal)
    this.described.remove(ordinal)
    const rowid = this.rowidOf[ordinal] ?? Number.NaN
    if (!Number.isNaN(rowid)) this.bySearchRowid.delete(rowid)
    this.rowidOf[ordinal] = Number.NaN
    this.irregular.delete(ordinal)
    for (const array of this.counts.values()) array[ordinal] = 0
    for (const column of this.numbers.values()) {
      column.first[ordinal] = Number.NaN
      column.more.delete(ordinal)
    }
    for (const column of this.texts.values()) column.set(ordinal, undefined)
    this.names.set(ordinal, undefined)
    for (const kept of this.textMatches.values()) kept.bits.remove(ordinal)
    this.shortTerms?.forget(ordinal)
    this.words?.forget(ordinal)
    this.wordsBuilding?.forget(ordinal)
    if (this.opportunityValues !== undefined) this.opportunityValues.sums[ordinal] = Number.NaN
    if (this.lastActivities !== undefined) forget(this.lastActivities, ordinal)
    if (this.nextTasks !== undefined) {
      this.nextTasks.timed[ordinal] = Number.NaN
      this.nextTasks.day[ordinal] = Number.NaN
      this.nextTasks.irregular.delete(ordinal)
    }
  }

  /** The facts of the organization's leads that `where` (the end of the statement) selects. */
  private async readLeads(db: Db, where: RawBuilder<unknown>): Promise<LeadFacts[]> {
    const rowid = this.dialect === 'sqlite' ? sql`search_rowid` : sql`null`
    const filled = (column: string) => sql`case when ${sql.ref(column)} <> '' then 1 else 0 end`
    const { rows } = await sql<LeadFacts>`select id, status_id, ${filled('name')} as named,
        ${filled('url')} as with_url, case when description = '' then 0 else 1 end as described,
        date_created, date_updated, ${rowid} as search_rowid
      from lead where organization_id = ${this.organizationId} ${where}`.execute(db)
    return rows
  }

  /** Keeps `rows`, the leads of `scope` that are there (a listed lead that is not is gone), and their counts. */
  private async apply(db: Db, rows: readonly LeadFacts[], scope: LeadScope): Promise<void> {
    const seen = new Set<string>()
    for (const lead of rows) {
      seen.add(lead.id)
      const ordinal = this.ordinalOf(lead.id)
      this.clear(ordinal)
      this.live.add(ordinal)
      let number = this.statusNumbers.get(lead.status_id)
      if (number === undefined) {
        this.statusIds.push(lead.status_id)
        this.statusNumbers.set(lead.status_id, (number = this.statusIds.length))
      }
      this.statusOf[ordinal] = number
      let status = this.statuses.get(lead.status_id)
      if (status === undefined) this.statuses.set(lead.status_id, (status = bitmap()))
      status.add(ordinal)
      if (Number(lead.named) === 1) this.named.add(ordinal)
      if (Number(lead.with_url) === 1) this.withUrl.add(ordinal)
      if (Number(lead.described) === 1) this.described.add(ordinal)
      this.createdAt[ordinal] = timeKey(lead.date_created)
      this.updatedAt[ordinal] = timeKey(lead.date_updated)
      if (Number.isNaN(this.createdAt[ordinal]) || Number.isNaN(this.updatedAt[ordinal])) {
        this.irregular.set(ordinal, { date_created: lead.date_created, date_updated: lead.date_updated })
      }
      if (this.orders.size > 0) this.touched.add(ordinal)
      if (lead.search_rowid !== null) {
        this.rowidOf[ordinal] = lead.search_rowid
        this.bySearchRowid.set(lead.search_rowid, ordinal)
      }
    }
    // Listed as changed, and gone since: deleted (its tombstone comes next time, and finds nothing to do).
    if ('ids' in scope) for (const id of scope.ids) if (!seen.has(id)) this.remove(id)
    const org = this.organizationId
    for (const which of INDEXED_COUNTS) {
      const { table, open } = COUNT_SOURCES[which]
      const { rows: counted } = await sql<{ lead_id: string; n: number | string }>`select lead_id, count(*) as n
        from ${sql.table(table)} where organization_id = ${org} and ${leadsOf(scope)}
        ${open === true ? sql`and is_complete = 0` : sql``} group by lead_id`.execute(db)
      for (const row of counted) {
        const ordinal = this.ids.get(row.lead_id)
        if (ordinal !== undefined && this.live.has(ordinal)) this.setCount(which, ordinal, Number(row.n))
      }
    }
    for (const [fieldId, column] of this.numbers) await this.loadNumbers(db, fieldId, column, scope)
    for (const [which, column] of this.texts) {
      await this.loadTexts(db, which, column, scope)
      this.settleTexts(which, column)
    }
    const documents = [
      this.shortTerms,
      this.words?.usable === true ? this.words : undefined,
      this.wordsBuilding,
    ].filter((sink) => sink !== undefined)
    if (this.textMatches.size > 0 || documents.length > 0) {
      await this.loadSearchRows(db, scope, { kept: [...this.textMatches.values()], documents })
    }
    if (this.opportunityValues !== undefined) await this.loadOpportunityValues(db, this.opportunityValues, scope)
    if (this.lastActivities !== undefined) await this.loadLastActivities(db, this.lastActivities, scope)
    if (this.nextTasks !== undefined) await this.loadNextTasks(db, this.nextTasks, scope)
  }

  /** A date of a live lead as its stored text. */
  dateText(column: 'date_created' | 'date_updated', ordinal: number): string {
    return this.irregular.get(ordinal)?.[column] ?? timeText(this.times(column)[ordinal] ?? 0)
  }

  /** Whether every live lead's dates are in the stored wire form (so that their numbers sort as their texts). */
  get regularTimes(): boolean {
    return this.irregular.size === 0
  }

  /** A date column as timeKey's numbers, by ordinal (meaningful for every live lead when `regularTimes`). */
  times(column: 'date_created' | 'date_updated'): Float64Array {
    return column === 'date_created' ? this.createdAt : this.updatedAt
  }

  /** Reads the statuses' order (a rename moves a status without changing any lead), for a sort by status. */
  async loadStatusRanks(db: Db): Promise<void> {
    // The key lead-search.ts's sortTerms sorts by: the label folded, compared by code point.
    const folds = folded(sql`nullif(label, '')`, this.dialect)
    const label = this.dialect === 'postgres' ? sql`${folds} collate "C"` : folds
    const { rows } = await sql<{ id: string; k: string | null }>`select id, ${label} as k from lead_status
      where organization_id = ${this.organizationId} order by k`.execute(db)
    const ranks = new Map<string, number>()
    let rank = -1
    let last: string | null | undefined
    for (const row of rows) {
      if (rank < 0 || row.k !== last) rank += 1
      last = row.k
      ranks.set(row.id, rank)
    }
    const same = ranks.size === this.statusRanks.size && [...ranks].every(([id, r]) => this.statusRanks.get(id) === r)
    if (!same) for (const direction of ['asc', 'desc']) this.orders.delete(`status ${direction}`)
    this.statusRanks = ranks
  }

  /** Compares two ordinals in the order of `sorts`, then by id, descending. */
  comparator(sorts: readonly IndexSort[]): (a: number, b: number) => number {
    // By the rank of the id: two numbers compared, where comparing the ids themselves cost 0.3 µs (a sort by status
    // ties a fifth of the leads with each other).
    const idKeys = this.idKeys()
    const byId = (a: number, b: number) => (idKeys[a] ?? 0) - (idKeys[b] ?? 0)
    const [only] = sorts
    if (only !== undefined && sorts.length === 1 && isDateSort(only) && this.regularTimes) {
      // The common case, kept to one comparison of numbers.
      const times = this.times(only.field)
      const s = only.direction === 'asc' ? 1 : -1
      return (a, b) => {
        const x = times[a] ?? 0
        const y = times[b] ?? 0
        return x === y ? byId(a, b) : x < y ? -s : s
      }
    }
    const keys = sorts.map((sort) => this.sortKey(sort))
    return (a, b) => {
      for (const key of keys) {
        const order = key(a, b)
        if (order !== 0) return order
      }
      return byId(a, b)
    }
  }

  /** Compares two ordinals by one sort's key alone (0 when they tie). */
  private sortKey(sort: IndexSort): (a: number, b: number) => number {
    const s = sort.direction === 'asc' ? 1 : -1
    if (isDateSort(sort) && !this.regularTimes) {
      const field = sort.field
      return (a, b) => {
        const x = this.dateText(field, a)
        const y = this.dateText(field, b)
        return x === y ? 0 : x < y ? -s : s
      }
    }
    if (sort.field === 'last_activity' && (this.lastActivities?.irregular.size ?? 0) > 0) {
      // A date of another form: all compared as text, as SQL compares them.
      const last = this.lastActivities
      if (last === undefined) throw new Error('The last activities are not loaded')
      const text = (ordinal: number) => {
        const time = last.times[ordinal] ?? Number.NaN
        return Number.isNaN(time) ? last.irregular.get(ordinal) : timeText(time)
      }
      return textOrder(text, s)
    }
    if (sort.field === 'text') {
      const texts = this.texts.get(sort.which)
      if (texts === undefined) throw new Error(`The ${sort.which} sort is not loaded`)
      if (sort.which !== 'name') return (a, b) => texts.compare(a, b, s)
      const names = this.names
      return (a, b) => texts.compare(a, b, s) || names.compare(a, b, s)
    }
    const values = this.sortValues(sort)
    return (a, b) => {
      const x = values[a] ?? Number.NaN
      const y = values[b] ?? Number.NaN
      if (x === y) return 0
      // No value (NaN): last in both directions.
      if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1
      if (Number.isNaN(y)) return -1
      return x < y ? -s : s
    }
  }

  /**
   * A sort's keys by ordinal as numbers in the order the sort puts them (the smaller first; no value last, as
   * Infinity), or undefined for a sort by text. Two leads the sort ties have equal keys, and no others do. The
   * array is handed out again by the next call: read it before returning.
   */
  orderKeys(sort: IndexSort): Float64Array | undefined {
    if (sort.field === 'text') return undefined
    if (sort.field === 'last_activity' && (this.lastActivities?.irregular.size ?? 0) > 0) return undefined
    if (isDateSort(sort) && !this.regularTimes) return undefined
    const values = this.sortValues(sort)
    const s = sort.direction === 'asc' ? 1 : -1
    this.keyScratch = scratchOf(this.keyScratch, this.extent)
    const keys = this.keyScratch.subarray(0, this.extent)
    for (let ordinal = 0; ordinal < keys.length; ordinal++) {
      const value = values[ordinal] ?? Number.NaN
      keys[ordinal] = Number.isNaN(value) ? Number.POSITIVE_INFINITY : value * s
    }
    return keys
  }

  /**
   * A sort's key by ordinal, NaN where the lead has none. By status or next task, the array is one the next search
   * fills again: read it within the search's synchronous step (a page), as comparator and orderKeys do.
   */
  private sortValues(sort: Exclude<IndexSort, { field: 'text' }>): ArrayLike<number> {
    switch (sort.field) {
      case 'date_created':
      case 'date_updated':
        return this.times(sort.field)
      case 'count':
        return this.count(sort.which)
      case 'number': {
        const column = this.numbers.get(sort.fieldId)
        if (column === undefined) throw new Error(`The number field ${sort.fieldId} is not loaded`)
        return column.first
      }
      case 'opportunity_value':
        if (this.opportunityValues === undefined) throw new Error('The opportunity values are not loaded')
        return this.opportunityValues.sums
      case 'last_activity':
        if (this.lastActivities === undefined) throw new Error('The last activities are not loaded')
        return this.lastActivities.times
      case 'next_task':
        return this.nextTaskKeys(sort.offsetHours)
      case 'status': {
        // Each status's leads given its rank through its bitmap: no lookup a lead.
        this.statusScratch = scratchOf(this.statusScratch, this.extent)
        const ranks = this.statusScratch.subarray(0, this.extent).fill(Number.NaN)
        for (const [id, leads] of this.statuses) {
          const rank = this.statusRanks.get(id)
          if (rank !== undefined) for (const ordinal of leads.toUint32Array()) ranks[ordinal] = rank
        }
        return ranks
      }
    }
  }

  /**
   * The live leads' ordinals in the order of `sort` (it may also hold deleted leads' ordinals, which no search
   * matches). Made by sorting the first time; after that, the leads loaded since are sorted and merged in.
   */
  sortedBy(sort: KeptSort): Uint32Array {
    if (this.touched.size > 0) {
      const marked = new Uint8Array(this.extent)
      for (const ordinal of this.touched) marked[ordinal] = 1
      const fresh = [...this.touched].filter((ordinal) => this.ids.has(ordinal))
      for (const [name, kept] of this.orders) {
        const compare = this.comparator([kept.sort])
        this.orders.set(name, { sort: kept.sort, order: merged(kept.order, marked, fresh.sort(compare), compare) })
      }
      this.touched.clear()
    }
    const name = `${sort.field} ${sort.direction}`
    const kept = this.orders.get(name)
    if (kept !== undefined) return kept.order
    const order = this.live.toUint32Array().sort(this.comparator([sort]))
    this.orders.set(name, { sort, order })
    return order
  }

  /** Forgets the kept orders when so many leads changed since they were used that sorting anew is as quick. */
  private boundTouched(): void {
    if (this.touched.size > Math.max(1024, this.live.size / 8)) {
      this.orders.clear()
      this.touched.clear()
    }
  }

  /**
   * Tests the search rows of `scope`'s leads against the kept text terms (clear took their ordinals out), and gives
   * their documents to the short-term index and the words.
   */
  private async loadSearchRows(
    db: Db,
    scope: LeadScope,
    { kept, documents }: { kept: readonly TextMatches[]; documents: readonly DocumentSink[] },
  ) {
    const columns = new Set<SearchColumn>(kept.flatMap(({ text }) => text.terms.map((t) => t.column)))
    if (documents.length > 0) columns.add('body')
    const { rows } = await sql<Record<SearchColumn, string | null> & { lead_id: string }>`select lead_id,
        ${sql.join([...columns].map((c) => sql.ref(c)))}
      from lead_search where organization_id = ${this.organizationId} and ${leadsOf(scope)}`.execute(db)
    for (const row of rows) {
      const ordinal = this.ids.get(row.lead_id)
      if (ordinal === undefined || !this.live.has(ordinal)) continue
      for (const { text, bits } of kept) if (holds(row, text)) bits.add(ordinal)
      for (const sink of documents) sink.add(ordinal, row.body ?? '')
    }
  }

  private async loadNumbers(db: Db, fieldId: string, column: NumberColumn, scope: LeadScope) {
    const { rows } = await sql<{ lead_id: string; value_number: number | string | null }>`select lead_id, value_number
      from custom_value where organization_id = ${this.organizationId} and field_id = ${fieldId}
        and ${leadsOf(scope)} order by lead_id, position`.execute(db)
    for (const row of rows) {
      const ordinal = this.ids.get(row.lead_id)
      if (ordinal === undefined || !this.live.has(ordinal) || row.value_number === null) continue
      const value = Number(row.value_number)
      if (Number.isNaN(column.first[ordinal] ?? Number.NaN)) column.first[ordinal] = value
      else column.more.set(ordinal, [...(column.more.get(ordinal) ?? []), value])
    }
  }

  /** Places the keys `loadTexts` held (the names' too, for a sort by name). */
  private settleTexts(which: TextSort, column: TextKeys): void {
    column.settle()
    if (which === 'name') this.names.settle()
  }

  /**
   * The keys of a text sort for `scope`'s leads: the same folded text of the same row as lead-search.ts's valueSort
   * reads for each lead (its first contact in contact order, and that contact's first email or phone), so that
   * the order is SQL's; read here for a range of leads at once, each lead's first row kept, and held until settled.
   */
  private async loadTexts(db: Db, which: TextSort, column: TextKeys, scope: LeadScope) {
    const org = this.organizationId
    // SQLite's folding is foldCase called from SQL for each row: the rows kept (a lead's first) are folded here
    // instead, half the rows of a contact sort and no call into JavaScript per row (a million leads' contact names:
    // 5.3 s of reads → 3.4). Postgres folds with its own lower(), as its sorts do.
    const inSql = this.dialect === 'postgres'
    const key = (text: RawBuilder<unknown>) =>
      inSql ? folded(sql`nullif(${text}, '')`, this.dialect) : sql`nullif(${text}, '')`
    const byContact = sql`c.date_created, c.position, c.id`
    const { rows } = await (
      which === 'url' || which === 'name'
        ? sql<TextKeyRow>`select id as lead_id, ${key(sql.ref(which))} as k,
            ${which === 'name' ? sql`nullif(name, '')` : sql`null`} as exact
          from lead where organization_id = ${org} and ${leadsOf(scope, sql.ref('id'))}`
        : which === 'contact_name'
          ? sql<TextKeyRow>`select c.lead_id, ${key(sql.ref('c.name'))} as k from contact c
            where c.organization_id = ${org} and ${leadsOf(scope, sql.ref('c.lead_id'))}
            order by c.lead_id, ${byContact}`
          : sql<TextKeyRow>`select i.lead_id, ${key(sql.ref(which === 'phone' ? 'i.phone' : 'i.email'))} as k
            from ${sql.table(which === 'phone' ? 'contact_phone' : 'contact_email')} i
              join contact c on c.id = i.contact_id
            where i.organization_id = ${org} and ${leadsOf(scope, sql.ref('i.lead_id'))}
            order by i.lead_id, ${byContact}, i.position`
    ).execute(db)
    let last: string | undefined
    for (const row of rows) {
      if (row.lead_id === last) continue
      last = row.lead_id
      const ordinal = this.ids.get(row.lead_id)
      if (ordinal === undefined || !this.live.has(ordinal)) continue
      column.hold(ordinal, row.k === null ? undefined : inSql ? row.k : foldCase(row.k))
      if (which === 'name') this.names.hold(ordinal, row.exact ?? undefined)
    }
  }

  /**
   * Each lead's first open task's time in the caller's zone, in microseconds (NaN: none): task-list.ts's
   * dateSortKey, by which SQL sorts, as a number — an all-day task stands at its day's midnight in that zone.
   */
  private nextTaskKeys(offsetHours: number): Float64Array {
    const next = this.nextTasks
    if (next === undefined) throw new Error('The next tasks are not loaded')
    const shift = Math.round(-offsetHours * 60) * 60_000
    this.nextTaskScratch = scratchOf(this.nextTaskScratch, this.extent)
    const keys = this.nextTaskScratch.subarray(0, this.extent)
    for (let ordinal = 0; ordinal < keys.length; ordinal++) {
      const timed = next.timed[ordinal] ?? Number.NaN
      const day = next.day[ordinal] ?? Number.NaN
      const allDay = Number.isNaN(day) ? Number.NaN : (day + shift) * 1000
      keys[ordinal] = Number.isNaN(timed) ? allDay : Number.isNaN(allDay) ? timed : Math.min(timed, allDay)
    }
    return keys
  }

  /** The first open timed and all-day task of each of `scope`'s leads (what dateSortKey's minimum is taken over). */
  private async loadNextTasks(db: Db, next: NextTasks, scope: LeadScope) {
    const date = this.dialect === 'postgres' ? sql`date collate "C"` : sql`date`
    const { rows } = await sql<{ lead_id: string; has_time: number | string; d: string }>`select lead_id, has_time,
        min(${date}) as d from task
      where organization_id = ${this.organizationId} and ${leadsOf(scope)} and is_complete = 0 and is_dateless = 0
      group by lead_id, has_time`.execute(db)
    for (const row of rows) {
      const ordinal = this.ids.get(row.lead_id)
      if (ordinal === undefined || !this.live.has(ordinal)) continue
      if (Number(row.has_time) === 1) {
        const time = timeKey(row.d)
        next.timed[ordinal] = time
        if (Number.isNaN(time)) next.irregular.add(ordinal)
      } else {
        const day = dayKey(row.d)
        next.day[ordinal] = day
        if (Number.isNaN(day)) next.irregular.add(ordinal)
      }
    }
  }

  /** The newest call, email, note or SMS of each of `scope`'s leads (lastActivityOfLead's). */
  private async loadLastActivities(db: Db, last: LastActivities, scope: LeadScope) {
    const { rows } = await sql<{ lead_id: string; d: string }>`select lead_id, max(date_created) as d from activity
      where organization_id = ${this.organizationId} and ${leadsOf(scope)}
        and type in (${LAST_ACTIVITY_TYPE_LIST}) group by lead_id`.execute(db)
    for (const row of rows) {
      const ordinal = this.ids.get(row.lead_id)
      if (ordinal === undefined || !this.live.has(ordinal)) continue
      const time = timeKey(row.d)
      last.times[ordinal] = time
      if (Number.isNaN(time)) last.irregular.set(ordinal, row.d)
    }
  }

  /** The sums of `scope`'s leads' active opportunities (valueSort's sum). */
  private async loadOpportunityValues(db: Db, values: OpportunityValues, scope: LeadScope) {
    const { rows } = await sql<{ lead_id: string; v: number | string | null }>`select o.lead_id, sum(o.value) as v
      from opportunity o join opportunity_status s on s.id = o.status_id
      where o.organization_id = ${this.organizationId} and ${leadsOf(scope, sql.ref('o.lead_id'))}
        and s.type = 'active' group by o.lead_id`.execute(db)
    for (const row of rows) {
      const ordinal = this.ids.get(row.lead_id)
      if (ordinal !== undefined && this.live.has(ordinal) && row.v !== null) values.sums[ordinal] = Number(row.v)
    }
  }
}

/** `array` when it holds `size` values, else a new one that does (with room to grow). */
function scratchOf(array: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> {
  return array.length >= size ? array : new Float64Array(size + 1024)
}

/** A lead's last activity, no longer known (until read again). */
function forget(last: LastActivities, ordinal: number): void {
  last.times[ordinal] = Number.NaN
  last.irregular.delete(ordinal)
}

/** An order of texts (`s`: 1 ascending, -1 descending) by code point; no text last in both directions. */
function textOrder(text: (ordinal: number) => string | undefined, s: number): (a: number, b: number) => number {
  return (a, b) => {
    const x = text(a)
    const y = text(b)
    if (x === y) return 0
    if (x === undefined) return 1
    if (y === undefined) return -1
    return byCodePoint(x, y) * s
  }
}

/** A lead's key of a text sort (null: none). */
interface TextKeyRow {
  lead_id: string
  k: string | null
  /** A sort by name: the lead's name as stored (null: none, or empty). */
  exact?: string | null
}

/** The condition on `column` (the rows' lead_id) of the rows of `scope`'s leads. */
function leadsOf(scope: LeadScope, column: RawBuilder<unknown> = sql.ref('lead_id')) {
  return 'ids' in scope
    ? sql`${column} in (${sql.join(scope.ids)})`
    : sql`${column} >= ${scope.from} and ${column} <= ${scope.to}`
}

/**
 * `order` without the ordinals `marked` (changed or deleted since), with `fresh` (the changed ones still live, in the
 * same order) merged in.
 */
function merged(
  order: Uint32Array,
  marked: Uint8Array,
  fresh: readonly number[],
  compare: (a: number, b: number) => number,
): Uint32Array {
  const out = new Uint32Array(order.length + fresh.length)
  let size = 0
  let next = 0
  for (const ordinal of order) {
    if (marked[ordinal] === 1) continue
    while (next < fresh.length && compare(fresh[next] ?? 0, ordinal) < 0) out[size++] = fresh[next++] ?? 0
    out[size++] = ordinal
  }
  while (next < fresh.length) out[size++] = fresh[next++] ?? 0
  return out.subarray(0, size)
}

/** How many leads the indexes of one process hold at most, all organizations together (least recently used out). */
const DEFAULT_MAX_LEADS = 2_000_000

interface Entry {
  index: OrganizationLeadIndex
  built: boolean
  /** The organization's turns with its index, one after the other. */
  queue: Promise<void>
}

/**
 * The indexes of one database's organizations in this process. A search of an organization takes its turn with the
 * index: the index catches up (or is built), `prepare` loads what the search needs that is loaded on demand, and
 * `read` works out the answer without waiting for anything, so no catch-up runs in the middle of it. A turn that
 * fails leaves the index to be built anew.
 */
export class LeadIndexes {
  private readonly entries: LRUCache<string, Entry>

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    /** How many leads the indexes hold at most, all organizations together. */
    readonly maxLeads = DEFAULT_MAX_LEADS,
  ) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxLeads,
      sizeCalculation: (entry) => Math.max(1, entry.index.extent),
    })
  }

  async use<T>(
    organizationId: string,
    prepare: (index: OrganizationLeadIndex) => Promise<void>,
    read: (index: OrganizationLeadIndex) => T,
  ): Promise<T> {
    const fresh = () => new OrganizationLeadIndex(organizationId, this.dialect)
    let entry = this.entries.get(organizationId)
    if (entry === undefined) {
      entry = { index: fresh(), built: false, queue: Promise.resolve() }
      this.entries.set(organizationId, entry)
    }
    const mine = entry
    const turn = mine.queue.then(async () => {
      if (mine.built && !(await mine.index.catchUp(this.db))) mine.built = false
      if (!mine.built) {
        mine.index = fresh()
        await mine.index.build(this.db)
        mine.built = true
      }
      await prepare(mine.index)
      return read(mine.index)
    })
    mine.queue = turn.then(
      () => undefined,
      () => {
        mine.built = false
        mine.index = fresh()
      },
    )
    const answer = await turn
    // Set again, for its size to be counted anew (it may have grown).
    if (this.entries.peek(organizationId) === mine) this.entries.set(organizationId, mine)
    return answer
  }

  /** Drops an organization's index (a turn under way finishes on it): its next search builds one anew. */
  forget(organizationId: string): void {
    this.entries.delete(organizationId)
  }
}

const byDatabase = new WeakMap<Db, LeadIndexes>()

/** This process's lead indexes of the database `db` is connected to. */
export function leadIndexes(db: Db, dialect: Dialect): LeadIndexes {
  let indexes = byDatabase.get(db)
  if (indexes === undefined) byDatabase.set(db, (indexes = new LeadIndexes(db, dialect)))
  return indexes
}
