import peggy from 'peggy'
import { VALUE_PERIODS } from '@leadline/shared/money'
import { OPPORTUNITY_STATUS_TYPES } from '@leadline/shared/status-schema'
import { DateValueError, parseDateValue } from '../leads/lead-search-dates.js'
import {
  column,
  LeadQueryError,
  maxNesting,
  maxTerms,
  parseSearchTree,
  type Comparator,
} from '../leads/lead-search-parse.js'
import { opportunitySearchGrammar } from './opportunity-query-grammar.js'

// Parses and checks an opportunity search (`query` of GET /opportunity/). The terms, errors and limits are the lead
// search's; the fields are the opportunity's own, and `status_change(…)` holds a query over status changes.

export type OpportunityExpr =
  | { kind: 'and' | 'or'; items: OpportunityExpr[] }
  | { kind: 'not'; expr: OpportunityExpr }
  | { kind: 'text'; value: string; offset: number }
  /** `field` is the canonical name (aliases resolved); `value` is as written, checked against the field's kind. */
  | { kind: 'field'; field: string; op: Comparator; value: string; offset: number }
  | { kind: 'status_change'; where: OpportunityExpr | null; offset: number }

/**
 * How a field compares: `contains` (text, case-insensitive), `exact` (an id), `named` (a name or label,
 * case-insensitive, or an id), `choice` (one of a few words), `number`, `day` (a calendar date) or `instant` (a
 * timestamp). Only numbers and dates take `>`, `>=`, `<`, `<=`.
 */
type FieldKind = 'contains' | 'exact' | 'named' | 'choice' | 'number' | 'day' | 'instant'

interface FieldSpec {
  kind: FieldKind
  choices?: readonly string[]
}

interface Scope {
  /** How an error names the place: "" at the top, " in status_change(…)" inside a call. */
  where: string
  fields: Record<string, FieldSpec>
  aliases: Record<string, string>
}

const topScope: Scope = {
  where: '',
  fields: {
    note: { kind: 'contains' },
    value: { kind: 'number' },
    confidence: { kind: 'number' },
    value_period: { kind: 'choice', choices: VALUE_PERIODS },
    status: { kind: 'named' },
    status_id: { kind: 'exact' },
    status_type: { kind: 'choice', choices: OPPORTUNITY_STATUS_TYPES },
    pipeline: { kind: 'named' },
    pipeline_id: { kind: 'exact' },
    user: { kind: 'named' },
    user_id: { kind: 'exact' },
    date_won: { kind: 'day' },
    date_created: { kind: 'instant' },
    date_updated: { kind: 'instant' },
    id: { kind: 'exact' },
    lead_id: { kind: 'exact' },
    contact_id: { kind: 'exact' },
  },
  aliases: { created: 'date_created', updated: 'date_updated', status_label: 'status' },
}

const changeScope: Scope = {
  where: ' in status_change(…)',
  fields: {
    old_status: { kind: 'named' },
    new_status: { kind: 'named' },
    old_status_id: { kind: 'exact' },
    new_status_id: { kind: 'exact' },
    old_status_type: { kind: 'choice', choices: OPPORTUNITY_STATUS_TYPES },
    new_status_type: { kind: 'choice', choices: OPPORTUNITY_STATUS_TYPES },
    date: { kind: 'instant' },
    user: { kind: 'named' },
    user_id: { kind: 'exact' },
  },
  aliases: { created: 'date', date_created: 'date' },
}

/** What the grammar's actions build; see opportunity-query-grammar.ts and lead-search-grammar.ts. */
type RawExpr =
  | { kind: 'and' | 'or'; items: RawExpr[] }
  | { kind: 'not' | 'group'; expr: RawExpr; offset: number }
  | { kind: 'text'; value: string; offset: number }
  | { kind: 'field'; name: string; op: Comparator; value: string; valueOffset: number; offset: number }
  | { kind: 'call'; name: string; expr: RawExpr | null; offset: number }

/** peggy types `parse` as returning `any`; this states what our grammar's actions return. */
interface OpportunitySearchParser {
  parse(text: string): RawExpr | null
  SyntaxError: typeof peggy.parser.SyntaxError
}

const parser: OpportunitySearchParser = peggy.generate(opportunitySearchGrammar, { cache: true })

