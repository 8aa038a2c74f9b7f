import peggy from 'peggy'
import { DateValueError, parseDateValue } from './lead-search-dates.js'
import { leadSearchGrammar } from './lead-search-grammar.js'

export type Comparator = ':' | '>' | '>=' | '<' | '<='

export type Expr =
  | { kind: 'and'; items: Expr[] }
  | { kind: 'or'; items: Expr[] }
  | { kind: 'not'; expr: Expr }
  | { kind: 'text'; value: string }
  /** `field` is as written, lower-cased unless it is `custom.<…>` (whose prefix alone is lower-cased). */
  | { kind: 'field'; field: string; op: Comparator; value: string; offset: number }
  | { kind: 'has'; what: string; offset: number }

export interface SortEntry {
  field: string
  direction: 'asc' | 'desc'
  offset: number
}

export interface LeadQuery {
  where: Expr | null
  sort: SortEntry[]
}

/** A query the caller has to fix. `offset` is 0-based; the message names the 1-based column (`offset + 1`). */
export class LeadQueryError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message)
    this.name = 'LeadQueryError'
  }
}

/** What the grammar's actions build; see lead-search-grammar.ts. */
type RawExpr =
  | { kind: 'and' | 'or'; items: RawExpr[] }
  | { kind: 'not'; expr: RawExpr; offset: number }
  | { kind: 'group'; expr: RawExpr; offset: number }
  | { kind: 'text'; value: string; offset: number }
  | { kind: 'field'; name: string; op: Comparator; value: string; valueOffset: number; offset: number }

type RawField = Extract<RawExpr, { kind: 'field' }>

/**
 * peggy types `parse` as returning `any`; this interface states what our grammar's actions return. The grammar is
 * ours, not caller data, and the round-trip property tests check the shapes.
 */
interface LeadSearchParser {
  parse(text: string): RawExpr | null
  SyntaxError: typeof peggy.parser.SyntaxError
}

// `cache` makes the parse linear: without it a failing nested group is re-parsed at every level above it.
const parser: LeadSearchParser = peggy.generate(leadSearchGrammar, { cache: true })

/** The longest search text: longer is refused by the schema before anything parses it (its parse is linear). */
export const maxQueryLength = 4000
/** Parentheses and negations nested deeper than this are refused (the SQL built from them recurses as deeply). */
export const maxNesting = 32
/** Terms (words, phrases, field terms) past this many are refused: each one is a condition tested on every lead. */
export const maxTerms = 200

export function column(offset: number): string {
  return `column ${offset + 1}`
}

/**
 * Runs a search grammar's parser (the lead search's, or the opportunity search's built on it) over `text`, with
 * the errors both searches give: a NUL, a syntax error, nesting too deep for the stack.
 */
export function parseSearchTree<T>(
  searchParser: { parse(text: string): T | null; SyntaxError: typeof peggy.parser.SyntaxError },
  text: string,
): T | null {
  // Neither database takes NUL in a text value (nor FTS5 in a query), and no stored text can hold one.
  const nul = text.indexOf('\u0000')
  if (nul !== -1) throw new LeadQueryError(`Unexpected NUL character at ${column(nul)}: remove it`, nul)
  try {
    return searchParser.parse(text)
  } catch (error) {
    if (error instanceof searchParser.SyntaxError) throw fromSyntaxError(error)
    // Thousands of nested parentheses exhaust the stack before any depth check can run.
    if (error instanceof RangeError) {
      throw new LeadQueryError(`Query nested too deeply at ${column(0)}: use at most ${maxNesting} levels`, 0)
    }
    throw error
  }
}

export function parseLeadQuery(text: string): LeadQuery {
  const raw = parseSearchTree(parser, text)
  const sort: SortEntry[] = []
  const rest = raw === null ? null : takeSorts(raw, sort)
  return { where: rest === null ? null : toExpr(rest, 0, { terms: 0 }), sort }
}

/** A peggy syntax error as the message a caller can act on. */
function fromSyntaxError(error: peggy.parser.SyntaxError): LeadQueryError {
  const offset = error.location.start.offset
  // Only the grammar's own `error()` leaves `expected` null.
  if (error.expected === null) {
    return new LeadQueryError(`Unterminated quoted string at ${column(offset)}: it needs a closing "`, offset)
  }
  const expected = error.expected
  const expectsLiteral = (text: string) => expected.some((e) => e.type === 'literal' && e.text === text)
  const found = error.found
  let why: string
  if (expected.some((e) => e.type === 'other' && e.description === 'a value')) {
    why = 'expected a value'
  } else if (expectsLiteral(')')) {
    why = 'expected ")"'
  } else if (found === ')' && expected.some((e) => e.type === 'end')) {
    why = 'there is no "(" for it to close'
  } else if (found === ':' || found === '<' || found === '>') {
    why = 'a comparison needs a field name before it, like created>2017-09-29'
  } else {
    why = 'expected a search term'
  }
  const what = found === null ? 'end of query' : JSON.stringify(found)
  return new LeadQueryError(`Unexpected ${what} at ${column(offset)}: ${why}`, offset)
}

