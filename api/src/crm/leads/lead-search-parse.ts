import * as parser from '../../../generated/lead-search-parser.js'
import {
  checkDateValue,
  column,
  lookupField,
  orList,
  parseSearchTree,
  readSearchTree,
  SearchQueryError,
  type FieldTable,
  type SearchExpr,
} from '../../platform/text/search-parse.js'
import type { Comparator, SearchTree } from '../../platform/text/search-tree.js'

// The lead search language (lead-search.peggy on the shared search terms): `has:` and `sort:` directives, custom
// fields, the wildcard (`*`, `field:*`), and the lead's own field table.

type LeadLeaf =
  | { kind: 'text'; value: string }
  /** `field` is as written, lower-cased unless it is `custom.<…>` (whose prefix alone is lower-cased). */
  | { kind: 'field'; field: string; op: Comparator; value: string; offset: number }
  | { kind: 'has'; what: string; offset: number }
  /** `*`: every lead. */
  | { kind: 'all' }
  /** `field:*`: the field has a value (see `present` in lead-search.ts); `field` as in a `field` term. */
  | { kind: 'present'; field: string; offset: number }

export type Expr = SearchExpr<LeadLeaf>

export interface SortEntry {
  field: string
  direction: 'asc' | 'desc'
  offset: number
}

export interface LeadQuery {
  where: Expr | null
  sort: SortEntry[]
}

type RawField = Extract<SearchTree, { kind: 'field' }>

/** The longest search text: longer is refused by the schema before anything parses it (its parse is linear). */
export const maxQueryLength = 4000

export function parseLeadQuery(text: string): LeadQuery {
  const raw = parseSearchTree(parser, text)
  const sort: SortEntry[] = []
  const rest = raw === null ? null : takeSorts(raw, sort)
  return { where: rest === null ? null : readSearchTree<LeadLeaf>(rest, leafExpr), sort }
}

function isDirective(node: RawField, name: 'has' | 'sort'): boolean {
  return node.name.toLowerCase() === name
}

/** Moves the `sort:` clauses that are outside parentheses and negations into `sort`; null when nothing else is left. */
function takeSorts(node: SearchTree, sort: SortEntry[]): SearchTree | null {
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
    throw new SearchQueryError(
      `Unexpected "${node.op}" after sort at ${column(node.offset)}: write sort:field`,
      node.offset,
    )
  }
  const desc = node.value.startsWith('-')
  const field = desc ? node.value.slice(1) : node.value
  const offset = desc ? node.valueOffset + 1 : node.valueOffset
  if (field === '') {
    throw new SearchQueryError(`Missing sort field at ${column(offset)}: write sort:field or sort:-field`, offset)
  }
  return { field, direction: desc ? 'desc' : 'asc', offset }
}

function leafExpr(node: Extract<SearchTree, { kind: 'text' | 'field' | 'call' }>): Expr {
  switch (node.kind) {
    case 'text':
      return node.wildcard === true ? { kind: 'all' } : { kind: 'text', value: node.value }
    case 'field':
      return fieldExpr(node)
    case 'call':
      throw new Error('the lead search grammar has no calls')
  }
}

function fieldExpr(node: RawField): Expr {
  if (isDirective(node, 'sort')) {
    throw new SearchQueryError(
      `Misplaced sort at ${column(node.offset)}: sort:field cannot be inside parentheses or negated`,
      node.offset,
    )
  }
  if (isDirective(node, 'has')) {
    if (node.op !== ':') {
      throw new SearchQueryError(
        `Unexpected "${node.op}" after has at ${column(node.offset)}: write has:contacts`,
        node.offset,
      )
    }
    return { kind: 'has', what: node.value, offset: node.offset }
  }
  const custom = /^custom\./i.exec(node.name)
  const field = custom ? `custom.${node.name.slice(custom[0].length)}` : node.name.toLowerCase()
  if (node.wildcard === true) return { kind: 'present', field, offset: node.offset }
  return { kind: 'field', field, op: node.op, value: node.value, offset: node.offset }
}

/**
 * How a lead field compares: `plain` only with `:`; `date` and `count` with the comparators too. A count is of the
 * lead's rows of some kind (lead-search.ts says which), and can be sorted by.
 */
type LeadFieldKind = 'plain' | 'date' | 'count'

const leadFields: FieldTable<LeadFieldKind> = {
  fields: {
    name: 'plain',
    status: 'plain',
    status_id: 'plain',
    status_label: 'plain',
    description: 'plain',
    url: 'plain',
    contact_name: 'plain',
    email_address: 'plain',
    phone: 'plain',
    city: 'plain',
    state: 'plain',
    country: 'plain',
    zipcode: 'plain',
    address: 'plain',
    id: 'plain',
    lead_id: 'plain',
    date_created: 'date',
    date_updated: 'date',
    contacts: 'count',
    opportunities: 'count',
    tasks: 'count',
    addresses: 'count',
    emails: 'count',
    phones: 'count',
    activities: 'count',
  },
  aliases: {
    email: 'email_address',
    created: 'date_created',
    updated: 'date_updated',
    company: 'name',
    email_addresses: 'emails',
    phone_numbers: 'phones',
  },
}
const hasTargets = ['contacts', 'email', 'phone', 'opportunities', 'tasks', 'address', 'url']
const countFields = Object.keys(leadFields.fields).filter((name) => leadFields.fields[name] === 'count')
/**
 * What a page sorts by besides a lead's counts: its name and dates (which an index walks), its status (by label), the
 * primary contact's name, email and phone, its url and description, and three keys that are not search fields: the
 * newest activity's date, the sum of its open opportunities' values, and its next task's date. `custom.<field>` too.
 */
