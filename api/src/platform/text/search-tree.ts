/** A search comparator, `:` being equality (or "within", for a range). */
export type Comparator = ':' | '>' | '>=' | '<' | '<='

/**
 * What the search grammars' actions build (search-terms.peggy and each language's grammar): a raw tree the language's
 * TS side checks and turns into its own expression. Only the opportunity search makes `call` nodes, and only the lead
 * search marks a bare `*` (`wildcard`: every lead for a word, "has a value" for a field's value).
 */
export type SearchTree =
  | { kind: 'and' | 'or'; items: SearchTree[] }
  | { kind: 'not' | 'group'; expr: SearchTree; offset: number }
  | { kind: 'text'; value: string; offset: number; wildcard?: true }
  | { kind: 'field'; name: string; op: Comparator; value: string; valueOffset: number; offset: number; wildcard?: true }
  | { kind: 'call'; name: string; expr: SearchTree | null; offset: number }