function isDirective(node: RawField, name: 'has' | 'sort'): boolean {
  return node.name.toLowerCase() === name
}

/** Moves the `sort:` clauses that are outside parentheses and negations into `sort`; null when nothing else is left. */
function takeSorts(node: RawExpr, sort: SortEntry[]): RawExpr | null {
  if (node.kind === 'field' && isDirective(node, 'sort')) {
    sort.push(sortEntry(node))
    return null
  }
  if (node.kind !== 'and' && node.kind !== 'or') return node
  const items = node.items.flatMap((item) => takeSorts(item, sort) ?? [])
  const [first, ...others] = items
  if (first === undefined) return null
  return others.length === 0 ? first : { kind: node.kind, items }
}

function sortEntry(node: RawField): SortEntry {
  if (node.op !== ':') {
    throw new LeadQueryError(
      `Unexpected "${node.op}" after sort at ${column(node.offset)}: write sort:field`,
      node.offset,
    )
  }
  const desc = node.value.startsWith('-')
  const field = desc ? node.value.slice(1) : node.value
  const offset = desc ? node.valueOffset + 1 : node.valueOffset
  if (field === '') {
    throw new LeadQueryError(`Missing sort field at ${column(offset)}: write sort:field or sort:-field`, offset)
  }
  return { field, direction: desc ? 'desc' : 'asc', offset }
}

function toExpr(node: RawExpr, depth: number, seen: { terms: number }): Expr {
  if (node.kind === 'text' || node.kind === 'field') {
    seen.terms += 1
    if (seen.terms > maxTerms) {
      throw new LeadQueryError(`Too many search terms at ${column(node.offset)}: use at most ${maxTerms}`, node.offset)
    }
  }
  switch (node.kind) {
    case 'and':
    case 'or': {
      const items = node.items.flatMap((item) => {
        const expr = toExpr(item, depth, seen)
        return expr.kind === node.kind ? expr.items : [expr]
      })
      return { kind: node.kind, items }
    }
    case 'group':
    case 'not': {
      if (depth >= maxNesting) {
        throw new LeadQueryError(
          `Query nested too deeply at ${column(node.offset)}: use at most ${maxNesting} levels`,
          node.offset,
        )
      }
      const expr = toExpr(node.expr, depth + 1, seen)
      return node.kind === 'group' ? expr : { kind: 'not', expr }
    }
    case 'text':
      return { kind: 'text', value: node.value }
    case 'field':
      return fieldExpr(node)
  }
}

function fieldExpr(node: RawField): Expr {
  if (isDirective(node, 'sort')) {
    throw new LeadQueryError(
      `Misplaced sort at ${column(node.offset)}: sort:field cannot be inside parentheses or negated`,
      node.offset,
    )
  }
  if (isDirective(node, 'has')) {
    if (node.op !== ':') {
      throw new LeadQueryError(
        `Unexpected "${node.op}" after has at ${column(node.offset)}: write has:contacts`,
        node.offset,
      )
    }
    return { kind: 'has', what: node.value, offset: node.offset }
  }
  const custom = /^custom\./i.exec(node.name)
  const field = custom ? `custom.${node.name.slice(custom[0].length)}` : node.name.toLowerCase()
  return { kind: 'field', field, op: node.op, value: node.value, offset: node.offset }
}

const fieldAliases = new Map([
  ['email', 'email_address'],
  ['created', 'date_created'],
  ['updated', 'date_updated'],
])
const dateFields = new Set(['date_created', 'date_updated'])
const countFields = new Set(['contacts', 'opportunities', 'tasks'])
const plainFields = new Set([
  'name',
  'status',
  'status_id',
  'status_label',
  'description',
  'url',
  'contact_name',
  'email_address',
  'phone',
  'city',
  'state',
  'country',
  'zipcode',
  'address',
  'id',
  'lead_id',
])
const hasTargets = ['contacts', 'email', 'phone', 'opportunities', 'tasks', 'address', 'url']
const sortFields = new Set(['name', 'date_created', 'date_updated'])

