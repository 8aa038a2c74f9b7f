import { DateValueError, parseDateValue, type DateValue } from './search-dates.js'
import type { SearchTree } from './search-tree.js'

// The search languages' shared kit (leads, opportunities): running a generated parser (generated/, built from
// search-terms.peggy and the language's grammar), the errors and limits both languages give, the boolean structure
// read into a language's own expression, and field tables. Each language supplies its fields and leaf terms.

/** A query the caller has to fix. `offset` is 0-based; the message names the 1-based column (`offset + 1`). */
export class SearchQueryError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message)
    this.name = 'SearchQueryError'
  }
}

/** Parentheses and negations nested deeper than this are refused (the SQL built from them recurses as deeply). */
export const maxNesting = 32
/** Terms (words, phrases, field terms) past this many are refused: each one is a condition tested on every row. */
export const maxTerms = 200

export function column(offset: number): string {
  return `column ${offset + 1}`
}

export function orList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`
}

/** What the kit reads of a peggy syntax error; `expected` is null only for the grammar's own `error()`. */
interface SyntaxErrorShape {
  expected: readonly Expectation[] | null
  found: string | null | undefined
  location: { start: { offset: number } }
}

type Expectation =
  { type: 'literal'; text: string } | { type: 'other'; description: string } | { type: 'end' | 'class' | 'any' }

/** A generated search parser module (generated/*-parser.js). */
export interface SearchParser {
  parse(text: string): SearchTree | null
  SyntaxError: abstract new (...args: never[]) => SyntaxErrorShape
}

/** Runs a search parser over `text`, with the errors every search gives: a NUL, a syntax error, nesting too deep. */
export function parseSearchTree(parser: SearchParser, text: string): SearchTree | null {
  // Neither database takes NUL in a text value (nor FTS5 in a query), and no stored text can hold one.
  const nul = text.indexOf('\u0000')
  if (nul !== -1) throw new SearchQueryError(`Unexpected NUL character at ${column(nul)}: remove it`, nul)
  try {
    return parser.parse(text)
  } catch (error) {
    if (error instanceof parser.SyntaxError) throw fromSyntaxError(error)
    // Thousands of nested parentheses exhaust the stack before any depth check can run.
    if (error instanceof RangeError) {
      throw new SearchQueryError(`Query nested too deeply at ${column(0)}: use at most ${maxNesting} levels`, 0)
    }
    throw error
  }
}

/** A peggy syntax error as the message a caller can act on. */
function fromSyntaxError(error: SyntaxErrorShape): SearchQueryError {
  const offset = error.location.start.offset
  const expected = error.expected
  if (expected === null) {
    return new SearchQueryError(`Unterminated quoted string at ${column(offset)}: it needs a closing "`, offset)
  }
  const expectsLiteral = (text: string) => expected.some((e) => e.type === 'literal' && e.text === text)
  const found = error.found ?? null
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
  return new SearchQueryError(`Unexpected ${what} at ${column(offset)}: ${why}`, offset)
}

/** A language's expression: its leaf terms under `and`, `or` and `not`. */
export type SearchExpr<Leaf> =
  { kind: 'and' | 'or'; items: SearchExpr<Leaf>[] } | { kind: 'not'; expr: SearchExpr<Leaf> } | Leaf

export type LeafNode = Extract<SearchTree, { kind: 'text' | 'field' | 'call' }>

/** Reads a language's term; for a call, `inner` reads the tree inside its parentheses, with the reader it takes. */
export type LeafReader<Leaf extends { kind: string }> = (
  node: LeafNode,
  inner: (tree: SearchTree, leaf: LeafReader<Leaf>) => SearchExpr<Leaf>,
) => SearchExpr<Leaf>

/**
 * Reads a raw tree into a language's expression: `and`/`or` flattened, groups dropped, negations kept, within the
 * term and nesting limits (a call's parentheses count as a level, and its terms with the rest).
 */
export function readSearchTree<Leaf extends { kind: string }>(
  tree: SearchTree,
  leaf: LeafReader<Leaf>,
): SearchExpr<Leaf> {
  let terms = 0
  const read = (node: SearchTree, depth: number, reader: LeafReader<Leaf>): SearchExpr<Leaf> => {
    if (node.kind === 'text' || node.kind === 'field' || node.kind === 'call') {
      terms += 1
      if (terms > maxTerms) {
        throw new SearchQueryError(
          `Too many search terms at ${column(node.offset)}: use at most ${maxTerms}`,
          node.offset,
        )
      }
    }
    if ((node.kind === 'group' || node.kind === 'not' || node.kind === 'call') && depth >= maxNesting) {
      throw new SearchQueryError(
        `Query nested too deeply at ${column(node.offset)}: use at most ${maxNesting} levels`,
        node.offset,
      )
    }
    switch (node.kind) {
      case 'and':
      case 'or': {
        const items = node.items.flatMap((item) => {
          const expr = read(item, depth, reader)
          return isJunction(expr, node.kind) ? expr.items : [expr]
        })
        return { kind: node.kind, items }
      }
      case 'group':
        return read(node.expr, depth + 1, reader)
      case 'not':
        return { kind: 'not', expr: read(node.expr, depth + 1, reader) }
      default:
        return reader(node, (inner, innerReader) => read(inner, depth + 1, innerReader))
    }
  }
  return read(tree, 0, leaf)
}

type Junction<Leaf> = { kind: 'and' | 'or'; items: SearchExpr<Leaf>[] }

/** An `and` or `or` (of `kind`, when given), rather than a language's own term. */
export function isJunction<Leaf extends { kind: string }>(
  expr: SearchExpr<Leaf>,
  kind?: 'and' | 'or',
): expr is Junction<Leaf> {
  return (kind === undefined ? expr.kind === 'and' || expr.kind === 'or' : expr.kind === kind) && 'items' in expr
}

/** A `not`, rather than a language's own term. */
export function isNegation<Leaf extends { kind: string }>(
  expr: SearchExpr<Leaf>,
): expr is { kind: 'not'; expr: SearchExpr<Leaf> } {
  return expr.kind === 'not' && 'expr' in expr
}

/** A language's fields by canonical name, and the other names they answer to. */
export interface FieldTable<Spec> {
  fields: Readonly<Record<string, Spec>>
  aliases: Readonly<Record<string, string>>
}

/** The canonical name a field is written as (lower-cased, alias resolved) and its spec; no spec when unknown. */
export function lookupField<Spec>(table: FieldTable<Spec>, name: string): { field: string; spec: Spec | undefined } {
  const written = name.toLowerCase()
  const field = table.aliases[written] ?? written
  return { field, spec: Object.hasOwn(table.fields, field) ? table.fields[field] : undefined }
}

/** A date value the language cannot read, refused at `offset`. */
export function dateRefusal(error: DateValueError, offset: number): SearchQueryError {
  return new SearchQueryError(`${error.what} at ${column(offset)}: ${error.why}`, offset)
}

/** A date value checked (not resolved: that needs the caller's clock and zone); a bad one is refused at `offset`. */
export function checkDateValue(text: string, offset: number): DateValue {
  try {
    return parseDateValue(text)
  } catch (error) {
    if (error instanceof DateValueError) throw dateRefusal(error, offset)
    throw error
  }
}
