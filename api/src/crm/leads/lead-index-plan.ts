import type { Comparator } from '../../platform/text/search-tree.js'
import { bitmap, difference, type Bitmap } from '../../platform/data/bitmaps.js'
import {
  isKeptSort,
  liveOrdinals,
  textKey,
  timeKey,
  type IndexedCount,
  type IndexSort,
  type OrganizationLeadIndex,
  type TextTerms,
} from './lead-index.js'

// A lead search as the in-memory index answers it (decision 0061): lead-search.ts turns the query into a plan, whose
// parts the index holds (statuses, counts, dates, filled fields, number fields) or which the database found already
// (any term the index does not hold, as lead ids) or which the index keeps once the database has found it (the
// search rows' text terms); here the plan becomes a bitmap of ordinals, and the bitmap a page in the order asked for.

export type Plan =
  | { kind: 'and' | 'or'; items: Plan[] }
  | { kind: 'not'; plan: Plan }
  | { kind: 'all' }
  /** Text terms of the leads' search rows, whose matches the index keeps (loaded before the plan is evaluated). */
  | { kind: 'text'; text: TextTerms }
  | { kind: 'ids'; values: string[] }
  | { kind: 'statuses'; ids: string[] }
  | { kind: 'filled'; which: 'name' | 'url' | 'description' }
  | { kind: 'count'; which: IndexedCount; op: Comparator; value: number }
  /** A date column within, after or before a range `[start, end)` of its text (sql-conditions.ts's rangeCondition). */
  | { kind: 'date'; column: 'date_created' | 'date_updated'; op: Comparator; start: string; end: string }
  | { kind: 'number'; fieldId: string; op: Comparator; value: number }

/** A plan's leaves: the plans that no `and`, `or` or `not` holds. */
function leaves(plan: Plan): Plan[] {
  switch (plan.kind) {
    case 'and':
    case 'or':
      return plan.items.flatMap(leaves)
    case 'not':
      return leaves(plan.plan)
    default:
      return [plan]
  }
}

/** The text terms a plan tests, for the index to load before the plan is evaluated. */
export function textTermsOf(plan: Plan): TextTerms[] {
  return leaves(plan).flatMap((leaf) => (leaf.kind === 'text' ? [leaf.text] : []))
}

/** The number fields a plan tests, for the index to load before the plan is evaluated. */
export function numberFields(plan: Plan): string[] {
  return leaves(plan).flatMap((leaf) => (leaf.kind === 'number' ? [leaf.fieldId] : []))
}

function compares(op: Comparator, left: number, right: number): boolean {
  switch (op) {
    case ':':
      return left === right
    case '>':
      return left > right
    case '>=':
      return left >= right
    case '<':
      return left < right
    case '<=':
      return left <= right
  }
}

/** rangeCondition's test, on text that compares as it sorts (or timeKey's numbers of such text). */
function inRange<T extends string | number>(op: Comparator, text: T, start: T, end: T): boolean {
  switch (op) {
    case ':':
      return text >= start && text < end
    case '>':
      return text >= end
    case '>=':
      return text >= start
    case '<':
      return text < start
    case '<=':
      return text < end
  }
}

/** The ordinals below the index's extent for which `test` holds, among the live leads. */
function scan(index: OrganizationLeadIndex, test: (ordinal: number) => boolean): Bitmap {
  return index.ordinalsWhere(test).andInPlace(index.live)
}