function orList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`
}

/**
 * Checks field names, `has:` targets, sort fields, comparators and count/date values, and returns a copy with
 * aliases resolved (`email` → `email_address`, `created` → `date_created`, `updated` → `date_updated`) and `has:`
 * targets lower-cased. Throws LeadQueryError naming the column of the offending term.
 */
export function normalizeLeadQuery(query: LeadQuery): LeadQuery {
  return {
    where: query.where === null ? null : normalizeExpr(query.where),
    sort: query.sort.map(normalizeSort),
  }
}

function normalizeExpr(expr: Expr): Expr {
  switch (expr.kind) {
    case 'and':
    case 'or':
      return { kind: expr.kind, items: expr.items.map(normalizeExpr) }
    case 'not':
      return { kind: 'not', expr: normalizeExpr(expr.expr) }
    case 'text':
      return expr
    case 'has': {
      const what = expr.what.toLowerCase()
      if (!hasTargets.includes(what)) {
        throw new LeadQueryError(
          `Unknown has:${expr.what} at ${column(expr.offset)}: use has: with ${orList(hasTargets)}`,
          expr.offset,
        )
      }
      return { ...expr, what }
    }
    case 'field':
      return normalizeField(expr)
  }
}

function normalizeField(expr: Extract<Expr, { kind: 'field' }>): Expr {
  const at = column(expr.offset)
  if (expr.field.startsWith('custom.')) {
    if (expr.field === 'custom.') {
      throw new LeadQueryError(`Missing custom field name at ${at}: write custom.<field name or id>`, expr.offset)
    }
    return expr
  }
  const field = fieldAliases.get(expr.field) ?? expr.field
  const isDate = dateFields.has(field)
  const isCount = countFields.has(field)
  if (!isDate && !isCount && !plainFields.has(field)) {
    const known = [...plainFields, ...dateFields, ...countFields, 'custom.<field>']
    throw new LeadQueryError(`Unknown field "${expr.field}" at ${at}: search ${orList(known)}`, expr.offset)
  }
  if (expr.op !== ':' && !isDate && !isCount) {
    throw new LeadQueryError(
      `Unexpected "${expr.op}" after ${expr.field} at ${at}: only date, count and custom fields can be compared`,
      expr.offset,
    )
  }
  if (isCount && !/^\d+$/.test(expr.value)) {
    throw new LeadQueryError(
      `Invalid count "${expr.value}" for ${field} at ${at}: expected a whole number like ${field}>2`,
      expr.offset,
    )
  }
  if (isDate) {
    try {
      parseDateValue(expr.value)
    } catch (error) {
      if (error instanceof DateValueError) {
        throw new LeadQueryError(`${error.what} at ${at}: ${error.why}`, expr.offset)
      }
      throw error
    }
  }
  return { ...expr, field }
}

function normalizeSort(entry: SortEntry): SortEntry {
  const lower = entry.field.toLowerCase()
  const field = fieldAliases.get(lower) ?? lower
  if (!sortFields.has(field)) {
    throw new LeadQueryError(
      `Unknown sort field "${entry.field}" at ${column(entry.offset)}: sort by ${orList(['name', 'created', 'updated', 'date_created', 'date_updated'])}`,
      entry.offset,
    )
  }
  return { ...entry, field }
}

const keyword = /^(?:and|or|not)$/i

/** Words that reparse as themselves: no whitespace, parentheses, quotes, comparators or escapes, no leading `-`. */
function isBareWord(text: string): boolean {
  return /^[^\s()"<>:\\-][^\s()"<>:\\]*$/.test(text) && !keyword.test(text)
}

function quote(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&')}"`
}

function word(text: string): string {
  return isBareWord(text) ? text : quote(text)
}

function value(text: string): string {
  return /^[^\s()"\\]+$/.test(text) ? text : quote(text)
}

/** A value after `>` or `<` is quoted when it starts with `=`, or it would read as `>=` / `<=`. */
function comparedValue(op: Comparator, text: string): string {
  return (op === '>' || op === '<') && text.startsWith('=') ? quote(text) : value(text)
}

/** Prints a query that parses back to the same query (offsets aside), e.g. to show or edit a normalized search. */
export function printLeadQuery(query: LeadQuery): string {
  const where = query.where === null ? [] : [printExpr(query.where)]
  const sort = query.sort.map((entry) => `sort:${value(entry.direction === 'desc' ? `-${entry.field}` : entry.field)}`)
  return [...where, ...sort].join(' ')
}

function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case 'or':
      return expr.items.map((item) => (item.kind === 'or' ? `(${printExpr(item)})` : printExpr(item))).join(' OR ')
    case 'and':
      return expr.items
        .map((item) => (item.kind === 'or' || item.kind === 'and' ? `(${printExpr(item)})` : printExpr(item)))
        .join(' ')
    case 'not':
      return expr.expr.kind === 'and' || expr.expr.kind === 'or'
        ? `-(${printExpr(expr.expr)})`
        : `-${printExpr(expr.expr)}`
    case 'text':
      return word(expr.value)
    case 'field':
      return `${word(expr.field)}${expr.op}${comparedValue(expr.op, expr.value)}`
    case 'has':
      return `has:${value(expr.what)}`
  }
}