function orList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`
}

/** Parses and checks a query; null when it has no terms. Throws LeadQueryError naming the column at fault. */
export function parseOpportunityQuery(text: string): OpportunityExpr | null {
  const raw = parseSearchTree(parser, text)
  return raw === null ? null : toExpr(raw, topScope, 0, { terms: 0 })
}

function toExpr(node: RawExpr, scope: Scope, depth: number, seen: { terms: number }): OpportunityExpr {
  if (node.kind === 'text' || node.kind === 'field' || node.kind === 'call') {
    seen.terms += 1
    if (seen.terms > maxTerms) {
      throw new LeadQueryError(`Too many search terms at ${column(node.offset)}: use at most ${maxTerms}`, node.offset)
    }
  }
  if ((node.kind === 'group' || node.kind === 'not' || node.kind === 'call') && depth >= maxNesting) {
    throw new LeadQueryError(
      `Query nested too deeply at ${column(node.offset)}: use at most ${maxNesting} levels`,
      node.offset,
    )
  }
  switch (node.kind) {
    case 'and':
    case 'or': {
      const items = node.items.flatMap((item) => {
        const expr = toExpr(item, scope, depth, seen)
        return expr.kind === node.kind ? expr.items : [expr]
      })
      return { kind: node.kind, items }
    }
    case 'group':
      return toExpr(node.expr, scope, depth + 1, seen)
    case 'not':
      return { kind: 'not', expr: toExpr(node.expr, scope, depth + 1, seen) }
    case 'text':
      if (scope !== topScope) {
        throw new LeadQueryError(
          `Unexpected word ${JSON.stringify(node.value)}${scope.where} at ${column(node.offset)}: write field:value with ${orList(Object.keys(scope.fields))}`,
          node.offset,
        )
      }
      return { kind: 'text', value: node.value, offset: node.offset }
    case 'field':
      return fieldExpr(node, scope)
    case 'call': {
      if (node.name.toLowerCase() !== 'status_change') {
        throw new LeadQueryError(
          `Unknown search "${node.name}(…)" at ${column(node.offset)}: the only one is status_change(…)`,
          node.offset,
        )
      }
      if (scope !== topScope) {
        throw new LeadQueryError(
          `Unexpected status_change(…)${scope.where} at ${column(node.offset)}: put each one at the top level`,
          node.offset,
        )
      }
      const where = node.expr === null ? null : toExpr(node.expr, changeScope, depth + 1, seen)
      return { kind: 'status_change', where, offset: node.offset }
    }
  }
}

function fieldExpr(node: Extract<RawExpr, { kind: 'field' }>, scope: Scope): OpportunityExpr {
  const at = column(node.offset)
  const written = node.name.toLowerCase()
  const field = scope.aliases[written] ?? written
  const spec = scope.fields[field]
  if (spec === undefined) {
    throw new LeadQueryError(
      `Unknown field "${node.name}"${scope.where} at ${at}: search ${orList(Object.keys(scope.fields))}`,
      node.offset,
    )
  }
  const comparable = spec.kind === 'number' || spec.kind === 'day' || spec.kind === 'instant'
  if (node.op !== ':' && !comparable) {
    throw new LeadQueryError(
      `Unexpected "${node.op}" after ${node.name} at ${at}: only numbers and dates can be compared; write ${written}:value`,
      node.offset,
    )
  }
  const expr = { kind: 'field' as const, field, op: node.op, value: node.value, offset: node.offset }
  switch (spec.kind) {
    case 'number':
      if (!/^-?\d+$/.test(node.value.trim())) {
        const example = field === 'value' ? 'value>=10000 (in cents)' : `${field}<50`
        throw new LeadQueryError(
          `Invalid number "${node.value}" for ${field} at ${at}: expected a whole number like ${example}`,
          node.offset,
        )
      }
      return expr
    case 'choice': {
      const choice = node.value.toLowerCase()
      const choices = spec.choices ?? []
      if (!choices.includes(choice)) {
        throw new LeadQueryError(`Unknown ${field} "${node.value}" at ${at}: use ${orList(choices)}`, node.offset)
      }
      return { ...expr, value: choice }
    }
    case 'day':
    case 'instant':
      checkDate(node.value, spec.kind, node.offset)
      return expr
    default:
      return expr
  }
}

function checkDate(text: string, kind: 'day' | 'instant', offset: number): void {
  let parsed
  try {
    parsed = parseDateValue(text)
  } catch (error) {
    if (error instanceof DateValueError)
      throw new LeadQueryError(`${error.what} at ${column(offset)}: ${error.why}`, offset)
    throw error
  }
  if (kind === 'day' && parsed.kind === 'time') {
    throw new LeadQueryError(
      `Unexpected time of day "${text}" at ${column(offset)}: date_won holds whole days; use YYYY-MM-DD or a relative date like "30 days ago"`,
      offset,
    )
  }
}