const sortOnly = ['last_activity', 'opportunity_value', 'next_task']
const sortFields = new Set([
  'name',
  'date_created',
  'date_updated',
  'status',
  'contact_name',
  'email_address',
  'phone',
  'url',
  'description',
  ...sortOnly,
  ...countFields,
])
/** Sort names for the same key: `status_label` is the status, as shown. */
const sortAliases: Record<string, string> = { status_label: 'status', primary_contact: 'contact_name' }
const sortNames = [
  'name',
  'created',
  'updated',
  'status',
  'contact_name',
  'email',
  'phone',
  'url',
  'description',
  ...sortOnly,
  ...countFields,
  'custom.<field>',
]

/**
 * Checks field names, `has:` targets, sort fields, comparators and count/date values, and returns a copy with
 * aliases resolved (`email` → `email_address`, `created` → `date_created`, `company` → `name`, …) and `has:`
 * targets lower-cased. A `*` in an AND is dropped (it asks for nothing), and an OR with one is `*`: a query of `*`
 * and sorts alone is then `*`, which the search answers as it does an empty one. Throws SearchQueryError naming the
 * column of the offending term.
 */
export function normalizeLeadQuery(query: LeadQuery): LeadQuery {
  return {
    where: query.where === null ? null : normalizeExpr(query.where),
    sort: query.sort.map(normalizeSort),
  }
}

function normalizeExpr(expr: Expr): Expr {
  switch (expr.kind) {
    case 'and': {
      const items = expr.items.map(normalizeExpr).filter((item) => item.kind !== 'all')
      const [first, ...others] = items
      if (first === undefined) return { kind: 'all' }
      return others.length === 0 ? first : { kind: 'and', items }
    }
    case 'or': {
      const items = expr.items.map(normalizeExpr)
      return items.some((item) => item.kind === 'all') ? { kind: 'all' } : { kind: 'or', items }
    }
    case 'not':
      return { kind: 'not', expr: normalizeExpr(expr.expr) }
    case 'text':
    case 'all':
      return expr
    case 'present':
      return { ...expr, field: knownField(expr.field, expr.offset) }
    case 'has': {
      const what = expr.what.toLowerCase()
      if (!hasTargets.includes(what)) {
        throw new SearchQueryError(
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

/** A field's canonical name (a custom field's as written); refused when there is no such field. */
function knownField(written: string, offset: number): string {
  const at = column(offset)
  if (written.startsWith('custom.')) {
    if (written === 'custom.') {
      throw new SearchQueryError(`Missing custom field name at ${at}: write custom.<field name or id>`, offset)
    }
    return written
  }
  const { field, spec } = lookupField(leadFields, written)
  if (spec === undefined) {
    const known = [...Object.keys(leadFields.fields), 'custom.<field>']
    throw new SearchQueryError(`Unknown field "${written}" at ${at}: search ${orList(known)}`, offset)
  }
  return field
}

function normalizeField(expr: Extract<Expr, { kind: 'field' }>): Expr {
  const at = column(expr.offset)
  const field = knownField(expr.field, expr.offset)
  if (field.startsWith('custom.')) return expr
  const spec = leadFields.fields[field]
  if (expr.op !== ':' && spec === 'plain') {
    throw new SearchQueryError(
      `Unexpected "${expr.op}" after ${expr.field} at ${at}: only date, count and custom fields can be compared`,
      expr.offset,
    )
  }
  if (spec === 'count' && !/^\d+$/.test(expr.value)) {
    throw new SearchQueryError(
      `Invalid count "${expr.value}" for ${field} at ${at}: expected a whole number like ${field}>2`,
      expr.offset,
    )
  }
  if (spec === 'date') checkDateValue(expr.value, expr.offset)
  return { ...expr, field }
}

function normalizeSort(entry: SortEntry): SortEntry {
  // A custom field keeps its name as written (`sort:custom.Industry`); the search finds it by id or name.
  const custom = /^custom\./i.exec(entry.field)
  if (custom) {
    const name = entry.field.slice(custom[0].length)
    if (name === '') {
      throw new SearchQueryError(
        `Missing custom field name at ${column(entry.offset)}: write sort:custom.<field>`,
        entry.offset,
      )
    }
    return { ...entry, field: `custom.${name}` }
  }
  const { field: looked } = lookupField(leadFields, entry.field)
  const field = Object.hasOwn(sortAliases, looked) ? (sortAliases[looked] ?? looked) : looked
  if (!sortFields.has(field)) {
    throw new SearchQueryError(
      `Unknown sort field "${entry.field}" at ${column(entry.offset)}: sort by ${orList(sortNames)}`,
      entry.offset,
    )
  }
  return { ...entry, field }
}

const keyword = /^(?:and|or|not)$/i

/**
 * Words that reparse as themselves: no whitespace, parentheses, quotes, comparators or escapes, no leading `-`, and
 * not the wildcard `*`.
 */
function isBareWord(text: string): boolean {
  return /^[^\s()"<>:\\-][^\s()"<>:\\]*$/.test(text) && !keyword.test(text) && text !== '*'
}

function quote(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&')}"`
}

function word(text: string): string {
  return isBareWord(text) ? text : quote(text)
}

function value(text: string): string {
  return /^[^\s()"\\]+$/.test(text) && text !== '*' ? text : quote(text)
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
    case 'all':
      return '*'
    case 'present':
      return `${word(expr.field)}:*`
  }
}
