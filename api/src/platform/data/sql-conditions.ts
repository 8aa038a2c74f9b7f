import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Dialect } from './database.js'
import { DateValueError, type DateRange } from '../text/search-dates.js'
import { isJunction, isNegation, type SearchExpr } from '../text/search-parse.js'
import type { Comparator } from '../text/search-tree.js'
import { foldCase } from '../text/text.js'

// Building blocks of the search languages (leads, opportunities): conditions that read the same on SQLite and
// Postgres, text compared ignoring case the same way on both.

export type Condition = RawBuilder<SqlBool>

export const TRUE: Condition = sql<SqlBool>`1 = 1`
export const FALSE: Condition = sql<SqlBool>`1 = 0`

/**
 * Joins conditions with `and` or `or` as a balanced tree. SQLite refuses expressions nested more than 1000 deep,
 * and `a and b and c …` nests one level per term; balanced, 200 terms are 8 levels.
 */
export function joinAll(conditions: Condition[], op: 'and' | 'or'): Condition {
  const [first, ...rest] = conditions
  if (first === undefined) return op === 'and' ? TRUE : FALSE
  if (rest.length === 0) return first
  const half = Math.ceil(conditions.length / 2)
  return sql<SqlBool>`(${joinAll(conditions.slice(0, half), op)} ${sql.raw(op)} ${joinAll(conditions.slice(half), op)})`
}

/** Characters a Postgres array element may hold unquoted: all an id this app makes is made of. */
const PLAIN_ELEMENT = /^[A-Za-z0-9_]+$/
const NULL_ELEMENT = /^null$/i

/**
 * A text array as a Postgres parameter. Given an array, pg quotes and escapes each element in strings of its own
 * (a page's hundred lead ids were an eighth of what the page left to the collector); elements that need neither
 * (not `NULL`, which would read as a null) go as the array's text form instead, written in one join.
 */
export function textArrayParameter(values: readonly string[]): string | readonly string[] {
  return values.every((v) => PLAIN_ELEMENT.test(v) && !NULL_ELEMENT.test(v)) ? `{${values.join(',')}}` : values
}

/** `column` is one of `values` (a list of parameters on SQLite, one text array on Postgres); none: false. */
export function isAmong(column: RawBuilder<unknown>, values: readonly string[], dialect: Dialect): Condition {
  if (values.length === 0) return FALSE
  return dialect === 'postgres'
    ? sql<SqlBool>`${column} = any(${textArrayParameter(values)}::text[])`
    : sql<SqlBool>`${column} in (${sql.join(values)})`
}

/** A LIKE pattern finding `value` anywhere, folded; `%`, `_` and `\` are literal in it. */
export function containsPattern(value: string): string {
  return `%${foldCase(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** Text lower-cased the same way on both dialects: Postgres's lower() in a UTF-8 database, `foldCase` on SQLite. */
export function folded(text: RawBuilder<unknown>, dialect: Dialect): RawBuilder<string> {
  return dialect === 'sqlite' ? sql<string>`leadline_lower(${text})` : sql<string>`lower(${text})`
}

const NON_ASCII = /[^\p{ASCII}]/u

/**
 * On SQLite, text compared with an all-ASCII value: LIKE and NOCASE already ignore ASCII case and need no call into
 * JavaScript per row. Only two letters outside ASCII fold into it (İ to i, the Kelvin sign to k); they are replaced
 * first, so the result is the same as comparing `leadline_lower(text)`.
 */
function asciiFolded(text: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`replace(replace(${text}, ${'\u0130'}, 'i'), ${'\u212A'}, 'k')`
}

/** `text` holds `value`, ignoring case. */
export function containsIgnoringCase(text: RawBuilder<unknown>, value: string, dialect: Dialect): Condition {
  const pattern = containsPattern(value)
  if (dialect === 'sqlite' && !NON_ASCII.test(pattern)) {
    return sql<SqlBool>`${asciiFolded(text)} like ${pattern} escape '\\'`
  }
  return sql<SqlBool>`${folded(text, dialect)} like ${pattern} escape '\\'`
}

/** `text` is `value`, ignoring case. */
export function equalsIgnoringCase(text: RawBuilder<unknown>, value: string, dialect: Dialect): Condition {
  const target = foldCase(value)
  if (dialect === 'sqlite' && !NON_ASCII.test(target))
    return sql<SqlBool>`${asciiFolded(text)} = ${target} collate nocase`
  return sql<SqlBool>`${folded(text, dialect)} = ${target}`
}

/**
 * A column against a range `[start, end)` of fixed-width text that sorts as it compares (timestamps, days): `:`
 * inside, `>` after, `>=` from its start, `<` before, `<=` up to its end.
 */
export function rangeCondition(
  column: RawBuilder<unknown>,
  op: Comparator,
  range: { start: string; end: string },
): Condition {
  switch (op) {
    case ':':
      return sql<SqlBool>`(${column} >= ${range.start} and ${column} < ${range.end})`
    case '>':
      return sql<SqlBool>`${column} >= ${range.end}`
    case '>=':
      return sql<SqlBool>`${column} >= ${range.start}`
    case '<':
      return sql<SqlBool>`${column} < ${range.start}`
    case '<=':
      return sql<SqlBool>`${column} < ${range.end}`
  }
}

/** `left` against a value: `:` is equality, the others compare. */
export function comparison(left: RawBuilder<unknown>, op: Comparator, value: string | number): Condition {
  return sql<SqlBool>`${left} ${sql.raw(op === ':' ? '=' : op)} ${value}`
}

/** The clock and zone relative dates (`today`, `30 days ago`) are read in. */
export interface SearchClock {
  now: Date
  tzOffsetHours: number
}

/**
 * A column against a date value, a range in the caller's zone (search-dates.ts): `resolve` gives the instants
 * (`resolveDateValue`) or the calendar days (`resolveDateDays`) it covers; `refuse` says how the language reports a
 * value it cannot read.
 */
export function dateCondition(
  column: RawBuilder<unknown>,
  op: Comparator,
  value: string,
  clock: SearchClock,
  resolve: (text: string, now: Date, tzOffsetHours: number) => DateRange,
  refuse: (error: DateValueError) => Error,
): Condition {
  let range: DateRange
  try {
    range = resolve(value, clock.now, clock.tzOffsetHours)
  } catch (error) {
    if (error instanceof DateValueError) throw refuse(error)
    throw error
  }
  return rangeCondition(column, op, range)
}

/** A search's `and`, `or` and `not` as SQL: the parts compiled by `part`, a language's own terms by `term`. */
export function searchCondition<Leaf extends { kind: string }>(
  expr: SearchExpr<Leaf>,
  part: (expr: SearchExpr<Leaf>) => Condition,
  term: (leaf: Leaf) => Condition,
): Condition {
  if (isJunction(expr)) return joinAll(expr.items.map(part), expr.kind)
  if (isNegation(expr)) return sql<SqlBool>`not (${part(expr.expr)})`
  return term(expr)
}