/** The live leads a plan matches; `texts` holds the matches of its text terms, by textKey, as the index loaded them. */
export function evaluate(plan: Plan, index: OrganizationLeadIndex, texts: ReadonlyMap<string, Bitmap>): Bitmap {
  switch (plan.kind) {
    case 'and': {
      const [first, ...rest] = plan.items
      const bits = first === undefined ? index.live.clone() : evaluate(first, index, texts)
      for (const item of rest) {
        if (bits.isEmpty) break
        bits.andInPlace(evaluate(item, index, texts))
      }
      return bits
    }
    case 'or': {
      const bits = bitmap()
      for (const item of plan.items) bits.orInPlace(evaluate(item, index, texts))
      return bits
    }
    case 'not':
      return difference(index.live, evaluate(plan.plan, index, texts))
    case 'all':
      return index.live.clone()
    case 'text': {
      const bits = texts.get(textKey(plan.text))
      if (bits === undefined) throw new Error('A text term of the plan is not loaded')
      return bits.clone()
    }
    case 'ids':
      return liveOrdinals(plan.values, index.ids, index)
    case 'statuses': {
      const bits = bitmap()
      for (const id of plan.ids) {
        const status = index.statuses.get(id)
        if (status !== undefined) bits.orInPlace(status)
      }
      return bits
    }
    case 'filled':
      return (plan.which === 'name' ? index.named : plan.which === 'url' ? index.withUrl : index.described).clone()
    case 'count': {
      const counts = index.count(plan.which)
      return scan(index, (ordinal) => compares(plan.op, counts[ordinal] ?? 0, plan.value))
    }
    case 'date': {
      const start = timeKey(plan.start)
      const end = timeKey(plan.end)
      if (index.regularTimes && !Number.isNaN(start) && !Number.isNaN(end)) {
        // Every date and both ends in the wire form: their numbers compare as their texts do.
        const times = index.times(plan.column)
        return scan(index, (ordinal) => inRange(plan.op, times[ordinal] ?? 0, start, end))
      }
      const column = plan.column
      return scan(index, (ordinal) => inRange(plan.op, index.dateText(column, ordinal), plan.start, plan.end))
    }
    case 'number': {
      const column = index.numbers.get(plan.fieldId)
      if (column === undefined) throw new Error(`The number field ${plan.fieldId} is not loaded`)
      const bits = scan(index, (ordinal) => compares(plan.op, column.first[ordinal] ?? Number.NaN, plan.value))
      for (const [ordinal, values] of column.more) {
        if (values.some((value) => compares(plan.op, value, plan.value))) bits.add(ordinal)
      }
      return bits.andInPlace(index.live)
    }
  }
}

/**
 * The ids of the matches from `skip` to `skip + limit` in the order of `sorts`. Matches that are many (about as
 * many as the leads the walk would pass over) are found by walking the index's kept order of the sort, as SQL walks
 * its date index; fewer are all sorted when the page reaches far into them, else the first `skip + limit` are kept
 * in a heap as they go by.
 */
export function pageOf(
  index: OrganizationLeadIndex,
  matches: Bitmap,
  sorts: readonly IndexSort[],
  skip: number,
  limit: number,
): string[] {
  const wanted = skip + limit
  const [only] = sorts
  if (only !== undefined && sorts.length === 1 && isKeptSort(only, index.regularTimes)) {
    // The leads passed over before the page is full, when the matches are spread evenly through the order.
    const passed = (wanted * index.size) / Math.max(1, matches.size)
    if (passed <= matches.size) {
      // Matches may be far from spread evenly (old leads in the order of the last update): past as many leads as
      // there are matches, picking the page among the matches themselves costs less than walking on.
      const page = walk(index, index.sortedBy(only), matches, skip, limit, Math.max(matches.size, wanted))
      if (page !== undefined) return page
    }
  }
  const before = index.comparator(sorts)
  const all = index.ordinalsOf(matches)
  let kept: number[]
  const keys = only === undefined || wanted * 8 >= all.length ? undefined : index.orderKeys(only)
  if (wanted * 8 >= all.length) {
    kept = Array.from(all).sort(before)
  } else if (keys !== undefined) {
    // The first sort's keys as numbers: the `wanted`-th smallest key among the matches is found comparing numbers
    // alone; those below it are all in, and of those equal to it (a status's many leads) the first by the whole
    // order make up the rest.
    const bound = nthSmallest(all, keys, wanted)
    const below: number[] = []
    const ties: number[] = []
    for (const ordinal of all) {
      const key = keys[ordinal] ?? Number.POSITIVE_INFINITY
      if (key < bound) below.push(ordinal)
      else if (key === bound) ties.push(ordinal)
    }
    const rest = wanted - below.length
    let first: number[]
    if (sorts.length === 1 && ties.length > rest) {
      // Tied on the only sort: the first by id, found by the ids' ranks as numbers too.
      const idKeys = index.idKeys()
      const last = nthSmallest(Uint32Array.from(ties), idKeys, rest)
      first = ties.filter((ordinal) => (idKeys[ordinal] ?? 0) <= last).sort(before)
    } else first = firstOf(ties, rest, before)
    kept = [...below.sort(before), ...first]
  } else {
    kept = firstOf(all, wanted, before)
  }
  return kept.slice(skip, wanted).map((ordinal) => index.ids.idOf(ordinal))
}

/** The `count` first of `items` in the order of `before`, in that order: a heap of them as they go by. */
function firstOf(items: ArrayLike<number>, count: number, before: (a: number, b: number) => number): number[] {
  if (count <= 0) return []
  // A heap whose root is the last of the `count` first seen so far.
  const heap: number[] = []
  const after = (a: number, b: number) => before(a, b) > 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i] ?? 0
    if (heap.length < count) {
      heap.push(item)
      let at = heap.length - 1
      while (at > 0) {
        const parent = (at - 1) >> 1
        if (!after(heap[at] ?? 0, heap[parent] ?? 0)) break
        ;[heap[at], heap[parent]] = [heap[parent] ?? 0, heap[at] ?? 0]
        at = parent
      }
    } else if (before(item, heap[0] ?? 0) < 0) {
      heap[0] = item
      siftDown(heap, 0, after)
    }
  }
  return heap.sort(before)
}

function siftDown<T>(heap: T[], from: number, after: (a: T, b: T) => boolean): void {
  let at = from
  for (;;) {
    const left = 2 * at + 1
    const right = left + 1
    let last = at
    if (left < heap.length && after(heap[left] as T, heap[last] as T)) last = left
    if (right < heap.length && after(heap[right] as T, heap[last] as T)) last = right
    if (last === at) return
    ;[heap[at], heap[last]] = [heap[last] as T, heap[at] as T]
    at = last
  }
}

/** The `n`-th smallest of the keys of `ordinals` (1 for the smallest): a heap of numbers, no comparator called. */
function nthSmallest(ordinals: Uint32Array, keys: ArrayLike<number>, n: number): number {
  const heap = new Float64Array(n)
  let size = 0
  for (const ordinal of ordinals) {
    const key = keys[ordinal] ?? Number.POSITIVE_INFINITY
    if (size < n) {
      // Up from the end: the root is the largest kept.
      let at = size++
      while (at > 0) {
        const parent = (at - 1) >> 1
        if ((heap[parent] ?? 0) >= key) break
        heap[at] = heap[parent] ?? 0
        at = parent
      }
      heap[at] = key
    } else if (key < (heap[0] ?? 0)) {
      let at = 0
      for (;;) {
        const left = 2 * at + 1
        if (left >= n) break
        const right = left + 1
        const larger = right < n && (heap[right] ?? 0) > (heap[left] ?? 0) ? right : left
        if ((heap[larger] ?? 0) <= key) break
        heap[at] = heap[larger] ?? 0
        at = larger
      }
      heap[at] = key
    }
  }
  return heap[0] ?? Number.POSITIVE_INFINITY
}

/**
 * The page of `matches` from `skip`, of at most `limit`, in `order`; undefined once it passed `budget` leads without
 * filling it.
 */
function walk(
  index: OrganizationLeadIndex,
  order: Uint32Array,
  matches: Bitmap,
  skip: number,
  limit: number,
  budget: number,
): string[] | undefined {
  const page: string[] = []
  let seen = 0
  for (let i = 0; i < order.length && page.length < limit; i++) {
    if (i >= budget) return undefined
    const ordinal = order[i] ?? 0
    if (!matches.has(ordinal)) continue
    if (seen >= skip) page.push(index.ids.idOf(ordinal))
    seen += 1
  }
  return page
}
